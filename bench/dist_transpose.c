/*
 * The transpose-based baseline of pscr-dist-bench (dist_transpose.h): the
 * plan of steps (dist_transpose_plan.h), set-up, the CPU executor, and the
 * MPI side of the GPU one (dist_transpose.cu).
 */
#include "dist_transpose.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <omp.h>

#include "dense_md.h" /* bl_dense_eig: the eigendecompositions */
#include "dist_transpose_plan.h"

#ifndef DT_HAVE_GPU
#define DT_HAVE_GPU 0
#endif

/* Systems the CPU Thomas treats at once (the inner, vectorized loop), and
   the fewest doubles a loop shares out over threads. */
enum { DT_CHUNK = 64, DT_PAR_MIN = 1 << 15 };

struct dt_solver {
  MPI_Comm comm;
  dt_plan plan;
  int cuda, threads;
  double *w[2], *lam[2]; /* W1, W2 (n_d^2), Lambda1, Lambda2 */
  double *fac;           /* the last pencil: ad, ao, md, mo (n each, ao, mo 0-padded) */
  double *buf[DT_NBUF];  /* CPU: SEND, RECV, WORK, CP */
  int *mpi;              /* MPI_Alltoallv's counts and offsets: 4 nranks per step */
  dt_gpu *gpu;
  double *step_ms;
  double setup_s, bytes;
};

/* ------------------------------------------------------------ agreement */

/* The lowest failing rank's status and message ("rank r: ...") on every rank. */
static pscr_status agree(MPI_Comm comm, pscr_status st, char *msg, size_t len)
{
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = st ? rank : INT_MAX, first = INT_MAX;
  if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) {
    snprintf(msg, len, "rank %d: MPI_Allreduce failed", rank);
    return PSCR_ERROR_DEVICE;
  }
  if (first == INT_MAX)
    return PSCR_SUCCESS;
  char text[256] = "";
  int code = (int)st;
  if (rank == first)
    snprintf(text, sizeof text, "rank %d: %s", rank, msg);
  MPI_Bcast(&code, 1, MPI_INT, first, comm);
  MPI_Bcast(text, (int)sizeof text, MPI_CHAR, first, comm);
  snprintf(msg, len, "%s", text);
  return (pscr_status)code;
}

/* ------------------------------------------------------------ the plan */

static dt_step *add(dt_plan *p, int kind)
{
  dt_step *s = &p->steps[p->nsteps++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  return s;
}

static void plan_free(dt_plan *p)
{
  free(p->steps);
  free(p->pat[0].scnt); /* pat[1]'s arrays are in the same block */
  memset(p, 0, sizeof *p);
}

/*
 * The steps of a solve on rank r of P; lo1, lo2: the P + 1 boundaries of
 * the ranks' rows of dimension 1 and columns of dimension 2. The layouts are
 * dist_transpose.h's; each GEMM's comment gives the product in the
 * column-major views of its operands.
 */
static pscr_status plan_build(dt_plan *p, int ndim, const int *n, double c, int P, int r,
                              const int *lo1, const int *lo2, char *msg, size_t len)
{
  memset(p, 0, sizeof *p);
  p->ndim = ndim;
  p->nranks = P;
  p->rank = r;
  p->c = c;
  p->n[2] = 1;
  for (int d = 0; d < ndim; d++)
    p->n[d] = n[d];
  const long long n1 = n[0], n2 = n[1], n3 = p->n[2];
  const long long nl1 = lo1[r + 1] - lo1[r], nl2 = lo2[r + 1] - lo2[r];
  /* Every int the steps hold (GEMM sizes, leading dimensions, pitches). */
  long long big = n1 * n1 > n2 * n2 ? n1 * n1 : n2 * n2;
  if (nl2 * n3 > big)
    big = nl2 * n3;
  if (big > INT_MAX || n1 * n3 > INT_MAX) {
    snprintf(msg, len, "a GEMM dimension over INT_MAX (n1 %lld, n2 %lld, n3 %lld)", n1, n2, n3);
    return PSCR_ERROR_NOT_SUPPORTED;
  }
  p->steps = calloc(4 * (size_t)P + 8, sizeof *p->steps);
  p->pat[0].scnt = calloc(8 * (size_t)P, sizeof(size_t));
  if (!p->steps || !p->pat[0].scnt) {
    plan_free(p);
    snprintf(msg, len, "the baseline's plan (%d ranks)", P);
    return PSCR_ERROR_HOST_ALLOC;
  }
  for (int i = 0; i < 2; i++) {
    dt_pattern *t = &p->pat[i];
    t->scnt = p->pat[0].scnt + 4 * (size_t)i * P;
    t->soff = t->scnt + P;
    t->rcnt = t->soff + P;
    t->roff = t->rcnt + P;
  }
  p->nloc = (size_t)(nl1 * n2 * n3);
  const size_t vol = (size_t)(nl1 * n2 > n1 * nl2 ? nl1 * n2 : n1 * nl2) * (size_t)n3;
  p->size[DT_F] = p->size[DT_U] = p->nloc;
  p->size[DT_SEND] = p->size[DT_RECV] = vol;
  p->size[DT_W1] = (size_t)(n1 * n1);

  /* One rank: no exchanges; the own block goes straight where the
     transposed data is read (below, per layout). */
  const int many = P > 1;
  if (ndim == 3) {
    p->size[DT_WORK] = p->size[DT_CP] = (size_t)(n1 * nl2 * n3);
    p->size[DT_W2] = (size_t)(n2 * n2);
    for (int q = 0; q < P; q++) { /* [i1 own][k2 of q][i3] <-> [i1 of q][k2 own][i3] */
      const long long c_q = lo2[q], nl2_q = lo2[q + 1] - c_q;
      const long long b_q = lo1[q], nl1_q = lo1[q + 1] - b_q;
      p->pat[0].scnt[q] = (size_t)(nl1 * nl2_q * n3);
      p->pat[0].soff[q] = (size_t)(nl1 * c_q * n3);
      p->pat[0].rcnt[q] = (size_t)(nl1_q * nl2 * n3);
      p->pat[0].roff[q] = (size_t)(b_q * nl2 * n3);
    }
    const dt_pattern *t = &p->pat[0];
    /* 1. per q, batch i1: SEND_q,i1 (n3 x nl2_q) = F_i1 (n3 x n2) W2(:, c_q..); the own
          block (the same layout in both) straight into RECV */
    for (int q = 0; q < P; q++) {
      const long long c_q = lo2[q], nl2_q = lo2[q + 1] - c_q;
      add(p, DT_GEMM)->gemm = (dt_gemm){
          .m = (int)n3, .n = (int)nl2_q, .k = (int)n2, .a = DT_F, .lda = (int)n3,
          .sa = n2 * n3, .b = DT_W2, .ob = (size_t)(c_q * n2), .ldb = (int)n2,
          .c = q == r ? DT_RECV : DT_SEND, .oc = q == r ? t->roff[q] : t->soff[q],
          .ldc = (int)n3, .sc = nl2_q * n3, .batch = (int)nl1};
    }
    /* 2. to [i1 all][k2 own][i3] */
    if (many)
      add(p, DT_A2A)->a2a = (dt_a2a){DT_SEND, DT_RECV, 0, 0, 0};
    /* 3. WORK (n1 x nl2 n3) = W1^T RECV^T, RECV: (nl2 n3) x n1 */
    add(p, DT_GEMM)->gemm = (dt_gemm){
        .ta = 1, .tb = 1, .m = (int)n1, .n = (int)(nl2 * n3), .k = (int)n1, .a = DT_W1,
        .lda = (int)n1, .b = DT_RECV, .ldb = (int)(nl2 * n3), .c = DT_WORK, .ldc = (int)n1,
        .batch = 1};
    /* 4. Thomas: group k2, system k1, row i3 at k2 n1 n3 + k1 + i3 n1 */
    add(p, DT_TRI)->tri = (dt_tri){DT_WORK, DT_CP, (int)nl2, (int)n1, (int)n3, 0, lo2[r], 1};
    /* 5. per q: the columns i1 of q of [i1 all][k2 own][i3] ((nl2 n3) x n1) =
          WORK^T W1^T, into q's block of SEND, or the own block into RECV */
    for (int q = 0; q < P; q++) {
      const long long b_q = lo1[q], nl1_q = lo1[q + 1] - b_q;
      add(p, DT_GEMM)->gemm = (dt_gemm){
          .ta = 1, .tb = 1, .m = (int)(nl2 * n3), .n = (int)nl1_q, .k = (int)n1, .a = DT_WORK,
          .lda = (int)n1, .b = DT_W1, .ob = (size_t)b_q, .ldb = (int)n1,
          .c = q == r ? DT_RECV : DT_SEND, .oc = q == r ? t->soff[q] : t->roff[q],
          .ldc = (int)(nl2 * n3), .batch = 1};
    }
    /* 6. back to [q][i1 own][k2 of q][i3] */
    if (many)
      add(p, DT_A2A)->a2a = (dt_a2a){DT_SEND, DT_RECV, 0, 1, 0};
    /* 7. per q, batch i1: U_i1 (n3 x n2) (+)= RECV_q,i1 (n3 x nl2_q) W2(:, c_q..)^T */
    for (int q = 0; q < P; q++) {
      const long long c_q = lo2[q], nl2_q = lo2[q + 1] - c_q;
      add(p, DT_GEMM)->gemm = (dt_gemm){
          .tb = 1, .m = (int)n3, .n = (int)n2, .k = (int)nl2_q, .a = DT_RECV,
          .oa = t->soff[q], .lda = (int)n3, .sa = nl2_q * n3, .b = DT_W2,
          .ob = (size_t)(c_q * n2), .ldb = (int)n2, .c = DT_U, .ldc = (int)n3,
          .sc = n2 * n3, .batch = (int)nl1, .beta = q ? 1.0 : 0.0};
    }
    return PSCR_SUCCESS;
  }

  p->size[DT_WORK] = (size_t)(nl1 * n2);
  for (int q = 0; q < P; q++) {
    const long long c_q = lo2[q], nl2_q = lo2[q + 1] - c_q;
    const long long b_q = lo1[q], nl1_q = lo1[q + 1] - b_q;
    /* rows: [i1 own][i2 of q] <-> [i1 of q][i2 own] */
    p->pat[0].scnt[q] = (size_t)(nl1 * nl2_q);
    p->pat[0].soff[q] = (size_t)(nl1 * c_q);
    p->pat[0].rcnt[q] = (size_t)(nl1_q * nl2);
    p->pat[0].roff[q] = (size_t)(b_q * nl2);
    /* modes: [i2 own][k1 of q] <-> [i2 of q][k1 own] */
    p->pat[1].scnt[q] = (size_t)(nl1_q * nl2);
    p->pat[1].soff[q] = (size_t)(b_q * nl2);
    p->pat[1].rcnt[q] = (size_t)(nl2_q * nl1);
    p->pat[1].roff[q] = (size_t)(c_q * nl1);
  }
  const dt_pattern *t = &p->pat[0];
  /* With one rank RECV's layouts below are F's, SEND's and U's: f is read
     in place, Thomas runs on SEND, and the product back writes u. */
  /* pack F's columns of q into SEND: [q][i1 own][i2 of q]; the own block into RECV */
  for (int q = 0; many && q < P; q++) {
    const int c_q = lo2[q], nl2_q = lo2[q + 1] - c_q;
    add(p, DT_COPY)->copy = (dt_copy){DT_F, q == r ? DT_RECV : DT_SEND, (int)nl1, nl2_q,
                                      (int)n2, nl2_q, (size_t)c_q,
                                      q == r ? t->roff[q] : t->soff[q]};
  }
  /* to [i1 all][i2 own] = RECV (nl2 x n1) */
  if (many)
    add(p, DT_A2A)->a2a = (dt_a2a){DT_SEND, DT_RECV, 0, 0, 0};
  /* per q: SEND_q (nl1_q x nl2) = W1(:, b_q..)^T RECV^T: [i2 own][k1 of q] */
  for (int q = 0; q < P; q++) {
    const long long b_q = lo1[q], nl1_q = lo1[q + 1] - b_q;
    add(p, DT_GEMM)->gemm = (dt_gemm){
        .ta = 1, .tb = 1, .m = (int)nl1_q, .n = (int)nl2, .k = (int)n1, .a = DT_W1,
        .oa = (size_t)(b_q * n1), .lda = (int)n1, .b = many ? DT_RECV : DT_F, .ldb = (int)nl2,
        .c = DT_SEND, .oc = (size_t)(b_q * nl2), .ldc = (int)nl1_q, .batch = 1};
  }
  /* to [i2 all][k1 own] = RECV */
  if (many)
    add(p, DT_A2A)->a2a = (dt_a2a){DT_SEND, DT_RECV, 1, 0, 1};
  /* Thomas: one group, system k1, row i2 at k1 + i2 nl1 */
  add(p, DT_TRI)->tri =
      (dt_tri){many ? DT_RECV : DT_SEND, DT_WORK, 1, (int)nl1, (int)n2, lo1[r], 0, 0};
  /* back to [q][i2 own][k1 of q] = SEND */
  if (many)
    add(p, DT_A2A)->a2a = (dt_a2a){DT_RECV, DT_SEND, 1, 1, 1};
  /* RECV (nl2 x n1) (+)= SEND_q^T W1(:, b_q..)^T: [i1 all][i2 own] */
  for (int q = 0; q < P; q++) {
    const long long b_q = lo1[q], nl1_q = lo1[q + 1] - b_q;
    add(p, DT_GEMM)->gemm = (dt_gemm){
        .ta = 1, .tb = 1, .m = (int)nl2, .n = (int)n1, .k = (int)nl1_q, .a = DT_SEND,
        .oa = (size_t)(b_q * nl2), .lda = (int)nl1_q, .b = DT_W1, .ob = (size_t)(b_q * n1),
        .ldb = (int)n1, .c = many ? DT_RECV : DT_U, .ldc = (int)nl2, .batch = 1,
        .beta = q ? 1.0 : 0.0};
  }
  /* back to [q][i1 own][i2 of q] = SEND (the own block stays in RECV) */
  if (many)
    add(p, DT_A2A)->a2a = (dt_a2a){DT_RECV, DT_SEND, 0, 1, 0};
  /* unpack into U */
  for (int q = 0; many && q < P; q++) {
    const int c_q = lo2[q], nl2_q = lo2[q + 1] - c_q;
    add(p, DT_COPY)->copy = (dt_copy){q == r ? DT_RECV : DT_SEND, DT_U, (int)nl1, nl2_q, nl2_q,
                                      (int)n2, q == r ? t->roff[q] : t->soff[q], (size_t)c_q};
  }
  return PSCR_SUCCESS;
}

/* Doubles this rank sends to other ranks per solve. */
static double plan_words_sent(const dt_plan *p)
{
  double words = 0;
  for (int i = 0; i < p->nsteps; i++) {
    if (p->steps[i].kind != DT_A2A)
      continue;
    const dt_pattern *t = &p->pat[p->steps[i].a2a.pattern];
    const size_t *cnt = p->steps[i].a2a.reverse ? t->rcnt : t->scnt;
    for (int q = 0; q < p->nranks; q++)
      if (q != p->rank)
        words += (double)cnt[q];
  }
  return words;
}

/* ------------------------------------------------------------ CPU executor */

static double *cpu_buf(dt_solver *s, int id, const double *f, double *u)
{
  return id == DT_F ? (double *)f : id == DT_U ? u : s->buf[id];
}

/*
 * --threads, or by default the node's processors shared out over its
 * ranks (OpenMP's default, every processor in every rank, would have the
 * ranks' spinning threads crowd each other).
 */
static int default_threads(MPI_Comm comm)
{
  MPI_Comm node;
  int ranks = 1;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &ranks);
    MPI_Comm_free(&node);
  }
  const int t = omp_get_num_procs() / ranks;
  return t > 1 ? t : 1;
}

/*
 * One product, or a batch of small ones: those are shared out over the
 * OpenMP threads, each product on one OpenBLAS thread (OpenBLAS's own
 * threads gain little on a product of order n, and the batch has n of them).
 */
static void cpu_gemm(dt_solver *s, const dt_gemm *g, const double *f, double *u)
{
  const double *a = cpu_buf(s, g->a, f, u) + g->oa, *b = cpu_buf(s, g->b, f, u) + g->ob;
  double *c = cpu_buf(s, g->c, f, u) + g->oc;
  const CBLAS_TRANSPOSE ta = g->ta ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = g->tb ? CblasTrans : CblasNoTrans;
  if (g->m < 1 || g->n < 1)
    return;
  if (g->batch == 1 || s->threads == 1) {
    for (int j = 0; j < g->batch; j++)
      cblas_dgemm(CblasColMajor, ta, tb, g->m, g->n, g->k, 1.0, a + j * g->sa, g->lda,
                  b + j * g->sb, g->ldb, g->beta, c + j * g->sc, g->ldc);
    return;
  }
  const int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
#pragma omp parallel for schedule(static) num_threads(s->threads)
  for (int j = 0; j < g->batch; j++)
    cblas_dgemm(CblasColMajor, ta, tb, g->m, g->n, g->k, 1.0, a + j * g->sa, g->lda,
                b + j * g->sb, g->ldb, g->beta, c + j * g->sc, g->ldc);
  openblas_set_num_threads(blas_threads);
}

static void cpu_copy(dt_solver *s, const dt_copy *cp, const double *f, double *u)
{
  const double *src = cpu_buf(s, cp->src, f, u) + cp->os;
  double *dst = cpu_buf(s, cp->dst, f, u) + cp->od;
  const size_t w = (size_t)cp->width * sizeof *dst;
#pragma omp parallel for schedule(static) num_threads(s->threads) \
    if ((size_t)cp->rows * cp->width >= DT_PAR_MIN)
  for (int i = 0; i < cp->rows; i++)
    memcpy(dst + (size_t)i * cp->pd, src + (size_t)i * cp->ps, w);
}

static pscr_status cpu_a2a(dt_solver *s, int step, const double *f, double *u, char *msg,
                           size_t len)
{
  const dt_a2a *x = &s->plan.steps[step].a2a;
  const int P = s->plan.nranks, *m = s->mpi + 4 * (size_t)P * step;
  const int err = MPI_Alltoallv(cpu_buf(s, x->src, f, u), m, m + P, MPI_DOUBLE,
                                cpu_buf(s, x->dst, f, u), m + 2 * P, m + 3 * P, MPI_DOUBLE,
                                s->comm);
  if (err != MPI_SUCCESS) {
    snprintf(msg, len, "MPI_Alltoallv failed (MPI error %d)", err);
    return PSCR_ERROR_DEVICE;
  }
  return PSCR_SUCCESS;
}

/*
 * Thomas on DT_CHUNK systems at once: the row loop's inner loop runs over
 * consecutive systems (consecutive addresses), which vectorizes; groups and
 * chunks are shared out over the threads.
 */
static void cpu_tri(dt_solver *s, const dt_tri *t)
{
  /* Narrower chunks where there are few systems (2D: n1 / P), so that every
     thread has a few of them. */
  int chunk = DT_CHUNK;
  while (chunk > 8 && (long long)t->groups * ((t->ns + chunk - 1) / chunk) < 4LL * s->threads)
    chunk /= 2;
  const int n = t->n, ns = t->ns, chunks = (ns + chunk - 1) / chunk;
  const double *ad = s->fac, *ao = ad + n, *md = ad + 2 * (size_t)n, *mo = ad + 3 * (size_t)n;
  const double *l1 = s->lam[0] + t->la, *l2 = t->use_lb ? s->lam[1] + t->lb : NULL;
  double *x = s->buf[t->x], *cp = s->buf[t->cp];
  const long long items = (long long)t->groups * chunks;
#pragma omp parallel for schedule(static) num_threads(s->threads) \
    if ((size_t)t->groups * ns * n >= DT_PAR_MIN)
  for (long long it = 0; it < items; it++) {
    const int g = (int)(it / chunks), j0 = (int)(it % chunks) * chunk;
    const int w = ns - j0 < chunk ? ns - j0 : chunk;
    const size_t base = (size_t)g * ns * n + (size_t)j0;
    double *restrict xg = x + base, *restrict cg = cp + base;
    double sh[DT_CHUNK];
    for (int q = 0; q < w; q++)
      sh[q] = s->plan.c + l1[j0 + q] + (l2 ? l2[g] : 0.0);
    for (int q = 0; q < w; q++) {
      const double inv = 1.0 / (ad[0] + sh[q] * md[0]);
      xg[q] *= inv;
      cg[q] = (ao[0] + sh[q] * mo[0]) * inv;
    }
    for (int i = 1; i < n; i++) {
      double *restrict xi = xg + (size_t)i * ns, *restrict ci = cg + (size_t)i * ns;
      const double *restrict xp = xi - ns, *restrict cq = ci - ns;
      for (int q = 0; q < w; q++) {
        const double e = ao[i - 1] + sh[q] * mo[i - 1];
        const double inv = 1.0 / (ad[i] + sh[q] * md[i] - e * cq[q]);
        xi[q] = (xi[q] - e * xp[q]) * inv;
        ci[q] = (ao[i] + sh[q] * mo[i]) * inv; /* 0 on the last row */
      }
    }
    for (int i = n - 2; i >= 0; i--) {
      double *restrict xi = xg + (size_t)i * ns;
      const double *restrict xn = xi + ns, *restrict ci = cg + (size_t)i * ns;
      for (int q = 0; q < w; q++)
        xi[q] -= ci[q] * xn[q];
    }
  }
}

static pscr_status cpu_solve(dt_solver *s, const double *f, double *u, double *local_s,
                             double *exchange_s, char *msg, size_t len)
{
  pscr_status st = PSCR_SUCCESS;
  for (int i = 0; !st && i < s->plan.nsteps; i++) {
    const dt_step *p = &s->plan.steps[i];
    const double t0 = MPI_Wtime();
    switch (p->kind) {
    case DT_GEMM:
      cpu_gemm(s, &p->gemm, f, u);
      break;
    case DT_COPY:
      cpu_copy(s, &p->copy, f, u);
      break;
    case DT_TRI:
      cpu_tri(s, &p->tri);
      break;
    default:
      st = cpu_a2a(s, i, f, u, msg, len);
    }
    *(p->kind == DT_A2A ? exchange_s : local_s) += MPI_Wtime() - t0;
  }
  return st;
}

/* ------------------------------------------------------------ set-up */

/* W and Lambda of pencil d on rank 0, broadcast (in pieces under INT_MAX). */
static pscr_status eig_bcast(dt_solver *s, const pscr_pencil *p, int d, char *msg, size_t len)
{
  int rank = 0;
  MPI_Comm_rank(s->comm, &rank);
  const size_t n = (size_t)p->n;
  pscr_status st = PSCR_SUCCESS;
  s->w[d] = malloc(n * n * sizeof(double));
  s->lam[d] = malloc(n * sizeof(double));
  if (!s->w[d] || !s->lam[d]) {
    snprintf(msg, len, "eigenvectors of order %zu", n);
    st = PSCR_ERROR_HOST_ALLOC;
  } else if (rank == 0)
    st = bl_dense_eig(p, s->lam[d], s->w[d], msg, len);
  if ((st = agree(s->comm, st, msg, len)))
    return st;
  const size_t piece = (size_t)1 << 28;
  for (size_t at = 0; at < n * n; at += piece)
    MPI_Bcast(s->w[d] + at, (int)(n * n - at < piece ? n * n - at : piece), MPI_DOUBLE, 0,
              s->comm);
  MPI_Bcast(s->lam[d], (int)n, MPI_DOUBLE, 0, s->comm);
  return PSCR_SUCCESS;
}

/* MPI_Alltoallv's int counts and offsets per exchange step (the own block's
   counts 0 where a step wrote it in place); NOT_SUPPORTED over INT_MAX. */
static pscr_status mpi_counts(dt_solver *s, char *msg, size_t len)
{
  const dt_plan *p = &s->plan;
  const int P = p->nranks;
  s->mpi = calloc(4 * (size_t)P * (size_t)p->nsteps, sizeof *s->mpi);
  if (!s->mpi) {
    snprintf(msg, len, "MPI counts for %d ranks", P);
    return PSCR_ERROR_HOST_ALLOC;
  }
  for (int i = 0; i < p->nsteps; i++) {
    const dt_a2a *x = &p->steps[i].a2a;
    if (p->steps[i].kind != DT_A2A)
      continue;
    const dt_pattern *t = &p->pat[x->pattern];
    const size_t *src[4] = {x->reverse ? t->rcnt : t->scnt, x->reverse ? t->roff : t->soff,
                            x->reverse ? t->scnt : t->rcnt, x->reverse ? t->soff : t->roff};
    int *m = s->mpi + 4 * (size_t)P * i;
    for (int k = 0; k < 4; k++)
      for (int q = 0; q < P; q++) {
        if (src[k][q] > INT_MAX) {
          snprintf(msg, len, "an all-to-all count or offset over INT_MAX (MPI's int)");
          return PSCR_ERROR_NOT_SUPPORTED;
        }
        m[k * P + q] = (int)src[k][q];
      }
    if (!x->self)
      m[p->rank] = m[2 * P + p->rank] = 0;
  }
  return PSCR_SUCCESS;
}

#if DT_HAVE_GPU
/* The GPU side: device checks, buffers, then the NCCL communicator. */
static pscr_status gpu_setup(dt_solver *s, int device, int device_arrays, char *msg, size_t len)
{
  const int P = s->plan.nranks, rank = s->plan.rank;
  unsigned char *ids = calloc((size_t)P, 16);
  pscr_status st = ids ? dt_gpu_uuid(device, ids + 16 * (size_t)rank, msg, len)
                       : PSCR_ERROR_HOST_ALLOC;
  if (!ids)
    snprintf(msg, len, "%d device ids", P);
  if ((st = agree(s->comm, st, msg, len))) {
    free(ids);
    return st;
  }
  MPI_Allgather(MPI_IN_PLACE, 16, MPI_UNSIGNED_CHAR, ids, 16, MPI_UNSIGNED_CHAR, s->comm);
  for (int q = 0; q < P; q++)
    if (q != rank && !memcmp(ids + 16 * (size_t)q, ids + 16 * (size_t)rank, 16)) {
      snprintf(msg, len, "ranks %d and %d share a GPU (NCCL needs one per rank: --devices)",
               q < rank ? q : rank, q < rank ? rank : q);
      st = PSCR_ERROR_NOT_SUPPORTED;
      break;
    }
  free(ids);
  if ((st = agree(s->comm, st, msg, len)))
    return st;
  st = dt_gpu_create(&s->gpu, &s->plan, device, !device_arrays, s->w[0], s->w[1], s->lam[0],
                     s->lam[1], s->fac, msg, len);
  if ((st = agree(s->comm, st, msg, len)))
    return st;
  const size_t idb = dt_gpu_id_bytes();
  char *id = calloc(1, idb);
  st = id ? PSCR_SUCCESS : PSCR_ERROR_HOST_ALLOC;
  if (!id)
    snprintf(msg, len, "the NCCL id");
  else if (rank == 0)
    st = dt_gpu_make_id(id, msg, len);
  if (!(st = agree(s->comm, st, msg, len))) {
    MPI_Bcast(id, (int)idb, MPI_BYTE, 0, s->comm);
    st = agree(s->comm, dt_gpu_connect(s->gpu, id, msg, len), msg, len);
  }
  free(id);
  return st;
}
#endif

pscr_status dt_create(dt_solver **out, MPI_Comm comm, int ndim, const pscr_pencil *pencils,
                      double shift, int row_begin, int row_end, int cuda, int device,
                      int device_arrays, int threads, char *msg, size_t len)
{
  const double t0 = MPI_Wtime();
  int P = 1, rank = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  *out = NULL;
  dt_solver *s = calloc(1, sizeof *s);
  int *lo = malloc(2 * ((size_t)P + 1) * sizeof *lo), *be = malloc(2 * (size_t)P * sizeof *be);
  pscr_status st = PSCR_SUCCESS;
  if (!s || !lo || !be) {
    snprintf(msg, len, "the baseline's solver");
    st = PSCR_ERROR_HOST_ALLOC;
  } else if ((ndim != 2 && ndim != 3) || !pencils) {
    snprintf(msg, len, "ndim %d or NULL pencils", ndim);
    st = PSCR_ERROR_INVALID_VALUE;
  } else if (cuda && !DT_HAVE_GPU) {
    snprintf(msg, len, "%s",
             PSCR_HAVE_CUDA ? "no NCCL in this build (CMake found no nccl.h / libnccl)"
                            : "no CUDA in this build");
    st = PSCR_ERROR_NOT_SUPPORTED;
  }
  if ((st = agree(comm, st, msg, len)))
    goto fail;
  s->comm = comm;
  s->cuda = cuda;
  s->threads = threads > 0 ? threads : default_threads(comm);
  /* Every rank's rows (any tiling), and dimension 2's split. */
  {
    int mine[2] = {row_begin, row_end}, *lo1 = lo, *lo2 = lo + P + 1;
    MPI_Allgather(mine, 2, MPI_INT, be, 2, MPI_INT, comm);
    const int n[3] = {pencils[0].n, pencils[1].n, ndim == 3 ? pencils[2].n : 1};
    lo1[0] = 0;
    for (int q = 0; q < P; q++) {
      if (be[2 * q] != lo1[q] || be[2 * q + 1] <= be[2 * q]) {
        snprintf(msg, len, "the rows do not tile dimension 1 in rank order (rank %d)", q);
        st = PSCR_ERROR_INVALID_VALUE;
        break;
      }
      lo1[q + 1] = be[2 * q + 1];
    }
    if (!st && lo1[P] != n[0]) {
      snprintf(msg, len, "the rows end at %d, not n1 = %d", lo1[P], n[0]);
      st = PSCR_ERROR_INVALID_VALUE;
    }
    if (!st && n[1] < P) {
      snprintf(msg, len, "n2 = %d below the %d ranks (dimension 2 is split)",
               n[1], P);
      st = PSCR_ERROR_NOT_SUPPORTED;
    }
    for (int q = 0; !st && q < P; q++)
      pscr_mpi_split(n[1], P, q, &lo2[q], &lo2[q + 1]);
    if (!st)
      st = plan_build(&s->plan, ndim, n, shift, P, rank, lo1, lo2, msg, len);
    if (!st && !cuda)
      st = mpi_counts(s, msg, len);
  }
  if ((st = agree(comm, st, msg, len)))
    goto fail;
  for (int d = 0; d < ndim - 1; d++)
    if ((st = eig_bcast(s, &pencils[d], d, msg, len)))
      goto fail;
  {
    /* The last dimension's pencil, off-diagonals padded with a 0. */
    const pscr_pencil *p = &pencils[ndim - 1];
    const size_t n = (size_t)p->n;
    s->fac = calloc(4 * n, sizeof *s->fac);
    if (s->fac) {
      const double *ad = p->a_diag, *ao = p->a_off, *md = p->m_diag, *mo = p->m_off;
      for (size_t i = 0; i < n; i++) {
        s->fac[i] = ad[i];
        s->fac[2 * n + i] = md[i];
        s->fac[n + i] = i + 1 < n ? ao[i] : 0.0;
        s->fac[3 * n + i] = i + 1 < n && mo ? mo[i] : 0.0;
      }
    }
  }
  s->step_ms = calloc((size_t)s->plan.nsteps + 2, sizeof *s->step_ms);
  st = s->fac && s->step_ms ? PSCR_SUCCESS : PSCR_ERROR_HOST_ALLOC;
  if (st)
    snprintf(msg, len, "the last pencil's copy");
  for (int b = DT_SEND; !st && !cuda && b <= DT_CP; b++)
    if (s->plan.size[b] && !(s->buf[b] = malloc(s->plan.size[b] * sizeof(double)))) {
      snprintf(msg, len, "%zu doubles of work space", s->plan.size[b]);
      st = PSCR_ERROR_HOST_ALLOC;
    }
  if (!cuda)
    s->buf[DT_W1] = s->w[0], s->buf[DT_W2] = s->w[1];
  if ((st = agree(comm, st, msg, len)))
    goto fail;
#if DT_HAVE_GPU
  if (cuda && (st = gpu_setup(s, device, device_arrays, msg, len)))
    goto fail;
#else
  (void)device, (void)device_arrays;
#endif
  s->bytes = 8.0 * plan_words_sent(&s->plan);
  s->setup_s = MPI_Wtime() - t0;
  free(lo);
  free(be);
  *out = s;
  return PSCR_SUCCESS;
fail:
  free(lo);
  free(be);
  dt_destroy(s);
  return st;
}

pscr_status dt_solve(dt_solver *s, const double *f, double *u, double *local_s,
                     double *exchange_s, char *msg, size_t len)
{
  *local_s = *exchange_s = 0;
  pscr_status st = PSCR_SUCCESS;
  if (!s->cuda)
    st = cpu_solve(s, f, u, local_s, exchange_s, msg, len);
#if DT_HAVE_GPU
  else {
    st = dt_gpu_solve(s->gpu, f, u, s->step_ms, msg, len);
    const int ns = s->plan.nsteps;
    for (int i = 0; i < ns; i++)
      *(s->plan.steps[i].kind == DT_A2A ? exchange_s : local_s) += 1e-3 * s->step_ms[i];
    *local_s += 1e-3 * (s->step_ms[ns] + s->step_ms[ns + 1]);
  }
#endif
  return agree(s->comm, st, msg, len);
}

double dt_bytes_sent(const dt_solver *s)
{
  return s->bytes;
}

double dt_setup_seconds(const dt_solver *s)
{
  return s->setup_s;
}

void dt_destroy(dt_solver *s)
{
  if (!s)
    return;
#if DT_HAVE_GPU
  dt_gpu_destroy(s->gpu);
#endif
  for (int b = DT_SEND; b <= DT_CP; b++)
    free(s->buf[b]);
  for (int i = 0; i < 2; i++) {
    free(s->w[i]);
    free(s->lam[i]);
  }
  free(s->mpi);
  free(s->fac);
  free(s->step_ms);
  plan_free(&s->plan);
  free(s);
}
