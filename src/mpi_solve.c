/*
 * pscr_mpi_solve: the four steps of mpi_plan.c's comment on one rank's
 * slab. Messages per solve: one plane to each neighbour twice
 * (point-to-point) and two all-to-alls of one plane per separator.
 */
#include <complex.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "error.h"
#include "kron.h"
#include "mpi_plan.h"
#include "plan.h"
#include "sine.h"

/* Seconds since t0, added to *acc (pscr_mpi_info's stages); returns now. */
double pscr_mpi_lap(double *acc, double t0)
{
  const double t = MPI_Wtime();
  *acc += t - t0;
  return t;
}

/*
 * y = A x for the operator with dimension 1's pencil replaced by the n x n
 * tridiagonal one whose diagonals start at a1 (A1) and m1 (M1), and whose
 * off-diagonals start at a1o, m1o (NULL where n is 1); every other pencil,
 * the shift and the threads are the plan's.
 */
static void pscr_mpi_kron(const pscr_mpi_plan *P, int n, const void *a1, const void *a1o,
                          const void *m1, const void *m1o, const void *x, void *y)
{
  const int nd = P->ndim;
  if (!P->cplx) {
    pscr_factor_d f[3] = {{{n, a1, a1o}, {n, m1, m1o}}};
    for (int d = 1; d < nd; d++)
      f[d] = (pscr_factor_d){{P->n[d], P->pen[d].a_diag, P->pen[d].a_off},
                             {P->n[d], P->pen[d].m_diag, P->pen[d].m_off}};
    pscr_kron_op_d(nd, f, *(const double *)P->shift, x, y, P->nthreads);
  } else {
    pscr_factor_z f[3] = {{{n, a1, a1o}, {n, m1, m1o}}};
    for (int d = 1; d < nd; d++)
      f[d] = (pscr_factor_z){{P->n[d], P->pen[d].a_diag, P->pen[d].a_off},
                             {P->n[d], P->pen[d].m_diag, P->pen[d].m_off}};
    pscr_kron_op_z(nd, f, *(const pscr_z *)P->shift, x, y, P->nthreads);
  }
}

/* y = T(i, j) x for neighbouring rows i, j of dimension 1: the operator with
   dimension 1 cut to the one entry (A1_ij, M1_ij). */
static void pscr_mpi_plane_op(const pscr_mpi_plan *P, int i, int j, const void *x, void *y)
{
  const size_t k = (size_t)(i < j ? i : j) * P->elem;
  pscr_mpi_kron(P, 1, (const char *)P->pen[0].a_off + k, NULL,
                (const char *)P->pen[0].m_off + k, NULL, x, y);
}

/* a -= b over a plane of dtype (complex: pairs of doubles). */
static void pscr_mpi_plane_sub(const pscr_mpi_plan *P, void *a, const void *b)
{
  double *x = a;
  const double *y = b;
  const size_t n = P->plane * (P->elem / sizeof(double));
  for (size_t t = 0; t < n; t++)
    x[t] -= y[t];
}

/* The transverse transform of a plane in place (z: plane, work: plane):
   forward zhat = W_R^T z, backward z = W_R zhat; W_R^T = E2 (x) E3. */
void pscr_mpi_transform(const pscr_mpi_plan *P, int back, pscr_z *z, pscr_z *work)
{
  const pscr_z one = 1.0, zero = 0.0;
  const int n2 = P->n[1], n3 = P->n[2];
  if (P->ndim == 2) {
    cblas_zgemv(CblasRowMajor, back ? CblasTrans : CblasNoTrans, n2, n2, &one, P->E[0], n2, z, 1,
                &zero, work, 1);
    memcpy(z, work, (size_t)n2 * sizeof *z);
    return;
  }
  /* A plane is n2 x n3, row major: zhat = E2 Z E3^T, Z = E2^T zhat E3. */
  cblas_zgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n2, n3, n2, &one,
              P->E[0], n2, z, n3, &zero, work, n3);
  cblas_zgemm(CblasRowMajor, CblasNoTrans, back ? CblasNoTrans : CblasTrans, n2, n3, n3, &one,
              work, n3, P->E[1], n3, &zero, z, n3);
}

/* b[j][i] = a[i][j] for an r x c matrix a of elements of w doubles, in
   blocks of 32 x 32 elements over nt threads. */
static void pscr_mpi_transpose(const double *a, double *b, int r, int c, int w, int nt)
{
  const int B = 32, nbi = (r + B - 1) / B, nbj = (c + B - 1) / B;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int q = 0; q < nbi * nbj; q++) {
    const int i0 = q / nbj * B, j0 = q % nbj * B;
    const int i1 = i0 + B < r ? i0 + B : r, j1 = j0 + B < c ? j0 + B : c;
    for (int i = i0; i < i1; i++)
      for (int j = j0; j < j1; j++)
        for (int k = 0; k < w; k++)
          b[((size_t)j * r + i) * w + k] = a[((size_t)i * c + j) * w + k];
  }
}

/*
 * The transverse transform of a plane x of dtype, in place (work: a plane
 * of dtype): forward xhat = E2 X E3^T (mode (k2, k3) at k2 n3 + k3), back
 * X = E2^T xhat E3; 2D: the vector by E2. Sine pencils (P->sine) by the
 * fast sine transform, along dimension 2 over the plane's rows, then along
 * dimension 3 over the transposed plane's (complex data: interleaved
 * reals, real scales); real plans otherwise by real products (a quarter of
 * complex products' flops). Complex plans without sine pencils use
 * pscr_mpi_transform.
 */
void pscr_mpi_transform_plane(const pscr_mpi_plan *P, int back, void *x, void *work)
{
  const int n2 = P->n[1], n3 = P->n[2], w = P->cplx ? 2 : 1;
  double *a = x, *t = work;
  if (P->sine) {
    pscr_sine_d(n2, 1, 0, (size_t)n3 * w, (size_t)n3 * w, a, P->sscale[0], back, P->sine_nt,
                P->sine_scratch);
    if (P->ndim == 2)
      return;
    pscr_mpi_transpose(a, t, n2, n3, w, P->sine_nt);
    pscr_sine_d(n3, 1, 0, (size_t)n2 * w, (size_t)n2 * w, t, P->sscale[1], back, P->sine_nt,
                P->sine_scratch);
    pscr_mpi_transpose(t, a, n3, n2, w, P->sine_nt);
    return;
  }
  if (P->ndim == 2) {
    cblas_dgemv(CblasRowMajor, back ? CblasTrans : CblasNoTrans, n2, n2, 1.0, P->Er[0], n2, a, 1,
                0.0, t, 1);
    memcpy(a, t, (size_t)n2 * sizeof *a);
    return;
  }
  cblas_dgemm(CblasRowMajor, back ? CblasTrans : CblasNoTrans, CblasNoTrans, n2, n3, n2, 1.0,
              P->Er[0], n2, a, n3, 0.0, t, n3);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, back ? CblasNoTrans : CblasTrans, n2, n3, n3, 1.0, t,
              n3, P->Er[1], n3, 0.0, a, n3);
}

/* The separators' systems of this rank's modes: zmodes[j nm + k] holds the
   right-hand side of separator j, mode k, and receives the solution. */
static void pscr_mpi_separator_solves(const pscr_mpi_plan *P)
{
  const int ns = P->size - 1;
  const size_t nm = (size_t)(P->me - P->mb);
  pscr_z *b = P->zmodes;
  for (size_t k = 0; k < nm; k++) {
    const pscr_z *ip = P->inv_piv + k * ns, *su = P->sup + k * ns;
    /* S symmetric: row j's multiplier is S(j, j-1) / pivot_{j-1}. */
    for (int j = 1; j < ns; j++)
      b[j * nm + k] -= su[j - 1] * ip[j - 1] * b[(j - 1) * nm + k];
    b[(size_t)(ns - 1) * nm + k] *= ip[ns - 1];
    for (int j = ns - 2; j >= 0; j--)
      b[j * nm + k] = (b[j * nm + k] - su[j] * b[(j + 1) * nm + k]) * ip[j];
  }
}

pscr_status pscr_mpi_error(int rc, const char *what)
{
  if (rc == MPI_SUCCESS)
    return PSCR_SUCCESS;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  return PSCR_ERROR(PSCR_ERROR_DEVICE, "%s failed: %s", what, msg);
}

pscr_status pscr_mpi_separator_modes(pscr_mpi_plan *P, pscr_z *z)
{
  double t = MPI_Wtime();
  pscr_status st = pscr_mpi_error(MPI_Alltoallv(z, P->scount, P->sdispl, MPI_C_DOUBLE_COMPLEX,
                                                P->zmodes, P->rcount, P->rdispl,
                                                MPI_C_DOUBLE_COMPLEX, P->comm),
                                  "MPI_Alltoallv (separators to modes)");
  t = pscr_mpi_lap(&P->t_exchange, t);
  if (st)
    return st;
  pscr_mpi_separator_solves(P);
  t = pscr_mpi_lap(&P->t_separator, t);
  st = pscr_mpi_error(MPI_Alltoallv(P->zmodes, P->rcount, P->rdispl, MPI_C_DOUBLE_COMPLEX, z,
                                    P->scount, P->sdispl, MPI_C_DOUBLE_COMPLEX, P->comm),
                      "MPI_Alltoallv (modes to separators)");
  pscr_mpi_lap(&P->t_exchange, t);
  return st;
}

/* Steps 2 and 3: this rank's separator plane us (when it has one) from its
   plane fs of f and the first and last planes vf, vl of the interior's
   first solve (host planes; vf, vl unused where the interior is empty,
   fs, us on the last rank). */
static pscr_status pscr_mpi_separators(pscr_mpi_plan *P, const char *fs, const char *vf,
                                       const char *vl, char *us)
{
  double t = MPI_Wtime();
  const size_t e = P->elem, pl = P->plane, nI = (size_t)(P->ib - P->ia);
  const int words = (int)(pl * (e / sizeof(double)));
  const int left = P->rank > 0 ? P->rank - 1 : MPI_PROC_NULL;
  const int right = P->rank + 1 < P->size ? P->rank + 1 : MPI_PROC_NULL;
  char *out = P->nplane, *in = out + pl * e, *tmp = in + pl * e;
  /* The previous separator's term from this rank's first interior row:
     T(s_left, ia) v_ia (zero when the interior is empty: the neighbour of
     s_left is this rank's own separator, coupled in S directly). */
  if (left != MPI_PROC_NULL) {
    if (nI)
      pscr_mpi_plane_op(P, P->left_sep, P->ia, vf, out);
    else
      memset(out, 0, pl * e);
  }
  memset(in, 0, pl * e);
  t = pscr_mpi_lap(&P->t_separator, t);
  pscr_status st = pscr_mpi_error(MPI_Sendrecv(out, left != MPI_PROC_NULL ? words : 0, MPI_DOUBLE,
                                               left, 1, in, right != MPI_PROC_NULL ? words : 0,
                                               MPI_DOUBLE, right, 1, P->comm, MPI_STATUS_IGNORE),
                                  "MPI_Sendrecv (separator terms)");
  t = pscr_mpi_lap(&P->t_exchange, t);
  if (st)
    return st;
  pscr_z *z = P->zplane, *work = z + pl;
  if (P->sep_row >= 0) {
    /* g = f_s - T(s, s-1) v_{s-1} - (the next rank's term). */
    memcpy(tmp, fs, pl * e);
    pscr_mpi_plane_sub(P, tmp, in);
    if (nI) {
      pscr_mpi_plane_op(P, P->sep_row, P->sep_row - 1, vl, in);
      pscr_mpi_plane_sub(P, tmp, in);
    }
    const int by_plane = P->sine || !P->cplx;
    if (by_plane)
      pscr_mpi_transform_plane(P, 0, tmp, work);
    for (size_t t = 0; t < pl; t++)
      z[t] = P->cplx ? ((const pscr_z *)tmp)[t] : (pscr_z)((const double *)tmp)[t];
    if (!by_plane)
      pscr_mpi_transform(P, 0, z, work);
  }
  t = pscr_mpi_lap(&P->t_separator, t);
  if ((st = pscr_mpi_separator_modes(P, z)))
    return st;
  t = MPI_Wtime();
  if (P->sep_row >= 0) {
    /* A real plan's modes are real (its Schur systems and right-hand
       sides are), so the real part may be taken before the transform. */
    const int by_plane = P->sine || !P->cplx;
    if (!by_plane)
      pscr_mpi_transform(P, 1, z, work);
    for (size_t t = 0; t < pl; t++) {
      if (P->cplx)
        ((pscr_z *)us)[t] = z[t];
      else
        ((double *)us)[t] = creal(z[t]);
    }
    if (by_plane)
      pscr_mpi_transform_plane(P, 1, us, work);
  }
  pscr_mpi_lap(&P->t_separator, t);
  return PSCR_SUCCESS;
}

/* Step 4: u_I = A_II^{-1} (f_I - T(ia, s_left) u_s_left - T(ib-1, s) u_s). */
static pscr_status pscr_mpi_back(pscr_mpi_plan *P, const char *f, char *u)
{
  const size_t e = P->elem, pl = P->plane, nI = (size_t)(P->ib - P->ia);
  const int words = (int)(pl * (e / sizeof(double)));
  const int left = P->rank > 0 ? P->rank - 1 : MPI_PROC_NULL;
  const int right = P->rank + 1 < P->size ? P->rank + 1 : MPI_PROC_NULL;
  char *uleft = P->nplane, *tmp = uleft + 2 * pl * e;
  double t = MPI_Wtime();
  /* This rank's separator to the next rank, the previous one's from it. */
  pscr_status st = pscr_mpi_error(
      MPI_Sendrecv(u + nI * pl * e, right != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, right, 2,
                   uleft, left != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, left, 2, P->comm,
                   MPI_STATUS_IGNORE),
      "MPI_Sendrecv (separator planes)");
  t = pscr_mpi_lap(&P->t_exchange, t);
  if (st || !nI)
    return st;
  if (u != f)
    memcpy(u, f, nI * pl * e);
  if (left != MPI_PROC_NULL) {
    pscr_mpi_plane_op(P, P->ia, P->left_sep, uleft, tmp);
    pscr_mpi_plane_sub(P, u, tmp);
  }
  if (P->sep_row >= 0) {
    pscr_mpi_plane_op(P, P->ib - 1, P->sep_row, u + nI * pl * e, tmp);
    pscr_mpi_plane_sub(P, u + (nI - 1) * pl * e, tmp);
  }
  t = pscr_mpi_lap(&P->t_separator, t);
  st = pscr_solve(P->local, u, u);
  pscr_mpi_lap(&P->t_local, t);
  return st;
}

/* One solve (steps 1-4), every failure agreed. */
static pscr_status pscr_mpi_solve_once(pscr_mpi_plan *P, const void *f, void *u)
{
  if (P->size == 1) {
    const double t = MPI_Wtime();
    const pscr_status st = pscr_solve(P->local, f, u);
    pscr_mpi_lap(&P->t_local, t);
    return pscr_mpi_agree(P->comm, P->rank, st);
  }
  if (P->modes)
    return pscr_mpi_agree(P->comm, P->rank, pscr_mpi_solve_modes(P, f, u));
  if (P->dmodes)
    return pscr_mpi_agree(P->comm, P->rank, pscr_mpi_solve_staged(P, f, u));
  /* The first interior solve v goes to u's interior rows, which step 4
     overwrites; an in-place solve needs f there until then, so v goes to
     a slab of its own, allocated at the first in-place solve. A failure
     anywhere is agreed before the next exchange, so that no rank waits for
     one that gave up. */
  pscr_status st = PSCR_SUCCESS;
  if (u == f && !P->v && P->local) {
    const size_t bytes = (size_t)(P->ib - P->ia) * P->plane * P->elem;
    if (!(P->v = pscr_mpi_keep(P, bytes)))
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the in-place solve's slab (%zu "
                      "bytes)", bytes);
  }
  void *v = u == f ? P->v : u;
  double t = MPI_Wtime();
  if (!st && P->local)
    st = pscr_solve(P->local, f, v);
  t = pscr_mpi_lap(&P->t_local, t);
  st = pscr_mpi_agree(P->comm, P->rank, st);
  pscr_mpi_lap(&P->t_exchange, t);
  const size_t pe = P->plane * P->elem, nI = (size_t)(P->ib - P->ia);
  const char *vc = v;
  if (!st && !(st = pscr_mpi_agree(P->comm, P->rank,
                                   pscr_mpi_separators(P, (const char *)f + nI * pe, vc,
                                                       nI ? vc + (nI - 1) * pe : vc,
                                                       (char *)u + nI * pe))))
    st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_back(P, f, u));
  return st;
}

/*
 * r = f - A u on this rank's rows: u with one plane of each neighbour (a
 * halo) in ext, A applied there with dimension 1 cut to those rows (exact
 * on the rank's own rows, whose neighbours are all present).
 */
static pscr_status pscr_mpi_residual(pscr_mpi_plan *P, const void *f, const void *u, void *r)
{
  const size_t e = P->elem, pl = P->plane, rows = P->rows;
  const int words = (int)(pl * (e / sizeof(double)));
  const int left = P->rank > 0 ? P->rank - 1 : MPI_PROC_NULL;
  const int right = P->rank + 1 < P->size ? P->rank + 1 : MPI_PROC_NULL;
  const int lo = P->ia - (left != MPI_PROC_NULL), hi = P->ia + (int)rows + (right != MPI_PROC_NULL);
  const size_t lead = (size_t)(P->ia - lo) * pl * e;
  char *in = P->ext, *out = in + (rows + 2) * pl * e;
  memcpy(in + lead, u, rows * pl * e);
  const char *uc = u;
  pscr_status st = pscr_mpi_error(
      MPI_Sendrecv(uc, left != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, left, 3,
                   in + lead + rows * pl * e, right != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, right,
                   3, P->comm, MPI_STATUS_IGNORE),
      "MPI_Sendrecv (halo)");
  if (!st)
    st = pscr_mpi_error(MPI_Sendrecv(uc + (rows - 1) * pl * e, right != MPI_PROC_NULL ? words : 0,
                                     MPI_DOUBLE, right, 4, in, left != MPI_PROC_NULL ? words : 0,
                                     MPI_DOUBLE, left, 4, P->comm, MPI_STATUS_IGNORE),
                        "MPI_Sendrecv (halo)");
  if (st)
    return st;
  /* Dimension 1 cut to the rows lo .. hi - 1. */
  const pscr_pencil *g = &P->pen[0];
  const size_t o = (size_t)lo * e;
  pscr_mpi_kron(P, hi - lo, (const char *)g->a_diag + o, (const char *)g->a_off + o,
                (const char *)g->m_diag + o, (const char *)g->m_off + o, in, out);
  const double *ff = f, *au = (const double *)(out + lead);
  double *rr = r;
  const size_t nw = rows * pl * (e / sizeof(double));
  for (size_t t = 0; t < nw; t++)
    rr[t] = ff[t] - au[t];
  return PSCR_SUCCESS;
}

pscr_status pscr_mpi_solve(pscr_mpi_plan *P, const void *f, void *u)
{
  pscr_error_clear();
  if (!P)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "plan is NULL");
  pscr_status st = PSCR_SUCCESS;
  if (!f || !u)
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", f ? "u" : "f");
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  P->t_local = P->t_exchange = P->t_separator = 0;
  const size_t nw = P->rows * P->plane * (P->elem / sizeof(double));
  /* Refinement (pscr_options.refine): f kept where the solve overwrites it. */
  const void *f0 = f;
  if (P->refine && u == f) {
    memcpy(P->fcopy, f, nw * sizeof(double));
    f0 = P->fcopy;
  }
  st = pscr_mpi_solve_once(P, f0, u);
  for (int k = 0; !st && k < P->refine; k++) {
    st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_residual(P, f0, u, P->r));
    if (!st)
      st = pscr_mpi_solve_once(P, P->r, P->r);
    for (size_t t = 0; !st && t < nw; t++)
      ((double *)u)[t] += ((const double *)P->r)[t];
  }
  if (st) {
    double *x = u;
    for (size_t t = 0; t < nw; t++)
      x[t] = NAN;
  }
  return st;
}

/*
 * Device arrays in the two-solve form (CUDA local plans with
 * PSCR_FLAG_MPI_LOCAL_PLANS; otherwise mpi_modes.c's one pass): the volume
 * stays on the device; the planes that steps 2-4 read or write (the
 * interior's first and last, the separator's) cross to host buffers
 * through the backend's copy, and the separator work and the messages are
 * the host path's.
 */
static pscr_status pscr_mpi_solve_device_once(pscr_mpi_plan *P, const void *f, void *u,
                                              void *stream)
{
  const pscr_backend_ops *ops = P->local->ops;
  const size_t pe = P->plane * P->elem, nI = (size_t)(P->ib - P->ia);
  const int words = (int)(pe / sizeof(double));
  const int left = P->rank > 0 ? P->rank - 1 : MPI_PROC_NULL;
  const int right = P->rank + 1 < P->size ? P->rank + 1 : MPI_PROC_NULL;
  char *fs = P->dplanes, *vf = fs + pe, *vl = vf + pe, *us = vl + pe;
  char *uleft = P->nplane, *tx = uleft + 2 * pe;
  const char *fc = f;
  char *uc = u;
  /* Step 1, and the planes steps 2-3 read. */
  double t = MPI_Wtime();
  pscr_status st = pscr_solve_device(P->local, f, u, stream);
  if (!st)
    st = ops->copy(P->local, vf, uc, pe, stream);
  if (!st)
    st = ops->copy(P->local, vl, uc + (nI - 1) * pe, pe, stream);
  if (!st && P->sep_row >= 0)
    st = ops->copy(P->local, fs, fc + nI * pe, pe, stream);
  t = pscr_mpi_lap(&P->t_local, t);
  st = pscr_mpi_agree(P->comm, P->rank, st);
  t = pscr_mpi_lap(&P->t_exchange, t);
  if (st || (st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_separators(P, fs, vf, vl, us))))
    return st;
  /* Step 4: u_s onto the device and to the next rank, u_I = f_I less the
     separators' terms on its first and last planes, solved in place. */
  t = MPI_Wtime();
  if (P->sep_row >= 0)
    st = ops->copy(P->local, uc + nI * pe, us, pe, stream);
  if (!st)
    st = ops->copy(P->local, uc, fc, nI * pe, stream);
  t = pscr_mpi_lap(&P->t_local, t);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  st = pscr_mpi_error(MPI_Sendrecv(us, right != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, right, 2,
                                   uleft, left != MPI_PROC_NULL ? words : 0, MPI_DOUBLE, left, 2,
                                   P->comm, MPI_STATUS_IGNORE),
                      "MPI_Sendrecv (separator planes)");
  t = pscr_mpi_lap(&P->t_exchange, t);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  /* The first plane (also the last when the interior has one row). */
  st = ops->copy(P->local, vf, uc, pe, stream);
  if (!st && left != MPI_PROC_NULL) {
    pscr_mpi_plane_op(P, P->ia, P->left_sep, uleft, tx);
    pscr_mpi_plane_sub(P, vf, tx);
  }
  if (!st && nI == 1 && P->sep_row >= 0) {
    pscr_mpi_plane_op(P, P->ib - 1, P->sep_row, us, tx);
    pscr_mpi_plane_sub(P, vf, tx);
  }
  if (!st)
    st = ops->copy(P->local, uc, vf, pe, stream);
  if (!st && nI > 1 && P->sep_row >= 0) {
    st = ops->copy(P->local, vl, uc + (nI - 1) * pe, pe, stream);
    pscr_mpi_plane_op(P, P->ib - 1, P->sep_row, us, tx);
    pscr_mpi_plane_sub(P, vl, tx);
    if (!st)
      st = ops->copy(P->local, uc + (nI - 1) * pe, vl, pe, stream);
  }
  t = pscr_mpi_lap(&P->t_separator, t);
  if (!st)
    st = pscr_solve_device(P->local, u, u, stream);
  pscr_mpi_lap(&P->t_local, t);
  return pscr_mpi_agree(P->comm, P->rank, st);
}

/*
 * Refined solves of device arrays (pscr_options.refine): through a host
 * slab (made at the first call, kept), where host solves refine: the
 * residual with its one-plane halo on the host, each solve the form's own
 * (one-pass: through the device again). u may be f.
 */
static pscr_status pscr_mpi_solve_device_refined(pscr_mpi_plan *P, const void *f, void *u,
                                                 void *stream)
{
  const pscr_backend_ops *ops = P->local->ops;
  const size_t bytes = P->rows * P->plane * P->elem;
  pscr_status st = PSCR_SUCCESS;
  if (!P->hslab && !(P->hslab = pscr_mpi_keep(P, bytes)))
    st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the refined device solve's host slab "
                    "(%zu bytes)", bytes);
  if (!st)
    st = ops->copy(P->local, P->hslab, f, bytes, stream);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  /* pscr_mpi_solve is collective and agreed; it counts the stages. */
  if ((st = pscr_mpi_solve(P, P->hslab, P->hslab)))
    return st;
  const double t = MPI_Wtime();
  st = ops->copy(P->local, u, P->hslab, bytes, stream);
  pscr_mpi_lap(&P->t_local, t);
  return st;
}

pscr_status pscr_mpi_solve_device(pscr_mpi_plan *P, const void *f, void *u, void *stream)
{
  pscr_error_clear();
  if (!P)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "plan is NULL");
  pscr_status st = PSCR_SUCCESS;
  if (!f || !u)
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", f ? "u" : "f");
  else if (u == f && P->size > 1 && !P->dmodes)
    st = PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "a distributed device solve in place (u == f) in "
                    "the two-solve form (PSCR_FLAG_MPI_LOCAL_PLANS): pass a separate u");
  else if (!P->local || P->local->backend != PSCR_BACKEND_CUDA)
    st = PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "%s", P->local ? "device arrays need CUDA local "
                    "plans (pscr_options.backend)" : "device arrays need every rank but the last "
                    "to hold two rows or more (this rank's interior is empty)");
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  if (P->refine)
    return pscr_mpi_agree(P->comm, P->rank, pscr_mpi_solve_device_refined(P, f, u, stream));
  P->t_local = P->t_exchange = P->t_separator = 0;
  if (P->size == 1) {
    const double t = MPI_Wtime();
    st = pscr_solve_device(P->local, f, u, stream);
    /* Finished on return, as with more ranks (whose plane copies wait for
       the stream): a copy of nothing waits for it. */
    if (!st)
      st = P->local->ops->copy(P->local, u, u, 0, stream);
    pscr_mpi_lap(&P->t_local, t);
    return pscr_mpi_agree(P->comm, P->rank, st);
  }
  if (P->dmodes)
    return pscr_mpi_agree(P->comm, P->rank, pscr_mpi_solve_device_modes(P, f, u, stream));
  return pscr_mpi_solve_device_once(P, f, u, stream);
}

pscr_status pscr_mpi_solve_batch(pscr_mpi_plan *P, int nrhs, const void *f, size_t ldf, void *u,
                                 size_t ldu)
{
  pscr_error_clear();
  if (!P)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "plan is NULL");
  const size_t slab = P->rows * P->plane;
  pscr_status st = PSCR_SUCCESS;
  if (nrhs < 0)
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "nrhs is %d, must be >= 0", nrhs);
  else if (nrhs > 0 && (!f || !u))
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", f ? "u" : "f");
  else if (nrhs > 1 && (ldf < slab || ldu < slab))
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is %zu, below the rank's slab of %zu elements",
                    ldf < slab ? "ldf" : "ldu", ldf < slab ? ldf : ldu, slab);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  for (int r = 0; r < nrhs; r++) {
    char *ur = (char *)u + (size_t)r * ldu * P->elem;
    if (st) {
      double *x = (double *)ur;
      for (size_t t = 0; t < slab * (P->elem / sizeof(double)); t++)
        x[t] = NAN;
      continue;
    }
    st = pscr_mpi_solve(P, (const char *)f + (size_t)r * ldf * P->elem, ur);
  }
  return st;
}
