/*
 * Distributed solves (pscr_mpi.h), run by ctest under mpiexec on 1-4 ranks:
 * every case is also solved by one process (rank 0, pscr_solve) and the
 * gathered distributed solution must have a normwise backward error
 * ||Au - f|| / (||A|| ||u|| + ||f||) within 10x of that solve's (and below
 * 1e-12), for Poisson (uniform, graded), Helmholtz (complex, impedance
 * ends: with one refinement step; unrefined only below 1e-12) and random
 * SPD pencils, 2D and 3D, balanced, uneven and one-row
 * ranges, in place; and bad input gives the same documented status on
 * every rank. Both forms of the solve on CPU ranks: one pass in the
 * transverse modes (the default) and two local solves
 * (PSCR_FLAG_MPI_LOCAL_PLANS). With --backend cuda the ranks' local plans
 * are CUDA plans, checked against the CPU's one-process solve: host arrays
 * (two local solves) and device arrays (both forms). A plain MPI program
 * (Check forks, which MPI does not allow):
 * exit status 0 when every check passed.
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pscr.h"
#include "pscr_mpi.h"
#if PSCR_HAVE_CUDA
#include <cuda_runtime.h>
#endif

static int rank, nranks, failures;
/* The ranks' local plans' backend: CPU, or CUDA with "--backend cuda", rank
   r on device r mod devices (every device the runtime sees, or K of them
   with "--devices K": ranks sharing a device exchange through the host). */
static pscr_backend local_backend = PSCR_BACKEND_CPU;
static int devices = 1;
/* pscr_options.flags of every plan: 0 (CPU ranks: the one-pass solve in the
   transverse modes), or PSCR_FLAG_MPI_LOCAL_PLANS (the two local solves). */
static unsigned int form_flags;

#define CHECK(cond, ...)                                                                        \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      failures++;                                                                               \
      fprintf(stderr, "rank %d: FAIL %s:%d: ", rank, __FILE__, __LINE__);                       \
      fprintf(stderr, __VA_ARGS__);                                                             \
      fprintf(stderr, "\n");                                                                    \
    }                                                                                           \
  } while (0)

/* A deterministic value per global index (the same on every rank). */
static double val(size_t i, int k) { return sin(0.37 * (double)i + 1.3 * k) + 0.25 * cos(0.011 * (double)i * k); }

/* Random SPD tridiagonal pencils of order n, seeded per dimension. */
typedef struct owned_pencil {
  double *a;
  pscr_pencil p;
} owned_pencil;

static void random_spd(owned_pencil *o, int n, unsigned seed)
{
  o->a = calloc(4 * (size_t)n, sizeof(double));
  double *ad = o->a, *ao = ad + n, *md = ao + n, *mo = md + n;
  for (int i = 0; i < n; i++) {
    seed = seed * 1103515245u + 12345u;
    const double r = (double)(seed >> 8) / 16777216.0;
    ao[i] = -(0.2 + r);
    mo[i] = 0.1 * r;
  }
  for (int i = 0; i < n; i++) {
    const double l = i > 0 ? fabs(ao[i - 1]) : 0, r = i + 1 < n ? fabs(ao[i]) : 0;
    ad[i] = l + r + 0.05 + 0.5 * fabs(val((size_t)i, (int)seed % 7));
    md[i] = 1.0 + (i > 0 ? mo[i - 1] : 0) + (i + 1 < n ? mo[i] : 0);
  }
  o->p = (pscr_pencil){n, ad, ao, md, mo};
}

/* Rows [b, e) of this rank: balanced, uneven (rank r takes about r + 1
   shares), or one row each but the last. */
static void split(int n1, int how, int *b, int *e)
{
  if (how == 0) {
    pscr_mpi_split(n1, nranks, rank, b, e);
    return;
  }
  if (how == 1) {
    const int shares = nranks * (nranks + 1) / 2;
    int at = 0;
    for (int r = 0; r < nranks; r++) {
      int len = n1 * (r + 1) / shares;
      if (len < 1)
        len = 1;
      if (r == nranks - 1)
        len = n1 - at;
      if (r == rank) {
        *b = at;
        *e = at + len;
      }
      at += len;
    }
    return;
  }
  *b = rank < nranks - 1 ? rank : nranks - 1;
  *e = rank < nranks - 1 ? rank + 1 : n1;
}

static double norm_inf(const void *x, size_t n, int cplx)
{
  double m = 0;
  for (size_t t = 0; t < n; t++)
    m = fmax(m, cplx ? cabs(((const double complex *)x)[t]) : fabs(((const double *)x)[t]));
  return m;
}

static double backward_error(pscr_dtype dt, int ndim, const pscr_pencil *pen, const void *shift,
                             const void *u, const void *f, size_t n)
{
  const int cplx = dt == PSCR_C64;
  const size_t e = cplx ? sizeof(double complex) : sizeof(double);
  void *r = malloc(n * e);
  double na = 0;
  pscr_operator_apply(dt, ndim, pen, shift, u, r);
  pscr_operator_norm_inf(dt, ndim, pen, shift, &na);
  double *rr = r;
  const double *ff = f;
  for (size_t t = 0; t < n * (e / sizeof(double)); t++)
    rr[t] -= ff[t];
  const double b = norm_inf(r, n, cplx) / (na * norm_inf(u, n, cplx) + norm_inf(f, n, cplx));
  free(r);
  return b;
}

/* One case: the global problem on every rank, the distributed solve of
   this rank's slab, gathered on rank 0 against pscr_solve's. */
static void run_case(const char *name, pscr_dtype dt, int ndim, const pscr_pencil *pen,
                     const void *shift, int how, int in_place, int refine, double bound10)
{
  const int cplx = dt == PSCR_C64, words = cplx ? 2 : 1;
  const size_t e = (size_t)words * sizeof(double);
  const size_t plane = (size_t)pen[1].n * (ndim == 3 ? (size_t)pen[2].n : 1);
  const size_t total = (size_t)pen[0].n * plane;
  int b = 0, en = 0;
  split(pen[0].n, how, &b, &en);
  pscr_options o;
  pscr_options_init(&o);
  o.backend = local_backend;
  o.device = local_backend == PSCR_BACKEND_CUDA ? rank % devices : 0;
  o.num_threads = 1;
  o.refine = refine;
  o.flags = form_flags;
  pscr_mpi_plan *plan = NULL;
  pscr_status st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, dt, ndim, pen, shift, b, en, &o);
  CHECK(st == PSCR_SUCCESS, "%s: plan: %s (%s)", name, pscr_status_string(st), pscr_last_error());
  if (st)
    return;
  const size_t nloc = (size_t)(en - b) * plane;
  double *f = malloc(total * e), *u = malloc(nloc * e);
  for (size_t t = 0; t < total * words; t++)
    f[t] = val(t, 1);
  const double *fl = f + (size_t)b * plane * words;
  if (in_place)
    memcpy(u, fl, nloc * e);
  st = pscr_mpi_solve(plan, in_place ? u : fl, u);
  CHECK(st == PSCR_SUCCESS, "%s: solve: %s (%s)", name, pscr_status_string(st),
        pscr_last_error());
  /* What the plan says of this rank: its rows, its separator, a share of
     the modes (together every mode once), bytes sent, stage times. */
  pscr_mpi_info info;
  CHECK(pscr_mpi_plan_info(plan, &info) == PSCR_SUCCESS, "%s: info", name);
  CHECK(info.size == sizeof info && info.ranks == nranks && info.rank == rank &&
            info.row_begin == b && info.row_end == en &&
            info.separator == (rank + 1 < nranks ? en - 1 : -1),
        "%s: info rows [%d, %d) separator %d", name, info.row_begin, info.row_end,
        info.separator);
  int modes = info.mode_end - info.mode_begin, all_modes = 0;
  MPI_Allreduce(&modes, &all_modes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(nranks == 1 || (size_t)all_modes == plane, "%s: %d modes over the ranks, plane %zu", name,
        all_modes, plane);
  CHECK((nranks > 1) == (info.bytes_sent > 0), "%s: bytes sent %zu", name, info.bytes_sent);
  CHECK(info.slab_margin > 0 && info.slab_margin <= 1 && (nranks > 1 || info.slab_margin == 1),
        "%s: slab margin %g", name, info.slab_margin);
  /* NCCL only between distinct devices, for the one-pass device solve. */
  CHECK(!info.device_nccl || (local_backend == PSCR_BACKEND_CUDA && nranks > 1 &&
                              devices >= nranks && !(form_flags & PSCR_FLAG_MPI_LOCAL_PLANS)),
        "%s: device_nccl %d with %d ranks on %d devices", name, info.device_nccl, nranks,
        devices);
  /* The one-pass forms (two ranks or more, no flag) solve the slab
     themselves: the local plan is planned only, never built (no plan
     time, no device memory). */
  /* Every rank but the last holds two rows (an interior): CUDA ranks take
     the one-pass form only then (else the two-solve form, with whole local
     plans), and device arrays need it. */
  int fits = rank == nranks - 1 || en - b >= 2, every_fits = 0;
  MPI_Allreduce(&fits, &every_fits, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  const int one_pass_form = nranks > 1 && !(form_flags & PSCR_FLAG_MPI_LOCAL_PLANS) &&
                            (local_backend != PSCR_BACKEND_CUDA || every_fits);
  CHECK(!one_pass_form || (info.local.device_bytes == 0 && info.local.plan_seconds == 0),
        "%s: the one-pass form's local plan was built (%g s, %zu device bytes)", name,
        info.local.plan_seconds, info.local.device_bytes);
  CHECK(info.local_seconds >= 0 && info.exchange_seconds >= 0 && info.separator_seconds >= 0 &&
            info.local_seconds + info.exchange_seconds + info.separator_seconds > 0,
        "%s: stage seconds %g %g %g", name, info.local_seconds, info.exchange_seconds,
        info.separator_seconds);
#if PSCR_HAVE_CUDA
  /* Device arrays (CUDA local plans), where every rank but the last holds
     two rows (else PSCR_ERROR_NOT_SUPPORTED on every rank); refined ones
     through a host slab. Each form's u within 1e-13 of its host solve's
     (the same kernels); the one-pass form's u is also checked below like
     the host solve's (backward error against one process). In place: the
     one-pass form only, its u within 1e-13 of the one out of place. */
  double *ud = NULL;
  if (local_backend == PSCR_BACKEND_CUDA && st == PSCR_SUCCESS) {
    const int one_pass = !(form_flags & PSCR_FLAG_MPI_LOCAL_PLANS) && nranks > 1;
    /* And NCCL wherever a build with it runs a one-pass device solve with
       a device per rank: a silent fall back to the host would pass the
       checks below. */
    const int nccl = PSCR_TEST_NCCL && one_pass && every_fits && devices >= nranks;
    CHECK(info.device_nccl == nccl, "%s: device_nccl %d, want %d", name, info.device_nccl, nccl);
    void *df = NULL, *du = NULL;
    /* On the plan's device (ranks on distinct devices: no peer access). */
    cudaSetDevice(o.device);
    cudaMalloc(&df, nloc * e);
    cudaMalloc(&du, nloc * e);
    cudaMemcpy(df, fl, nloc * e, cudaMemcpyHostToDevice);
    cudaMemset(du, 0, nloc * e);
    /* fl is f's slab; in place the host solve above read the same values. */
    pscr_status sd = pscr_mpi_solve_device(plan, df, du, NULL);
    const pscr_status want = every_fits ? PSCR_SUCCESS : PSCR_ERROR_NOT_SUPPORTED;
    CHECK(sd == want, "%s: device solve %s (%s), want %s", name, pscr_status_string(sd),
          pscr_last_error(), pscr_status_string(want));
    if (sd == PSCR_SUCCESS) {
      ud = malloc(nloc * e);
      cudaMemcpy(ud, du, nloc * e, cudaMemcpyDeviceToHost);
      double dmax = 0, umax = 0;
      for (size_t t = 0; t < nloc * words; t++) {
        dmax = fmax(dmax, fabs(ud[t] - u[t]));
        umax = fmax(umax, fabs(u[t]));
      }
      /* The host solve ran the same kernels (the one-pass form: through
         a device slab; the two-solve form: the local plans'). */
      CHECK(dmax <= 1e-13 * umax, "%s: the device solve differs from the host solve by %.3g "
            "(max |u| %.3g)", name, dmax, umax);
    }
    sd = pscr_mpi_solve_device(plan, df, df, NULL);
    CHECK(sd == (nranks > 1 && !one_pass ? PSCR_ERROR_NOT_SUPPORTED : want),
          "%s: device solve in place: %s", name, pscr_status_string(sd));
    if (sd == PSCR_SUCCESS && ud) {
      double *hi = malloc(nloc * e), dmax = 0, umax = 0;
      cudaMemcpy(hi, df, nloc * e, cudaMemcpyDeviceToHost);
      for (size_t t = 0; t < nloc * words; t++) {
        dmax = fmax(dmax, fabs(hi[t] - ud[t]));
        umax = fmax(umax, fabs(ud[t]));
      }
      CHECK(dmax <= 1e-13 * umax, "%s: the device solve in place differs by %.3g (max |u| "
            "%.3g)", name, dmax, umax);
      free(hi);
    }
    /* The one-pass form's device memory: the work slab, the host solves'
       slab, planes (at most 12: the caller's three, the terms, the modes'
       factors and right-hand sides), the transverse eigenpairs and
       dimension 1's pairs: no other full-volume buffer (issue: "no
       full-volume buffer beyond what the local plan needs"). */
    if (one_pass && every_fits) {
      const size_t n2 = (size_t)pen[1].n, n3 = ndim == 3 ? (size_t)pen[2].n : 0;
      const size_t bound = (2 * nloc + 12 * plane + n2 * n2 + n3 * n3 + n2 + n3 +
                            4 * (size_t)pen[0].n + 4) * e + 64;
      CHECK(info.local.device_bytes == 0 && info.device_bytes > nloc * e &&
                info.device_bytes <= bound, "%s: the one-pass form holds %zu device bytes (a "
            "slab %zu, bound %zu)", name, info.device_bytes, nloc * e, bound);
    }
    if (!one_pass) {
      free(ud);
      ud = NULL;
    }
    cudaFree(df);
    cudaFree(du);
  }
  /* Whether rank 0 checks a device solution: every rank has one. */
  int have_ud = ud != NULL, all_ud = 0;
  MPI_Allreduce(&have_ud, &all_ud, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
#else
  double *ud = NULL;
  const int all_ud = 0;
#endif
  double margin = info.slab_margin;
  MPI_Allreduce(&info.slab_margin, &margin, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  /* A batch of two (the second f scaled by 2, not in place): bitwise the
     single solves. */
  if (!in_place && st == PSCR_SUCCESS) {
    double *fb = malloc(2 * nloc * e), *ub = malloc(2 * nloc * e), *u2 = malloc(nloc * e);
    for (size_t t = 0; t < nloc * words; t++) {
      fb[t] = fl[t];
      fb[nloc * words + t] = 2 * fl[t];
    }
    pscr_status sb = pscr_mpi_solve_batch(plan, 2, fb, nloc, ub, nloc);
    pscr_status s2 = pscr_mpi_solve(plan, fb + nloc * words, u2);
    CHECK(sb == PSCR_SUCCESS && s2 == PSCR_SUCCESS, "%s: batch: %s", name, pscr_status_string(sb));
    CHECK(memcmp(ub, u, nloc * e) == 0 && memcmp(ub + nloc * words, u2, nloc * e) == 0,
          "%s: the batch's solutions differ from the single solves'", name);
    free(fb);
    free(ub);
    free(u2);
  }
  /* Gather on rank 0. */
  int *counts = malloc(2 * (size_t)nranks * sizeof(int)), *displs = counts + nranks;
  const int mine = (int)(nloc * words);
  MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 0, at = 0; rank == 0 && r < nranks; at += counts[r++])
    displs[r] = at;
  double *ug = rank == 0 ? malloc(total * e) : NULL, *udg = NULL;
  MPI_Gatherv(u, mine, MPI_DOUBLE, ug, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (all_ud) {
    udg = rank == 0 ? malloc(total * e) : NULL;
    MPI_Gatherv(ud, mine, MPI_DOUBLE, udg, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    const double bd = backward_error(dt, ndim, pen, shift, ug, f, total);
    const double bdd = udg ? backward_error(dt, ndim, pen, shift, udg, f, total) : 0;
    void *us = malloc(total * e);
    pscr_plan *p1 = NULL;
    double bs = -1;
    o.refine = 0;
    o.backend = PSCR_BACKEND_CPU;
    if (pscr_plan_create(&p1, dt, ndim, pen, shift, &o) == PSCR_SUCCESS &&
        pscr_solve(p1, f, us) == PSCR_SUCCESS)
      bs = backward_error(dt, ndim, pen, shift, us, f, total);
    pscr_plan_destroy(p1);
    free(us);
    /* Within bound10 times the one-process solve's (10 unless said). */
    const double bound = bound10 * fmax(bs, 2.2e-16);
    CHECK(bs >= 0, "%s: the single-process solve failed", name);
    CHECK(bd <= bound && bd <= 1e-12, "%s: backward error %.3g, one process %.3g", name, bd, bs);
    CHECK(bdd <= bound && bdd <= 1e-12, "%s: the device solve's backward error %.3g, one "
          "process %.3g", name, bdd, bs);
    printf("%-44s refine %d ranks %d  berr %.2e  (one process %.2e)  slab margin %.1e\n", name,
           refine, nranks, bd, bs, margin);
    if (udg)
      printf("%-44s device arrays, one pass      berr %.2e  (%s)\n", name, bdd,
             info.device_nccl ? "NCCL" : "host MPI");
    free(ug);
    free(udg);
  }
  free(counts);
  free(f);
  free(u);
  free(ud);
  pscr_mpi_plan_destroy(plan);
}

static void model_cases(void)
{
  static const struct {
    pscr_problem_kind kind;
    int ndim, n[3];
    double grading, omega;
    const char *name;
  } cases[] = {
      {PSCR_PROBLEM_POISSON, 2, {33, 21, 0}, 0, 0, "poisson 2D 33x21"},
      {PSCR_PROBLEM_POISSON, 2, {40, 17, 0}, 0.5, 0, "poisson 2D graded 40x17"},
      {PSCR_PROBLEM_POISSON, 3, {19, 9, 12}, 0, 0, "poisson 3D 19x9x12"},
      /* Transverse orders 2^p - 1 on uniform meshes: the separators'
         planes transform by the fast sine transform. */
      {PSCR_PROBLEM_POISSON, 2, {26, 31, 0}, 0, 0, "poisson 2D 26x31 (sine)"},
      {PSCR_PROBLEM_POISSON, 3, {19, 15, 7}, 0, 0, "poisson 3D 19x15x7 (sine)"},
      {PSCR_PROBLEM_HELMHOLTZ, 2, {37, 25, 0}, 0, 20.0, "helmholtz 2D 37x25 omega 20"},
      {PSCR_PROBLEM_HELMHOLTZ, 3, {17, 10, 9}, 0, 9.0, "helmholtz 3D 17x10x9 omega 9"},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    pscr_problem *pb = NULL;
    pscr_status st = pscr_problem_create(&pb, cases[c].kind, cases[c].ndim, cases[c].n, NULL,
                                         cases[c].grading, cases[c].omega);
    CHECK(st == PSCR_SUCCESS, "%s: problem: %s", cases[c].name, pscr_last_error());
    if (st)
      continue;
    static const char *hows[] = {"balanced", "uneven", "one row"};
    for (int how = 0; how < 3; how++) {
      char name[80];
      snprintf(name, sizeof name, "%s %s%s", cases[c].name, hows[how], how == 1 ? " in place" : "");
      /* Helmholtz: one refinement step (the slabs' subproblems come nearer
         to resonance than A: unrefined, 2D lost up to 130x against one
         process, 2.2e-13, on 2-4 ranks), and unrefined within 1e-12. */
      const int helm = cases[c].kind == PSCR_PROBLEM_HELMHOLTZ;
      run_case(name, pb->dtype, pb->ndim, pb->pencils, pb->shift, how, how == 1, helm, 10);
      if (helm)
        run_case(name, pb->dtype, pb->ndim, pb->pencils, pb->shift, how, how == 1, 0, 1e4);
    }
    pscr_problem_destroy(pb);
  }
  /* One row per rank (n1 = P), 2D and 3D. */
  for (int ndim = 2; ndim <= 3; ndim++) {
    pscr_problem *pb = NULL;
    const int n[3] = {nranks, 6, 5};
    if (pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, ndim, n, NULL, 0, 0) == PSCR_SUCCESS) {
      char name[80];
      snprintf(name, sizeof name, "poisson %dD n1 = ranks", ndim);
      run_case(name, pb->dtype, ndim, pb->pencils, pb->shift, 0, 0, 0, 10);
    }
    pscr_problem_destroy(pb);
  }
  /* Complex data on sine pencils (interleaved through the sine transform):
     the uniform Poisson pencils as double complex, shift -5 + i. */
  for (int ndim = 2; ndim <= 3; ndim++) {
    pscr_problem *pb = NULL;
    const int n[3] = {21, 15, 7};
    if (pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, ndim, n, NULL, 0, 0) != PSCR_SUCCESS)
      continue;
    double *store = calloc(8 * (size_t)(n[0] + n[1] + n[2]), sizeof *store), *at = store;
    pscr_pencil pen[3];
    for (int d = 0; d < ndim; d++) {
      const pscr_pencil *q = &pb->pencils[d];
      const double *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
      double *dst[4];
      for (int k = 0; k < 4; k++) {
        dst[k] = at;
        at += 2 * (size_t)q->n;
        for (int i = 0; src[k] && i < (k % 2 ? q->n - 1 : q->n); i++)
          dst[k][2 * i] = src[k][i];
      }
      pen[d] = (pscr_pencil){q->n, dst[0], dst[1], dst[2], dst[3]};
    }
    const double c[2] = {-5.0, 1.0};
    char name[80];
    snprintf(name, sizeof name, "complex poisson %dD (sine) uneven", ndim);
    run_case(name, PSCR_C64, ndim, pen, c, 1, 0, 0, 10);
    free(store);
    pscr_problem_destroy(pb);
  }
  /* Random SPD pencils with a shift. */
  for (int ndim = 2; ndim <= 3; ndim++) {
    owned_pencil o[3];
    const int n[3] = {23, ndim == 2 ? 30 : 8, 11};
    for (int d = 0; d < ndim; d++)
      random_spd(&o[d], n[d], 17u + 5u * (unsigned)d);
    pscr_pencil pen[3] = {o[0].p, o[1].p, ndim == 3 ? o[2].p : o[1].p};
    const double c = 0.3;
    char name[80];
    snprintf(name, sizeof name, "random SPD %dD uneven", ndim);
    run_case(name, PSCR_R64, ndim, pen, &c, 1, 0, 0, 10);
    for (int d = 0; d < ndim; d++)
      free(o[d].a);
  }
}

/*
 * A slab at resonance (two ranks): n1 = 3, n2 = 1, A1 = tridiag(-1; 2, 4,
 * 4; -1), M1 = I, A2 = M2 = (1), c = -3. A = A1 - 2 I is regular (det -2),
 * but with rows {0, 1} | {2} rank 0's interior, row 0 alone, is the 1x1
 * matrix 2 - 2 = 0: the plan must report it (PSCR_ERROR_SINGULAR, on both
 * ranks), never return garbage. Rows {0} | {1, 2} avoid it (the slab
 * {1, 2} is tridiag(-1; 2, 2; -1), regular) and solve A u = f exactly.
 */
static void resonant_slab(void)
{
  if (nranks != 2)
    return;
  const double a1d[3] = {2, 4, 4}, a1o[2] = {-1, -1}, m1d[3] = {1, 1, 1}, one = 1, c = -3;
  const pscr_pencil pen[2] = {{3, a1d, a1o, m1d, NULL}, {1, &one, NULL, &one, NULL}};
  pscr_options o;
  pscr_options_init(&o);
  o.flags = form_flags;
  pscr_mpi_plan *plan = NULL;
  pscr_status st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, 2, pen, &c,
                                        rank ? 2 : 0, rank ? 3 : 2, &o);
  CHECK(st == PSCR_ERROR_SINGULAR && plan == NULL, "resonant slab: %s (%s)",
        pscr_status_string(st), pscr_last_error());
  CHECK(strstr(pscr_last_error(), "resonance") != NULL, "resonant slab: message '%s'",
        pscr_last_error());
  st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, 2, pen, &c, rank ? 1 : 0,
                            rank ? 3 : 1, &o);
  CHECK(st == PSCR_SUCCESS, "slab moved: %s (%s)", pscr_status_string(st), pscr_last_error());
  if (st)
    return;
  /* u = (1, 2, 3): f = (A1 - 2 I) u = (0 - 2, -1 + 4 - 3, -2 + 6). */
  const double f[3] = {-2, 0, 4};
  double u[2] = {0, 0};
  st = pscr_mpi_solve(plan, rank ? f + 1 : f, u);
  CHECK(st == PSCR_SUCCESS, "slab moved: solve %s", pscr_status_string(st));
  for (int i = 0; i < (rank ? 2 : 1); i++)
    CHECK(fabs(u[i] - (rank + i + 1)) <= 1e-14, "slab moved: u[%d] = %.17g", rank + i, u[i]);
  pscr_mpi_plan_destroy(plan);
}

/* Bad input: the same status on every rank, and no plan. */
static void bad_input(void)
{
  pscr_problem *pb = NULL;
  const int n[2] = {12, 7};
  pscr_problem_create(&pb, PSCR_PROBLEM_POISSON, 2, n, NULL, 0, 0);
  int b, e;
  pscr_mpi_split(12, nranks, rank, &b, &e);
  pscr_mpi_plan *plan = (pscr_mpi_plan *)&plan;
  /* A range that leaves a gap (only with two ranks or more). */
  if (nranks > 1) {
    const int bb = rank == 1 ? b + 1 : b;
    pscr_status st =
        pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, 2, pb->pencils, pb->shift, bb, e, NULL);
    CHECK(st == PSCR_ERROR_INVALID_VALUE && plan == NULL, "gap: %s", pscr_status_string(st));
    CHECK(strstr(pscr_last_error(), "rank 1") != NULL, "gap: message '%s'", pscr_last_error());
    /* Pencils that differ on one rank: a different shift. */
    const double c = rank == nranks - 1 ? 1.0 : 0.0;
    st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, 2, pb->pencils, &c, b, e, NULL);
    CHECK(st == PSCR_ERROR_INVALID_VALUE && plan == NULL, "hash: %s", pscr_status_string(st));
    CHECK(strstr(pscr_last_error(), "differ") != NULL, "hash: message '%s'", pscr_last_error());
  }
  /* Float types, float corrections: not supported; refine past the
     maximum: invalid; a local error on one rank only
     (a NULL shift on the last) reaches every rank. */
  pscr_status st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R32, 2, pb->pencils, pb->shift,
                                        b, e, NULL);
  CHECK(st == PSCR_ERROR_NOT_SUPPORTED && plan == NULL, "R32: %s", pscr_status_string(st));
  static const struct {
    int refine, refine_single, device_only;
    pscr_status want;
    const char *what;
  } refused[] = {
      {1, 1, 0, PSCR_ERROR_NOT_SUPPORTED, "refine_single"},
      {0, 0, 1, PSCR_ERROR_INVALID_VALUE, "device_only"},
      {PSCR_REFINE_MAX + 1, 0, 0, PSCR_ERROR_INVALID_VALUE, "refine past the maximum"},
  };
  for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
    pscr_options o;
    pscr_options_init(&o);
    o.refine = refused[k].refine;
    o.refine_single = refused[k].refine_single;
    o.device_only = refused[k].device_only;
    st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, 2, pb->pencils, pb->shift, b, e,
                              &o);
    CHECK(st == refused[k].want && plan == NULL, "%s: %s", refused[k].what,
          pscr_status_string(st));
  }
  st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, 2, pb->pencils,
                            rank == nranks - 1 ? NULL : pb->shift, b, e, NULL);
  CHECK(st == PSCR_ERROR_INVALID_VALUE && plan == NULL, "NULL shift on one rank: %s",
        pscr_status_string(st));
  /* A local plan that cannot be made (a device that does not exist, or no
     CUDA in this build): its cause leads, the distributed plan's context
     follows (the message wrapped the local one; it once came out empty). */
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CUDA;
  o.device = 1000000;
  st = pscr_mpi_plan_create(&plan, MPI_COMM_WORLD, PSCR_R64, 2, pb->pencils, pb->shift, b, e, &o);
  const char *msg = pscr_last_error(), *ctx = strstr(msg, "(the local plan of rows");
  CHECK(st != PSCR_SUCCESS && plan == NULL && ctx != NULL && ctx - msg > 8,
        "local plan failure: %s, message '%s'", pscr_status_string(st), msg);
  /* Too few rows for the ranks. */
  CHECK(pscr_mpi_split(nranks - 1, nranks, rank, &b, &e) == PSCR_ERROR_INVALID_VALUE,
        "split of too few rows");
  pscr_problem_destroy(pb);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc >= 3 && !strcmp(argv[1], "--backend") && !strcmp(argv[2], "cuda")) {
    local_backend = PSCR_BACKEND_CUDA;
#if PSCR_HAVE_CUDA
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1)
      devices = 1;
#endif
  }
  if (argc == 5 && local_backend == PSCR_BACKEND_CUDA && !strcmp(argv[3], "--devices"))
    devices = atoi(argv[4]);
  if (!(argc == 1 || argc == 3 || argc == 5) || devices < 1 ||
      (argc > 1 && local_backend != PSCR_BACKEND_CUDA) ||
      (argc == 5 && strcmp(argv[3], "--devices"))) {
    if (rank == 0)
      fprintf(stderr, "usage: test_mpi [--backend cuda [--devices K]]\n");
    MPI_Finalize();
    return 2;
  }
  /* Both forms (host and device arrays; with CUDA ranks the one-pass
     form's host arrays go through a device slab). */
  for (int form = 0; form < 2; form++) {
    form_flags = form ? PSCR_FLAG_MPI_LOCAL_PLANS : 0;
    if (rank == 0)
      printf("-- %s\n", form ? "two local solves (PSCR_FLAG_MPI_LOCAL_PLANS)"
                              : "one pass in the transverse modes");
    model_cases();
    resonant_slab();
  }
  bad_input();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_mpi: %d ranks, %d failures\n", nranks, all);
  MPI_Finalize();
  return all ? 1 : 0;
}
