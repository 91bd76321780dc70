/*
 * The one-pass distributed solve (pscr_mpi_plan.modes; docs/distributed.md,
 * "One pass in the transverse modes"): the method of DESIGN's section 6
 * (docs/design.md has the single-process one) with the rank's slab taken
 * to the transverse modes once, where every step is per mode:
 *
 *   1. every plane of the slab to the modes (the separators' transform:
 *      sine transforms or products);
 *   2. per mode, the first and last entries of the interior's J^-1 x, by
 *      eliminations from the top and from the bottom (no full solve:
 *      DESIGN's "only the rows next to a separator are needed");
 *   3. the separators' right-hand sides (one plane from the next rank)
 *      and their Schur systems per mode, as in mpi_solve.c, with no
 *      transform (the planes are in the modes already);
 *   4. per mode, the interior's tridiagonal solve with the separators'
 *      terms (one plane from the previous rank);
 *   5. every plane back.
 *
 * So a solve passes the slab's data about as often as one single-process
 * solve by transforms does, where the two-solve form (mpi_solve.c) runs the
 * local plan twice. Host arrays on CPU ranks here; device arrays on CUDA
 * ranks at the end of this file, steps 1, 2 and 4-5 by the backend's
 * modes ops (gpu/cuda_modes.cu), step 3 there too where the backend
 * exchanges between devices (NCCL), else here on the host.
 */
#include <cblas.h>
#include <complex.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "error.h"
#include "mpi_plan.h"
#include "plan.h"
#include "sine.h"

/* Modes per chunk of the per-mode solves: the inner loops' length. */
#define PSCR_MODE_CHUNK 64

#include "scalar_real.h"
#include "mpi_modes_impl.h"
#include "scalar_undef.h"

#include "scalar_complex.h"
#include "mpi_modes_impl.h"
#include "scalar_undef.h"

/* a: rows r < nr of nc elements of w reals (row stride lda reals); b: its
   transpose, rows j < nc of nr elements (row stride ldb reals). to_a = 0:
   b = a^T, else a = b^T. In 16 x 16 tiles, the element copy specialized
   per w so that the tiles' loops stay simple. */
#define PSCR_TILE_LOOP(W, DST, SRC)                                                         \
  for (size_t r0 = 0; r0 < nr; r0 += 16)                                                    \
    for (size_t j0 = 0; j0 < nc; j0 += 16) {                                                \
      const size_t r1 = r0 + 16 < nr ? r0 + 16 : nr, j1 = j0 + 16 < nc ? j0 + 16 : nc;      \
      for (size_t r = r0; r < r1; r++)                                                      \
        for (size_t j = j0; j < j1; j++)                                                    \
          for (size_t k = 0; k < (W); k++)                                                  \
            DST = SRC;                                                                      \
    }
static void pscr_modes_tile(double *a, size_t lda, double *b, size_t ldb, size_t nr, size_t nc,
                            size_t w, int to_a)
{
  if (w == 1 && !to_a)
    PSCR_TILE_LOOP(1, b[j * ldb + r + k], a[r * lda + j + k])
  else if (w == 1)
    PSCR_TILE_LOOP(1, a[r * lda + j + k], b[j * ldb + r + k])
  else if (!to_a)
    PSCR_TILE_LOOP(2, b[j * ldb + 2 * r + k], a[r * lda + 2 * j + k])
  else
    PSCR_TILE_LOOP(2, a[r * lda + 2 * j + k], b[j * ldb + 2 * r + k])
}
#undef PSCR_TILE_LOOP

/*
 * The transform of transverse pencil d (0: dimension 2, 1: dimension 3)
 * along the contiguous entries of nrows rows of L = n_{d+2} values (2D:
 * every row of the slab is a whole plane; 3D: dimension 3 of every plane),
 * in blocks of P->mode_block rows: sine pencils transposed into a
 * thread's block buffer (L rows of the block's columns), sine-transformed
 * there across the columns, and back, on the team; otherwise one product
 * per block, X^ = X E^T (forward) or X = X^ E, through the buffer, BLAS's
 * threads serving it.
 */
static void pscr_modes_transform_contig(const pscr_mpi_plan *P, int d, int back, char *x,
                                        size_t nrows)
{
  const int L = P->n[d + 1], w = P->cplx ? 2 : 1;
  const size_t rowb = (size_t)L * P->elem, nblock = (nrows + P->mode_block - 1) / P->mode_block;
  if (P->sine) {
    const size_t per = (P->mode_block * (size_t)w + 8) * P->mode_len;
    const size_t sine_per = pscr_sine_scratch(P->sine_order);
#pragma omp parallel for schedule(dynamic, 1) num_threads(P->mode_nt) if (P->mode_nt > 1)
    for (size_t q = 0; q < nblock; q++) {
      const int me = omp_get_thread_num();
      const size_t r0 = q * P->mode_block;
      const size_t bw = nrows - r0 < P->mode_block ? nrows - r0 : P->mode_block;
      double *buf = (double *)P->mode_rows + (size_t)me * per;
      double *a = (double *)(void *)(x + r0 * rowb);
      /* The buffer's rows padded by 8 reals: no power-of-two stride. */
      const size_t ldb = bw * (size_t)w + 8, lw = (size_t)L * (size_t)w;
      pscr_modes_tile(a, lw, buf, ldb, bw, (size_t)L, (size_t)w, 0);
      pscr_sine_d(L, 1, 0, ldb, bw * w, buf, P->sscale[d], back, 1,
                  P->sine_scratch + (size_t)me * sine_per);
      pscr_modes_tile(a, lw, buf, ldb, bw, (size_t)L, (size_t)w, 1);
    }
    return;
  }
  for (size_t q = 0; q < nblock; q++) {
    const size_t r0 = q * P->mode_block;
    const int bw = (int)(nrows - r0 < P->mode_block ? nrows - r0 : P->mode_block);
    char *a = x + r0 * rowb;
    if (!P->cplx) {
      cblas_dgemm(CblasRowMajor, CblasNoTrans, back ? CblasNoTrans : CblasTrans, bw, L, L, 1.0,
                  (const double *)(void *)a, L, P->Er[d], L, 0.0, P->mode_rows, L);
    } else {
      const pscr_z one = 1, zero = 0;
      cblas_zgemm(CblasRowMajor, CblasNoTrans, back ? CblasNoTrans : CblasTrans, bw, L, L, &one,
                  a, L, P->E[d], L, &zero, P->mode_rows, L);
    }
    memcpy(a, P->mode_rows, (size_t)bw * rowb);
  }
}

/* Dimension 2 of every plane of a 3D slab: E2 times each n2 x n3 plane
   (xhat = E2 X, back X = E2^T xhat). Sine pencils in one call over the
   slab (the columns are contiguous); otherwise a product per plane. */
static void pscr_modes_transform_dim2(const pscr_mpi_plan *P, int back, char *x, size_t rows)
{
  const int n2 = P->n[1], n3 = P->n[2], w = P->cplx ? 2 : 1;
  const size_t pe = P->plane * P->elem;
  if (P->sine) {
    pscr_sine_d(n2, rows, P->plane * (size_t)w, (size_t)n3 * (size_t)w, (size_t)n3 * (size_t)w,
                (double *)(void *)x, P->sscale[0], back, P->sine_nt, P->sine_scratch);
    return;
  }
  for (size_t r = 0; r < rows; r++) {
    char *a = x + r * pe;
    if (!P->cplx) {
      cblas_dgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n2, n3, n2, 1.0,
                  P->Er[0], n2, (const double *)(void *)a, n3, 0.0, (double *)P->zplane, n3);
    } else {
      const pscr_z one = 1, zero = 0;
      cblas_zgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n2, n3, n2, &one,
                  P->E[0], n2, a, n3, &zero, P->zplane, n3);
    }
    memcpy(a, P->zplane, pe);
  }
}

/* Every plane of the slab's rows [0, rows) to the modes or back (mode
   (k2, k3) at k2 n3 + k3, as the separators' planes). */
static void pscr_modes_transform_slab(const pscr_mpi_plan *P, int back, char *x, size_t rows)
{
  if (P->ndim == 2) {
    pscr_modes_transform_contig(P, 0, back, x, rows);
    return;
  }
  pscr_modes_transform_dim2(P, back, x, rows);
  pscr_modes_transform_contig(P, 1, back, x, rows * (size_t)P->n[1]);
}

/* Phase A over every mode chunk on the team; the first failing mode + 1. */
static size_t pscr_modes_ends(const pscr_mpi_plan *P, const void *x, void *vf, void *vl)
{
  const size_t pl = P->plane, nchunk = (pl + PSCR_MODE_CHUNK - 1) / PSCR_MODE_CHUNK;
  /* The least failing mode + 1 by a min reduction (a named critical
     section would be a global symbol of the library). */
  size_t bad = SIZE_MAX;
#pragma omp parallel for schedule(static) num_threads(P->mode_nt) if (P->mode_nt > 1) \
    reduction(min : bad)
  for (size_t q = 0; q < nchunk; q++) {
    const size_t m0 = q * PSCR_MODE_CHUNK;
    const int w = (int)(pl - m0 < PSCR_MODE_CHUNK ? pl - m0 : PSCR_MODE_CHUNK);
    const size_t b = P->cplx ? mode_ends_z(P, x, vf, vl, m0, w) : mode_ends_d(P, x, vf, vl, m0, w);
    if (b && b < bad)
      bad = b;
  }
  return bad == SIZE_MAX ? 0 : bad;
}

/* Phase B over every mode chunk on the team. */
static void pscr_modes_solve(const pscr_mpi_plan *P, void *x, const void *usl, const void *us)
{
  const size_t pl = P->plane, nchunk = (pl + PSCR_MODE_CHUNK - 1) / PSCR_MODE_CHUNK;
  const size_t per = (size_t)(P->ib - P->ia) * PSCR_MODE_CHUNK;
#pragma omp parallel for schedule(static) num_threads(P->mode_nt) if (P->mode_nt > 1)
  for (size_t q = 0; q < nchunk; q++) {
    const size_t m0 = q * PSCR_MODE_CHUNK;
    const int w = (int)(pl - m0 < PSCR_MODE_CHUNK ? pl - m0 : PSCR_MODE_CHUNK);
    const int me = omp_get_thread_num();
    if (P->cplx)
      mode_solve_z(P, x, usl, us, m0, w, (pscr_z *)P->mode_ip + (size_t)me * per);
    else
      mode_solve_d(P, x, usl, us, m0, w, (double *)P->mode_ip + (size_t)me * per);
  }
}

/* out = J(s_left, ia) v_first per mode (step 2's term for the previous
   rank), or g = x_s - in - J(s, s-1) v_last (this rank's separator) into
   z; dtype planes, z double complex. */
static void pscr_modes_terms(const pscr_mpi_plan *P, const void *vf, const void *vl, void *out,
                             const void *xs, const void *in, pscr_z *z, int nI)
{
  const size_t pl = P->plane;
#pragma omp parallel for schedule(static) num_threads(P->mode_nt) if (P->mode_nt > 1 && pl > 4096)
  for (size_t m = 0; m < pl; m++) {
    const pscr_z t = pscr_mpi_mode_sigma(P, m) + P->c;
    if (out) {
      const pscr_z v_first = P->cplx ? ((const pscr_z *)vf)[m] : ((const double *)vf)[m];
      const pscr_z term = (P->a1o[P->ia - 1] + t * P->m1o[P->ia - 1]) * v_first;
      if (P->cplx)
        ((pscr_z *)out)[m] = term;
      else
        ((double *)out)[m] = creal(term);
    }
    if (z) {
      pscr_z g = P->cplx ? ((const pscr_z *)xs)[m] : ((const double *)xs)[m];
      g -= P->cplx ? ((const pscr_z *)in)[m] : ((const double *)in)[m];
      if (nI) {
        const pscr_z v_last = P->cplx ? ((const pscr_z *)vl)[m] : ((const double *)vl)[m];
        g -= (P->a1o[P->sep_row - 1] + t * P->m1o[P->sep_row - 1]) * v_last;
      }
      z[m] = g;
    }
  }
}

/* A pivot of mode bad - 1 at rounding level in phase A. */
static pscr_status pscr_modes_singular(const pscr_mpi_plan *P, size_t bad)
{
  return PSCR_ERROR(PSCR_ERROR_SINGULAR,
                    "rank %d's interior rows %d..%d are singular for transverse mode %zu (a "
                    "pivot at rounding level: the slab at resonance): choose other row ranges",
                    P->rank, P->ia, P->ib - 1, bad - 1);
}

/*
 * Steps 2-4 on the host, for the host solve and for device solves through
 * host planes: vf, vl the interior's end entries in the modes (none where
 * nI is 0), xs this rank's separator plane in the modes (where it has
 * one), replaced by its solution; usl receives the previous rank's. out
 * and in: two planes of work. *t: the stage clock (pscr_mpi_lap).
 * Every status agreed.
 */
static pscr_status pscr_modes_separators_host(pscr_mpi_plan *P, const void *vf, const void *vl,
                                              void *xs, void *usl, void *out, void *in, int nI,
                                              double *t)
{
  const size_t pl = P->plane, pe = pl * P->elem;
  const int words = (int)(pe / sizeof(double));
  const int left = P->rank > 0 ? P->rank - 1 : MPI_PROC_NULL;
  const int right = P->rank + 1 < P->size ? P->rank + 1 : MPI_PROC_NULL;
  /* 2: the previous separator's term from this rank's first interior row
     (zero where the interior is empty); the next rank's term here. */
  if (left != MPI_PROC_NULL) {
    if (nI)
      pscr_modes_terms(P, vf, vl, out, NULL, NULL, NULL, nI);
    else
      memset(out, 0, pe);
  }
  memset(in, 0, pe);
  *t = pscr_mpi_lap(&P->t_separator, *t);
  pscr_status st = pscr_mpi_error(MPI_Sendrecv(out, left != MPI_PROC_NULL ? words : 0,
                                               MPI_DOUBLE, left, 5, in,
                                               right != MPI_PROC_NULL ? words : 0, MPI_DOUBLE,
                                               right, 5, P->comm, MPI_STATUS_IGNORE),
                                  "MPI_Sendrecv (separator terms)");
  *t = pscr_mpi_lap(&P->t_exchange, *t);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  /* 3: this rank's separator's right-hand side, the Schur systems. */
  pscr_z *z = P->zplane;
  if (P->sep_row >= 0)
    pscr_modes_terms(P, vf, vl, NULL, xs, in, z, nI);
  *t = pscr_mpi_lap(&P->t_separator, *t);
  if ((st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_separator_modes(P, z))))
    return st;
  *t = MPI_Wtime();
  if (P->sep_row >= 0) {
#pragma omp parallel for schedule(static) num_threads(P->mode_nt) if (P->mode_nt > 1 && pl > 4096)
    for (size_t m = 0; m < pl; m++) {
      if (P->cplx)
        ((pscr_z *)xs)[m] = z[m];
      else
        ((double *)xs)[m] = creal(z[m]);
    }
  }
  *t = pscr_mpi_lap(&P->t_separator, *t);
  /* 4: the separator's plane to the next rank, the previous one's here. */
  st = pscr_mpi_error(MPI_Sendrecv(xs, right != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, right, 6,
                                   usl, left != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, left, 6,
                                   P->comm, MPI_STATUS_IGNORE),
                      "MPI_Sendrecv (separator planes)");
  *t = pscr_mpi_lap(&P->t_exchange, *t);
  return pscr_mpi_agree(P->comm, P->rank, st);
}

pscr_status pscr_mpi_solve_modes(pscr_mpi_plan *P, const void *f, void *u)
{
  const size_t e = P->elem, pl = P->plane, pe = pl * e, rows = P->rows;
  const int nI = P->ib - P->ia;
  const int left = P->rank > 0 ? P->rank - 1 : MPI_PROC_NULL;
  char *x = u, *vf = P->mode_planes, *vl = vf + pe, *out = vl + pe, *in = out + pe;
  char *usl = in + pe;
  double t = MPI_Wtime();
  if (u != f)
    memcpy(u, f, rows * pe);
  /* 1-2: the slab to the modes; the interior's end entries. */
  pscr_modes_transform_slab(P, 0, x, rows);
  pscr_status st = PSCR_SUCCESS;
  const size_t bad = nI ? pscr_modes_ends(P, x, vf, vl) : 0;
  if (bad)
    st = pscr_modes_singular(P, bad);
  t = pscr_mpi_lap(&P->t_local, t);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  /* 2-4 on the host. */
  if ((st = pscr_modes_separators_host(P, vf, vl, x + (size_t)nI * pe, usl, out, in, nI, &t)))
    return st;
  if (nI)
    pscr_modes_solve(P, x, left != MPI_PROC_NULL ? usl : NULL,
                     P->sep_row >= 0 ? x + (size_t)nI * pe : NULL);
  /* 5: every plane back. */
  pscr_modes_transform_slab(P, 1, x, rows);
  pscr_mpi_lap(&P->t_local, t);
  return PSCR_SUCCESS;
}

/* ------------------------------------------------------------ device arrays */

/*
 * The device half's context (backend.h, pscr_modes_view): E and lambda in
 * dtype from P->E and P->lam (double complex), dimension 1's entries of
 * the interior rows from the owned pencil copy, the couplings outside the
 * problem (before row 0, past row n1 - 1) zero.
 */
pscr_status pscr_mpi_device_modes_create(pscr_mpi_plan *P)
{
  const size_t e = P->elem, nI = (size_t)(P->ib - P->ia);
  const pscr_pencil *g = &P->pen[0];
  size_t total = 2 * (2 * nI + 1) * e;
  for (int d = 0; d + 1 < P->ndim; d++)
    total += ((size_t)P->n[d + 1] + 1) * (size_t)P->n[d + 1] * e;
  char *buf = calloc(1, total), *at = buf;
  if (!buf)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot stage the device solve's eigenvectors (%zu "
                      "bytes)", total);
  pscr_modes_view v = {P->ndim, P->cplx, P->n[1], P->n[2], (int)nI, P->rows,
                       {NULL, NULL}, {NULL, NULL}, NULL, NULL,
                       {creal(P->c), cimag(P->c)}, 0, 0, NULL, NULL, NULL, NULL};
  for (int d = 0; d + 1 < P->ndim; d++) {
    const size_t n = (size_t)P->n[d + 1];
    char *E = at, *lam = E + n * n * e;
    at = lam + n * e;
    for (size_t t = 0; t < n * n; t++) {
      if (P->cplx)
        ((pscr_z *)(void *)E)[t] = P->E[d][t];
      else
        ((double *)(void *)E)[t] = creal(P->E[d][t]);
    }
    for (size_t t = 0; t < n; t++) {
      if (P->cplx)
        ((pscr_z *)(void *)lam)[t] = P->lam[d][t];
      else
        ((double *)(void *)lam)[t] = creal(P->lam[d][t]);
    }
    v.E[d] = E;
    v.lam[d] = lam;
  }
  /* J's pairs (A1, M1): diagonal i of row ia + i; coupling i of rows
     ia - 1 + i and ia + i, off-diagonal entry k = ia - 1 + i, present for
     0 <= k < n1 - 1 (the buffer's zeros elsewhere). */
  char *jd = at, *jo = jd + 2 * nI * e;
  for (size_t i = 0; i < nI; i++) {
    memcpy(jd + 2 * i * e, (const char *)g->a_diag + ((size_t)P->ia + i) * e, e);
    memcpy(jd + (2 * i + 1) * e, (const char *)g->m_diag + ((size_t)P->ia + i) * e, e);
  }
  for (size_t i = 0; i <= nI; i++) {
    const long k = (long)P->ia - 1 + (long)i;
    if (k < 0 || k >= P->n[0] - 1)
      continue;
    memcpy(jo + 2 * i * e, (const char *)g->a_off + (size_t)k * e, e);
    memcpy(jo + (2 * i + 1) * e, (const char *)g->m_off + (size_t)k * e, e);
  }
  v.jd = jd;
  v.jo = jo;
  /* The separators' factored systems in dtype, separator-major (j nm + k):
     a real plan's are real (its pencils and shift are). */
  const size_t nm = (size_t)(P->me - P->mb), ns = (size_t)(P->size - 1);
  char *fac = calloc(2 * (nm ? nm : 1) * ns, e);
  if (!fac) {
    free(buf);
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot stage the separators' factors");
  }
  for (size_t k = 0; k < nm; k++)
    for (size_t j = 0; j < ns; j++) {
      const pscr_z ip = P->inv_piv[k * ns + j], su = P->sup[k * ns + j];
      const size_t at = j * nm + k, other = (nm ? nm : 1) * ns + at;
      if (P->cplx) {
        ((pscr_z *)(void *)fac)[at] = ip;
        ((pscr_z *)(void *)fac)[other] = su;
      } else {
        ((double *)(void *)fac)[at] = creal(ip);
        ((double *)(void *)fac)[other] = creal(su);
      }
    }
  v.rank = P->rank;
  v.size = P->size;
  v.moff = P->moff;
  v.mcount = P->mcount;
  v.inv_piv = fac;
  v.sup = fac + (nm ? nm : 1) * ns * e;
  const pscr_status st =
      P->local->ops->modes_create(P->local, &v, &P->dctx, &P->dev_planes, &P->host_planes);
  free(fac);
  free(buf);
  return st;
}

pscr_status pscr_mpi_device_exchange(pscr_mpi_plan *P)
{
  const pscr_backend_ops *ops = P->local->ops;
  P->nccl = 0;
  if (!ops->modes_comm_key) /* the same backend on every rank */
    return PSCR_SUCCESS;
  /* NCCL takes one rank per device: ranks sharing one keep MPI's path. */
  unsigned char key[16] = {0}, id[PSCR_MODES_ID_BYTES] = {0};
  unsigned char *keys = malloc(16 * (size_t)P->size);
  int ok = keys && !ops->modes_comm_key(P->dctx, key), all = 0;
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, P->comm) != MPI_SUCCESS ||
      (all && MPI_Allgather(key, 16, MPI_UNSIGNED_CHAR, keys, 16, MPI_UNSIGNED_CHAR, P->comm) !=
                  MPI_SUCCESS)) {
    free(keys);
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Allgather of the ranks' devices failed");
  }
  for (int a = 0; all && a < P->size; a++)
    for (int b = a + 1; all && b < P->size; b++)
      all = memcmp(keys + 16 * (size_t)a, keys + 16 * (size_t)b, 16) != 0;
  free(keys);
  if (!all)
    goto host;
  ok = P->rank != 0 || !ops->modes_comm_id(P->dctx, id);
  if (MPI_Bcast(&ok, 1, MPI_INT, 0, P->comm) != MPI_SUCCESS ||
      (ok && MPI_Bcast(id, PSCR_MODES_ID_BYTES, MPI_UNSIGNED_CHAR, 0, P->comm) != MPI_SUCCESS))
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Bcast of the communicator's id failed");
  if (!ok)
    goto host;
  ok = !ops->modes_comm_init(P->dctx, id);
  if (MPI_Allreduce(&ok, &P->nccl, 1, MPI_INT, MPI_MIN, P->comm) != MPI_SUCCESS)
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Allreduce of the communicator's state failed");
host:
  /* Not an error: the host's path serves (a failed attempt's message
     would be stale). */
  pscr_error_clear();
  return PSCR_SUCCESS;
}

/*
 * The one-pass solve on device arrays: the slab's transforms and per-mode
 * sweeps on the device (the backend's modes ops), the planes that the
 * separators need (the interior's end entries, the separator's row, all
 * in the modes) through pinned host planes, the separators' work and the
 * messages as in pscr_mpi_solve_modes. u may be f.
 */
pscr_status pscr_mpi_solve_device_modes(pscr_mpi_plan *P, const void *f, void *u, void *stream)
{
  const pscr_backend_ops *ops = P->local->ops;
  const pscr_plan *lp = P->local;
  const size_t pe = P->plane * P->elem;
  const int nI = P->ib - P->ia, has_sep = P->sep_row >= 0;
  const int left = P->rank > 0 ? P->rank - 1 : MPI_PROC_NULL;
  char *dvf = P->dev_planes, *dvl = dvf + pe, *dusl = dvl + pe;
  char *vf = P->host_planes, *vl = vf + pe, *out = vl + pe, *in = out + pe, *usl = in + pe;
  char *xs = usl + pe, *x = u, *dxs = x + (size_t)nI * pe;
  /* 1-2 on the device; the planes steps 2-3 read to the host. */
  double t = MPI_Wtime();
  size_t bad = 0;
  pscr_status st = ops->modes_transform(P->dctx, 0, f, u, stream);
  if (!st)
    st = ops->modes_ends(P->dctx, x, dvf, dvl, &bad, stream);
  if (!st && bad)
    st = pscr_modes_singular(P, bad);
  if (P->nccl) {
    /* 2-4 on the devices, exchanging between them: their kernels and
       messages interleave on the stream, all counted as exchange. */
    t = pscr_mpi_lap(&P->t_local, t);
    if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
      return st;
    st = ops->modes_separators(P->dctx, x, dvf, dvl, dusl, stream);
    t = pscr_mpi_lap(&P->t_exchange, t);
    if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
      return st;
    goto interior;
  }
  if (!st)
    st = ops->copy(lp, vf, dvf, 2 * pe, stream);
  if (!st && has_sep)
    st = ops->copy(lp, xs, dxs, pe, stream);
  t = pscr_mpi_lap(&P->t_local, t);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  if ((st = pscr_modes_separators_host(P, vf, vl, xs, usl, out, in, nI, &t)))
    return st;
  /* The separators' planes onto the device. */
  if (has_sep)
    st = ops->copy(lp, dxs, xs, pe, stream);
  if (!st && left != MPI_PROC_NULL)
    st = ops->copy(lp, dusl, usl, pe, stream);
  t = pscr_mpi_lap(&P->t_separator, t);
interior:
  /* 4-5: the interior's solves per mode, every plane back. */
  if (!st)
    st = ops->modes_solve(P->dctx, x, left != MPI_PROC_NULL ? dusl : NULL, has_sep ? dxs : NULL,
                          stream);
  if (!st)
    st = ops->modes_transform(P->dctx, 1, x, x, stream);
  /* Finished on return: a copy of nothing waits for the stream. */
  if (!st)
    st = ops->copy(lp, x, x, 0, stream);
  pscr_mpi_lap(&P->t_local, t);
  return st;
}

/*
 * Host arrays on CUDA ranks in the one-pass form (no local plan holds a
 * slab there): f onto the backend's device slab, the device solve there
 * in place, u back. Each failure is agreed before the next exchange.
 */
pscr_status pscr_mpi_solve_staged(pscr_mpi_plan *P, const void *f, void *u)
{
  const pscr_backend_ops *ops = P->local->ops;
  const size_t bytes = P->rows * P->plane * P->elem;
  void *slab = NULL, *stream = NULL;
  double t = MPI_Wtime();
  pscr_status st = ops->modes_stage(P->dctx, &slab, &stream);
  if (!st)
    st = ops->copy(P->local, slab, f, bytes, stream);
  pscr_mpi_lap(&P->t_local, t);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  st = pscr_mpi_solve_device_modes(P, slab, slab, stream);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  t = MPI_Wtime();
  st = ops->copy(P->local, u, slab, bytes, stream);
  pscr_mpi_lap(&P->t_local, t);
  return st;
}
