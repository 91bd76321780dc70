/*
 * Distributed plans (pscr_mpi.h): slabs of dimension 1, a Schur complement
 * on separator planes (docs/distributed.md has the derivation).
 *
 * Rank p owns rows [begin, end) of dimension 1; its last row is the
 * separator s_p (every rank but the last), its other rows the interior I_p.
 * With A = A1 (x) M_R + M1 (x) (K_R + c M_R) (R: dimensions 2..ndim) and the
 * plane operators T(i, j) = (A1_ij + c M1_ij) M_R + M1_ij K_R:
 *   1. v = A_II^{-1} f_I by the rank's local plan (dimension 1 cut to I_p);
 *   2. g_s = f_s - T(s, s-1) v_{s-1} - T(s, s+1) v_{s+1} (the second term
 *      comes from the next rank);
 *   3. S u_S = g: in the transverse eigenbasis (W_R^T K_R W_R = Sigma,
 *      W_R^T M_R W_R = I) S is, per mode sigma, the Schur complement on the
 *      separators of the 1D matrix J = A1 + (sigma + c) M1: tridiagonal of
 *      order P - 1, from the corner entries of the slabs' inverses
 *      (factored here at plan time, for this rank's modes);
 *   4. u_I = A_II^{-1} (f_I - T(a, s_left) u_s_left - T(b, s) u_s).
 * The separator part computes in double complex (real problems too: it
 * touches planes only).
 */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <omp.h>

#include "error.h"
#include "mpi_plan.h"
#include "plan.h"
#include "sine.h"

pscr_status pscr_mpi_split(int n1, int nranks, int rank, int *row_begin, int *row_end)
{
  pscr_error_clear();
  if (!row_begin || !row_end)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", row_begin ? "row_end" : "row_begin");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "rank %d of %d ranks: must be in 0 .. nranks-1",
                      rank, nranks);
  if (n1 < nranks)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "n1 is %d, below the %d ranks: every rank needs a row", n1, nranks);
  const int base = n1 / nranks, extra = n1 % nranks;
  *row_begin = rank * base + (rank < extra ? rank : extra);
  *row_end = *row_begin + base + (rank < extra ? 1 : 0);
  return PSCR_SUCCESS;
}

/* ------------------------------------------------------------ agreement */

void *pscr_mpi_keep(pscr_mpi_plan *P, size_t bytes)
{
  void *p = malloc(bytes);
  if (p)
    P->host_bytes += bytes;
  return p;
}

/*
 * Every rank's status, agreed: the lowest failing rank's status and message
 * on every rank (the failing rank's own message stays as it is).
 */
pscr_status pscr_mpi_agree(MPI_Comm comm, int rank, pscr_status st)
{
  int first_in = st ? rank : INT32_MAX, first = INT32_MAX;
  if (MPI_Allreduce(&first_in, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Allreduce failed");
  if (first == INT32_MAX)
    return PSCR_SUCCESS;
  struct {
    int status;
    char msg[480];
  } m = {(int)st, ""};
  if (rank == first)
    snprintf(m.msg, sizeof m.msg, "%s", pscr_last_error());
  if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm) != MPI_SUCCESS)
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Bcast failed");
  if (rank == first)
    return st;
  return PSCR_ERROR((pscr_status)m.status, "rank %d: %s", first, m.msg);
}

/* FNV-1a over bytes. */
static uint64_t pscr_fnv(uint64_t h, const void *data, size_t bytes)
{
  const unsigned char *b = data;
  for (size_t i = 0; i < bytes; i++) {
    h ^= b[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* The global problem's hash: dtype, ndim, the pencils and the shift. */
static uint64_t pscr_problem_hash(pscr_dtype dtype, int ndim, const pscr_pencil *pen,
                                  const void *shift, size_t elem)
{
  uint64_t h = 14695981039346656037ull;
  int head[2] = {(int)dtype, ndim};
  h = pscr_fnv(h, head, sizeof head);
  for (int d = 0; d < ndim; d++) {
    const size_t n = (size_t)pen[d].n;
    h = pscr_fnv(h, &pen[d].n, sizeof pen[d].n);
    h = pscr_fnv(h, pen[d].a_diag, n * elem);
    h = pscr_fnv(h, pen[d].m_diag, n * elem);
    if (n > 1) {
      h = pscr_fnv(h, pen[d].a_off, (n - 1) * elem);
      const char none = 0;
      h = pen[d].m_off ? pscr_fnv(h, pen[d].m_off, (n - 1) * elem) : pscr_fnv(h, &none, 1);
    }
  }
  return pscr_fnv(h, shift, elem);
}

/* ------------------------------------------------------------ pencils */

/* x as double complex from element t of an array of dtype. */
static pscr_z pscr_z_at(const void *a, size_t t, int cplx)
{
  return cplx ? ((const pscr_z *)a)[t] : (pscr_z)((const double *)a)[t];
}

/*
 * The owned copies: dimension 1's factors in the caller's dtype (the plane
 * operators) and in double complex (the separators' 1D matrices), and the
 * transverse pencils in the caller's dtype. Off-diagonals of M that the
 * caller left NULL are zeros.
 */
static pscr_status pscr_mpi_copy_pencils(pscr_mpi_plan *P, const pscr_pencil *pen)
{
  const size_t e = P->elem, n1 = (size_t)P->n[0];
  size_t total = 4 * n1 * e + 4 * n1 * sizeof(pscr_z);
  for (int d = 1; d < P->ndim; d++)
    total += 4 * (size_t)P->n[d] * e;
  if (!(P->pencil_storage = pscr_mpi_keep(P, total)))
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot copy the pencils (%zu bytes)", total);
  memset(P->pencil_storage, 0, total);
  char *at = P->pencil_storage;
  for (int d = 0; d < P->ndim; d++) {
    const size_t n = (size_t)P->n[d];
    char *ad = at, *ao = ad + n * e, *md = ao + n * e, *mo = md + n * e;
    at = mo + n * e;
    memcpy(ad, pen[d].a_diag, n * e);
    memcpy(md, pen[d].m_diag, n * e);
    if (n > 1) {
      memcpy(ao, pen[d].a_off, (n - 1) * e);
      if (pen[d].m_off)
        memcpy(mo, pen[d].m_off, (n - 1) * e);
    }
    P->pen[d] = (pscr_pencil){(int)n, ad, ao, md, mo};
  }
  pscr_z *z = (pscr_z *)at;
  P->a1d = z;
  P->a1o = z + n1;
  P->m1d = z + 2 * n1;
  P->m1o = z + 3 * n1;
  for (size_t i = 0; i < n1; i++) {
    P->a1d[i] = pscr_z_at(P->pen[0].a_diag, i, P->cplx);
    P->m1d[i] = pscr_z_at(P->pen[0].m_diag, i, P->cplx);
    if (i + 1 < n1) {
      P->a1o[i] = pscr_z_at(P->pen[0].a_off, i, P->cplx);
      P->m1o[i] = pscr_z_at(P->pen[0].m_off, i, P->cplx);
    }
  }
  return PSCR_SUCCESS;
}

/*
 * The transverse pencils' eigenpairs, all of them: from a single-process
 * plan whose reduced dimensions are the transverse ones, forced to the dense
 * transform (its w[d]: row e the eigenvector of lambda_e, W^T M W = I), with
 * a last dimension of order 1 that only completes the operator's form.
 */
static pscr_status pscr_mpi_transverse_eigen_here(pscr_mpi_plan *P, const pscr_options *opts)
{
  const double one_d[2] = {1.0, 0.0};
  const pscr_pencil unit = {1, one_d, NULL, one_d, NULL};
  pscr_pencil pen[3] = {P->pen[1], P->ndim == 3 ? P->pen[2] : unit, unit};
  pscr_options o;
  pscr_options_init(&o);
  o.backend = PSCR_BACKEND_CPU;
  o.num_threads = opts->num_threads;
  o.method[0] = PSCR_METHOD_TRANSFORM;
  if (P->ndim == 3)
    o.method[1] = PSCR_METHOD_TRANSFORM;
  /* W whole, also for sine pencils (closed form either way): a CPU plan
     that applies the fast sine transform gives its W back. */
  o.flags |= PSCR_FLAG_NO_SINE;
  const double zero[2] = {0.0, 0.0};
  pscr_plan *q = NULL;
  pscr_status st = pscr_plan_create(&q, P->dtype, P->ndim, pen, zero, &o);
  if (st)
    return PSCR_ERROR(st, "%s (the transverse pencils' eigenvectors)", pscr_last_error());
  for (int d = 0; d + 1 < P->ndim; d++) {
    const size_t n = (size_t)P->n[d + 1];
    /* The plan scaled the pencil by a power of two s (A and M alike:
       pscr_balance_factors), so its W^T (s M) W = I: W times sqrt(s) is
       the caller's pencil's. */
    const pscr_pencil *g = &P->pen[d + 1];
    size_t at = 0;
    for (size_t t = 1; t < n; t++)
      if (cabs(pscr_z_at(g->m_diag, t, P->cplx)) > cabs(pscr_z_at(g->m_diag, at, P->cplx)))
        at = t;
    const pscr_z mine = pscr_z_at(g->m_diag, at, P->cplx);
    const pscr_z theirs = P->cplx ? q->fac_z[d].m.diag[at] : (pscr_z)q->fac_d[d].m.diag[at];
    const double root = sqrt(cabs(theirs) / cabs(mine));
    for (size_t t = 0; t < n * n; t++)
      P->E[d][t] = root * pscr_z_at(q->w[d], t, P->cplx);
    for (size_t t = 0; t < n; t++)
      P->lam[d][t] = pscr_z_at(q->lambda[d], t, P->cplx);
    P->sscale[d][0] = root; /* the balance factor, for the sine scales */
  }
  /* Sine pencils (closed-form W): their scales, when every one qualifies. */
  P->sine = 1;
  for (int d = 0; d + 1 < P->ndim; d++)
    P->sine &= q->sine_pencil[d] && pscr_sine_supported(P->n[d + 1]);
  for (int d = 0; P->sine && d + 1 < P->ndim; d++) {
    const double root = P->sscale[d][0];
    for (int k = 0; k < P->n[d + 1]; k++)
      P->sscale[d][k] = root * ((const double *)q->sine_scale[d])[k];
  }
  pscr_plan_destroy(q);
  return PSCR_SUCCESS;
}

/* MPI_Bcast of n double complex, in pieces that fit MPI's int count. */
static int pscr_bcast_z(pscr_z *x, size_t n, MPI_Comm comm)
{
  const size_t piece = (size_t)1 << 26;
  for (size_t at = 0; at < n; at += piece) {
    const int rc = MPI_Bcast(x + at, (int)(n - at < piece ? n - at : piece), MPI_C_DOUBLE_COMPLEX,
                             0, comm);
    if (rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

/*
 * The local plan: dimension 1 cut to the interior. planned_only: its
 * skeleton (pscr_plan_skeleton), which names the backend and the device
 * the one-pass forms run on, with no storage: their slab solves take the
 * local plan's place, so a full one would hold the slab's work space
 * twice.
 */
static pscr_status pscr_mpi_local_plan(pscr_mpi_plan *P, const pscr_options *opts,
                                       int planned_only)
{
  const size_t e = P->elem, a = (size_t)P->ia;
  const pscr_pencil *g = &P->pen[0];
  pscr_pencil loc[3] = {{P->ib - P->ia, (const char *)g->a_diag + a * e,
                         (const char *)g->a_off + a * e, (const char *)g->m_diag + a * e,
                         (const char *)g->m_off + a * e},
                        P->pen[1], P->ndim == 3 ? P->pen[2] : P->pen[1]};
  /* The local plans do not refine: the distributed solve refines whole
     (pscr_mpi_solve), as the interior solves alone would not converge to
     A's solution. */
  pscr_options lo = *opts;
  lo.refine = 0;
  /* A rank's threads are its share of the node, chosen by the caller:
     its plan must not take the other ranks' threads for another job's
     load and fall back to one thread (team.h). */
  if (lo.num_threads > 0)
    lo.flags |= PSCR_FLAG_CPU_FIXED_TEAM;
  const pscr_status st =
      planned_only ? pscr_plan_skeleton(&P->local, P->dtype, P->ndim, loc, P->shift, &lo)
                   : pscr_plan_create(&P->local, P->dtype, P->ndim, loc, P->shift, &lo);
  if (st)
    return PSCR_ERROR(st, "%s (the local plan of rows %d..%d)", pscr_last_error(), P->ia,
                      P->ib - 1);
  return PSCR_SUCCESS;
}

/* Only complex plans without sine pencils transform by E itself. */
static void pscr_mpi_free_unused_e(pscr_mpi_plan *P)
{
  for (int d = 0; d + 1 < P->ndim && (P->sine || !P->cplx); d++) {
    if (P->E[d])
      P->host_bytes -= (size_t)P->n[d + 1] * (size_t)P->n[d + 1] * sizeof(pscr_z);
    free(P->E[d]);
    P->E[d] = NULL;
  }
}

/*
 * The transverse pencils' eigenpairs, all of them, on every rank: rank 0
 * computes them (the other ranks would repeat the same work on the same
 * cores) from a single-process plan whose reduced dimensions are the
 * transverse ones, forced to the dense transform (its w[d]: row e the
 * eigenvector of lambda_e, W^T M W = I), with a last dimension of order 1
 * that only completes the operator's form; a broadcast gives them to the
 * others. Collective: every rank allocates, the status is agreed, then
 * the broadcast.
 */
static pscr_status pscr_mpi_transverse_eigen(pscr_mpi_plan *P, const pscr_options *opts)
{
  pscr_status st = PSCR_SUCCESS;
  for (int d = 0; !st && d + 1 < P->ndim; d++) {
    const size_t n = (size_t)P->n[d + 1];
    P->E[d] = pscr_mpi_keep(P, n * n * sizeof(pscr_z));
    P->lam[d] = pscr_mpi_keep(P, n * sizeof(pscr_z));
    P->sscale[d] = pscr_mpi_keep(P, n * sizeof(double));
    if (!P->E[d] || !P->lam[d] || !P->sscale[d])
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the %zu x %zu eigenvectors of "
                      "pencil %d", n, n, d + 2);
  }
  if (!st && P->rank == 0)
    st = pscr_mpi_transverse_eigen_here(P, opts);
  if ((st = pscr_mpi_agree(P->comm, P->rank, st)))
    return st;
  if (MPI_Bcast(&P->sine, 1, MPI_INT, 0, P->comm) != MPI_SUCCESS)
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Bcast of the transverse eigenvectors failed");
  size_t order = 1;
  for (int d = 0; d + 1 < P->ndim; d++) {
    const size_t n = (size_t)P->n[d + 1];
    int rc = pscr_bcast_z(P->E[d], n * n, P->comm);
    if (rc == MPI_SUCCESS)
      rc = pscr_bcast_z(P->lam[d], n, P->comm);
    if (rc == MPI_SUCCESS && P->sine)
      rc = MPI_Bcast(P->sscale[d], (int)n, MPI_DOUBLE, 0, P->comm);
    if (rc != MPI_SUCCESS)
      return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Bcast of the transverse eigenvectors failed");
    if (n > order)
      order = n;
  }
  P->sine_order = (int)order;
  /* The planes' transforms (mpi_solve.c, pscr_mpi_transform_plane). */
  if (P->sine) {
    P->sine_nt = P->nthreads > 0 ? P->nthreads : omp_get_max_threads();
    P->sine_scratch =
        pscr_mpi_keep(P, (size_t)P->sine_nt * pscr_sine_scratch((int)order) * sizeof(double));
    if (!P->sine_scratch)
      return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the sine transforms' scratch");
  } else if (!P->cplx) {
    for (int d = 0; d + 1 < P->ndim; d++) {
      const size_t n = (size_t)P->n[d + 1];
      if (!(P->Er[d] = pscr_mpi_keep(P, n * n * sizeof(double))))
        return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the %zu x %zu real "
                          "eigenvectors of pencil %d", n, n, d + 2);
      for (size_t t = 0; t < n * n; t++)
        P->Er[d][t] = creal(P->E[d][t]);
    }
  }
  /* The one-pass solve (mpi_modes.c) for host solves of CPU ranks. */
  int modes = !(opts->flags & PSCR_FLAG_MPI_LOCAL_PLANS) &&
              (!P->local || P->local->backend == PSCR_BACKEND_CPU);
  /* Every rank the same way (a rank without an interior has no plan). */
  if (MPI_Allreduce(&modes, &P->modes, 1, MPI_INT, MPI_MIN, P->comm) != MPI_SUCCESS)
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Allreduce of the solve's form failed");
  /* The one-pass solves' threads (the per-mode loops on the host). */
  P->mode_nt = P->nthreads > 0 ? P->nthreads : omp_get_max_threads();
  if (P->modes) {
    const size_t pe = P->plane * P->elem, celem = P->cplx ? sizeof(pscr_z) : sizeof(double);
    P->mode_planes = pscr_mpi_keep(P, 5 * pe);
    P->mode_ip =
        pscr_mpi_keep(P, (size_t)P->mode_nt * ((size_t)(P->ib - P->ia) + 1) * 64 * celem);
    /* Blocks of about 2^16 values (the sine transform's columns; one
       call, and one table of twiddles, per block), 32 to 512 rows. */
    P->mode_len = (size_t)P->n[P->ndim - 1];
    P->mode_block = 32;
    while (P->mode_block < 512 && 2 * P->mode_block * P->mode_len <= ((size_t)1 << 16))
      P->mode_block *= 2;
    P->mode_rows = pscr_mpi_keep(P, (size_t)P->mode_nt *
                                        (P->mode_block * celem + 8 * sizeof(double)) *
                                        P->mode_len);
    if (!P->mode_planes || !P->mode_ip || !P->mode_rows)
      return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the one-pass solve's planes");
  }
  /* The one-pass solve on device arrays: CUDA local plans on every rank
     (backends with the modes ops); its context is made with the
     separators' factors (pscr_mpi_build_separators), E kept until then. */
  int dmodes = !(opts->flags & PSCR_FLAG_MPI_LOCAL_PLANS) && P->local &&
               P->local->ops->modes_create;
  if (MPI_Allreduce(&dmodes, &P->dmodes, 1, MPI_INT, MPI_MIN, P->comm) != MPI_SUCCESS)
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Allreduce of the device solve's form failed");
  if (!P->dmodes)
    pscr_mpi_free_unused_e(P);
  /* The two-solve form solves by the local plans: planned only so far
     (pscr_mpi_build), they are built whole now. */
  if (!P->modes && !P->dmodes && P->local && P->local->skeleton) {
    pscr_plan_destroy(P->local);
    P->local = NULL;
    st = pscr_mpi_local_plan(P, opts, 0);
  }
  return st;
}

/* ------------------------------------------------------------ separators */

/* Entry (i, i) and (i, i+1) of J = A1 + t M1. */
static pscr_z pscr_jd(const pscr_mpi_plan *P, int i, pscr_z t) { return P->a1d[i] + t * P->m1d[i]; }
static pscr_z pscr_jo(const pscr_mpi_plan *P, int i, pscr_z t) { return P->a1o[i] + t * P->m1o[i]; }

/* Corner entries of the inverse of J restricted to rows [a, b) (b > a):
   ll = (last, last), ff = (first, first), fl = (first, last); 1 when a
   pivot vanishes (a slab at resonance). *margin: the smallest pivot
   relative to the terms it came from, lowered (how near resonance). */
static int pscr_slab_corners(const pscr_mpi_plan *P, int a, int b, pscr_z t, pscr_z *ll,
                             pscr_z *ff, pscr_z *fl, double *margin)
{
  /* Forward pivots d_k; fl = prod_{k<m-1} (-J_{k,k+1} / d_k) / d_{m-1}. */
  pscr_z d = pscr_jd(P, a, t), prod = 1.0;
  double scale = cabs(P->a1d[a]) + cabs(t * P->m1d[a]);
  if (!(cabs(d) > DBL_EPSILON * scale))
    return 1;
  *margin = fmin(*margin, cabs(d) / scale);
  for (int i = a + 1; i < b; i++) {
    const pscr_z o = pscr_jo(P, i - 1, t), r = o * o / d, di = pscr_jd(P, i, t);
    prod *= -o / d;
    d = di - r;
    scale = cabs(di) + cabs(r);
    if (!(cabs(d) > DBL_EPSILON * scale))
      return 1;
    *margin = fmin(*margin, cabs(d) / scale);
  }
  *ll = 1.0 / d;
  *fl = prod / d;
  /* Backward pivots e_k; ff = 1 / e_0. */
  pscr_z e = pscr_jd(P, b - 1, t);
  for (int i = b - 2; i >= a; i--) {
    const pscr_z o = pscr_jo(P, i, t), r = o * o / e, di = pscr_jd(P, i, t);
    e = di - r;
    scale = cabs(di) + cabs(r);
    if (!(cabs(e) > DBL_EPSILON * scale))
      return 1;
    *margin = fmin(*margin, cabs(e) / scale);
  }
  if (!(cabs(e) > 0))
    return 1;
  *ff = 1.0 / e;
  return 0;
}

/* The eigenvalue of transverse mode m: sigma = lambda2_i (+ lambda3_k). */
pscr_z pscr_mpi_mode_sigma(const pscr_mpi_plan *P, size_t m)
{
  if (P->ndim == 2)
    return P->lam[0][m];
  const size_t n3 = (size_t)P->n[2];
  return P->lam[0][m / n3] + P->lam[1][m % n3];
}

/*
 * Mode k's separators' Schur complement (order P - 1, complex symmetric
 * tridiagonal) factored without pivoting: ip = 1 / pivot, su =
 * superdiagonal (S is symmetric: the subdiagonal multipliers are
 * su[j-1] ip[j-1]). Separator j is row sep[j]; slab q is rows
 * sep[q-1]+1 .. sep[q]-1 (sep[-1] = -1, sep[P-1] = n1). Scratch: ll for
 * 3 P values (the slabs' corners ll, ff, fl), empty for P flags. Returns 0, 1
 * (a slab at resonance: *what its first row) or 2 (the separators' system,
 * *what the pivot); *margin lowered as pscr_slab_corners does.
 */
static int pscr_mpi_factor_mode(const pscr_mpi_plan *P, size_t k, pscr_z *ll, int *empty,
                                pscr_z *ip, pscr_z *su, double *margin, int *what)
{
  const int ns = P->size - 1, n1 = P->n[0];
  pscr_z *ff = ll + ns + 1, *fl = ff + ns + 1;
  const pscr_z t = pscr_mpi_mode_sigma(P, (size_t)P->mb + k) + P->c;
  for (int q = 0; q <= ns; q++) {
    const int a = q == 0 ? 0 : P->sep[q - 1] + 1, b = q == ns ? n1 : P->sep[q];
    empty[q] = b <= a;
    if (!empty[q] && pscr_slab_corners(P, a, b, t, &ll[q], &ff[q], &fl[q], margin)) {
      *what = q;
      return 1;
    }
  }
  for (int j = 0; j < ns; j++) {
    const int s = P->sep[j];
    pscr_z diag = pscr_jd(P, s, t);
    double scale = cabs(diag);
    if (!empty[j]) {
      const pscr_z o = pscr_jo(P, s - 1, t), term = o * o * ll[j];
      diag -= term;
      scale += cabs(term);
    }
    if (!empty[j + 1]) {
      const pscr_z o = pscr_jo(P, s, t), term = o * o * ff[j + 1];
      diag -= term;
      scale += cabs(term);
    }
    /* S(j, j+1): the coupling through slab j+1, or direct when it is empty. */
    pscr_z off = 0;
    if (j + 1 < ns)
      off = empty[j + 1] ? pscr_jo(P, s, t)
                         : -pscr_jo(P, s, t) * fl[j + 1] * pscr_jo(P, P->sep[j + 1] - 1, t);
    if (j > 0) {
      /* S(j, j-1) / pivot_{j-1} times S(j-1, j); S symmetric. */
      const pscr_z term = su[j - 1] * ip[j - 1] * su[j - 1];
      diag -= term;
      scale += cabs(term);
    }
    if (!(cabs(diag) > 4 * DBL_EPSILON * scale)) {
      *what = j;
      return 2;
    }
    ip[j] = 1.0 / diag;
    su[j] = off;
  }
  return 0;
}

/*
 * For each of this rank's modes, pscr_mpi_factor_mode into inv_piv and
 * sup (ns entries per mode, at k ns), over the plan's threads (a plane of
 * a million modes times every row of dimension 1: seconds on one core).
 * The first failing mode's status.
 */
static pscr_status pscr_mpi_factor_separators(pscr_mpi_plan *P)
{
  const int ns = P->size - 1;
  const size_t nm = (size_t)(P->me - P->mb);
  P->inv_piv = pscr_mpi_keep(P, (nm ? nm : 1) * (size_t)ns * sizeof(pscr_z));
  P->sup = pscr_mpi_keep(P, (nm ? nm : 1) * (size_t)ns * sizeof(pscr_z));
  if (!P->inv_piv || !P->sup)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the separators' systems");
  const int nt = P->nthreads > 0 ? P->nthreads : omp_get_max_threads();
  size_t first = SIZE_MAX;
  double margin = 1.0;
  int nomem = 0;
#pragma omp parallel num_threads(nt) if (nt > 1 && nm > 64) reduction(min : first, margin) \
    reduction(max : nomem)
  {
    pscr_z *ll = malloc(((size_t)ns + 1) * 3 * sizeof(pscr_z));
    int *empty = malloc(((size_t)ns + 1) * sizeof(int));
    nomem = !ll || !empty;
#pragma omp for schedule(static)
    for (size_t k = 0; k < nm; k++) {
      int what = 0;
      if (!nomem && k < first &&
          pscr_mpi_factor_mode(P, k, ll, empty, P->inv_piv + k * ns, P->sup + k * ns, &margin,
                               &what))
        first = k;
    }
    free(ll);
    free(empty);
  }
  P->slab_margin = margin;
  if (nomem)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the separators' scratch");
  if (first == SIZE_MAX)
    return PSCR_SUCCESS;
  /* The first failing mode again, for its message. */
  pscr_z *ll = malloc(((size_t)ns + 1) * 3 * sizeof(pscr_z));
  int *empty = malloc(((size_t)ns + 1) * sizeof(int)), what = 0, kind = 2;
  double m = 1.0;
  if (ll && empty)
    kind = pscr_mpi_factor_mode(P, first, ll, empty, P->inv_piv + first * ns,
                                P->sup + first * ns, &m, &what);
  free(ll);
  free(empty);
  const size_t mode = (size_t)P->mb + first;
  if (kind == 1) {
    const int a = what == 0 ? 0 : P->sep[what - 1] + 1, b = what == ns ? P->n[0] : P->sep[what];
    return PSCR_ERROR(PSCR_ERROR_SINGULAR,
                      "the slab of rows %d..%d is singular for transverse mode %zu (at "
                      "resonance): choose other row ranges",
                      a, b - 1, mode);
  }
  return PSCR_ERROR(PSCR_ERROR_SINGULAR,
                    "the separators' system is singular for transverse mode %zu (pivot %d)", mode,
                    what + 1);
}

/* ------------------------------------------------------------ plan */

static pscr_status pscr_mpi_ranges(pscr_mpi_plan *P, int begin, int end)
{
  int mine[2] = {begin, end};
  int *all = malloc(2 * (size_t)P->size * sizeof(int));
  if (!all)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the ranges");
  if (MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, P->comm) != MPI_SUCCESS) {
    free(all);
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Allgather failed");
  }
  pscr_status st = PSCR_SUCCESS;
  for (int r = 0; r < P->size && !st; r++) {
    const int b = all[2 * r], e = all[2 * r + 1], want = r ? all[2 * r - 1] : 0;
    if (b != want)
      st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "rank %d's rows start at %d, must start at %d (the ranges must tile "
                      "0 .. n1-1 in rank order)",
                      r, b, want);
    else if (e <= b)
      st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "rank %d's range [%d, %d) is empty: every rank "
                      "needs a row", r, b, e);
    else if (r == P->size - 1 && e != P->n[0])
      st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "the last rank's rows end at %d, must end at n1 = %d", e, P->n[0]);
  }
  if (!st) {
    P->sep = pscr_mpi_keep(P, (size_t)(P->size > 1 ? P->size - 1 : 1) * sizeof(int));
    if (!P->sep)
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the separators");
    for (int r = 0; !st && r + 1 < P->size; r++)
      P->sep[r] = all[2 * r + 1] - 1;
  }
  free(all);
  return st;
}

/* Modes [moff[r], moff[r] + mcount[r]) belong to rank r. */
static pscr_status pscr_mpi_modes(pscr_mpi_plan *P)
{
  const size_t nr = P->plane, R = (size_t)P->size;
  P->mcount = pscr_mpi_keep(P, 6 * R * sizeof(int));
  if (!P->mcount)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the mode counts");
  if (nr / R > (size_t)INT32_MAX / (R > 1 ? R - 1 : 1))
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "a plane of %zu modes is too large for MPI's "
                      "int counts", nr);
  P->moff = P->mcount + R;
  P->scount = P->moff + R;
  P->sdispl = P->scount + R;
  P->rcount = P->sdispl + R;
  P->rdispl = P->rcount + R;
  for (size_t r = 0, at = 0; r < R; r++) {
    P->mcount[r] = (int)(nr / R + (r < nr % R ? 1 : 0));
    P->moff[r] = (int)at;
    at += (size_t)P->mcount[r];
  }
  P->mb = P->moff[P->rank];
  P->me = P->mb + P->mcount[P->rank];
  /* Forward all-to-all: a separator's plane to every rank, the rank's modes
     of it; each rank receives one slice per separator (none from the last
     rank, which has none). */
  const int mine = P->mcount[P->rank];
  for (int r = 0; r < P->size; r++) {
    P->scount[r] = P->sep_row >= 0 ? P->mcount[r] : 0;
    P->sdispl[r] = P->moff[r];
    P->rcount[r] = r + 1 < P->size ? mine : 0;
    P->rdispl[r] = r * mine;
  }
  return PSCR_SUCCESS;
}

static pscr_status pscr_mpi_build(pscr_mpi_plan *P, const pscr_pencil *pencils, const void *shift,
                                  int begin, int end, const pscr_options *opts)
{
  pscr_status st = pscr_mpi_copy_pencils(P, pencils);
  if (st)
    return st;
  memcpy(P->shift, shift, P->elem);
  P->c = pscr_z_at(shift, 0, P->cplx);
  P->nthreads = opts->num_threads;
  P->rows = (size_t)(end - begin);
  P->row_begin = begin;
  P->sep_row = P->rank + 1 < P->size ? end - 1 : -1;
  P->left_sep = P->rank > 0 ? begin - 1 : -1;
  P->ia = begin;
  P->ib = P->sep_row >= 0 ? end - 1 : end;
  /* The one-pass forms (the default with two ranks or more) solve the
     slab themselves: until pscr_mpi_transverse_eigen knows the form, the
     local plan is planned only. */
  if (P->ib > P->ia &&
      (st = pscr_mpi_local_plan(P, opts, P->size > 1 &&
                                           !(opts->flags & PSCR_FLAG_MPI_LOCAL_PLANS))))
    return st;
  P->refine = opts->refine;
  if (P->refine) {
    const size_t nw = (P->rows + 2) * P->plane * P->elem;
    P->ext = pscr_mpi_keep(P, 2 * nw);
    P->r = pscr_mpi_keep(P, nw);
    P->fcopy = pscr_mpi_keep(P, nw);
    if (!P->ext || !P->r || !P->fcopy)
      return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the refinement's buffers (%zu "
                        "bytes)", 4 * nw);
  }
  return PSCR_SUCCESS;
}

/* The separators' part of a plan (two ranks or more): modes, their
   factored systems, the solve's work space. */
static pscr_status pscr_mpi_build_separators(pscr_mpi_plan *P)
{
  pscr_status st;
  if ((st = pscr_mpi_modes(P)) || (st = pscr_mpi_factor_separators(P)))
    return st;
  if (P->dmodes) {
    st = pscr_mpi_device_modes_create(P);
    pscr_mpi_free_unused_e(P);
    if (st)
      return st;
  }
  /* Bytes per solve: a plane to each neighbour twice (one each way), and
     the all-to-alls' slices for other ranks. */
  const size_t planeb = P->plane * P->elem;
  P->bytes_sent = (P->rank > 0 ? planeb : 0) + (P->sep_row >= 0 ? planeb : 0);
  for (int r = 0; r < P->size; r++)
    if (r != P->rank)
      P->bytes_sent += ((size_t)P->scount[r] + (size_t)P->rcount[r]) * sizeof(pscr_z);
  /* Work space: the interior's v, planes, the all-to-all buffers. */
  const size_t nloc = (size_t)(P->ib - P->ia) * P->plane, nm = (size_t)(P->me - P->mb);
  /* The slab of an in-place solve's v (mpi_solve.c): refined solves solve
     their corrections in place, so they have it from the start. */
  const int two_solve = !P->modes && !P->dmodes;
  if (P->refine && nloc && two_solve)
    P->v = pscr_mpi_keep(P, nloc * P->elem);
  P->nplane = pscr_mpi_keep(P, 3 * P->plane * P->elem);
  if (P->local && P->local->backend == PSCR_BACKEND_CUDA && !P->dmodes &&
      !(P->dplanes = pscr_mpi_keep(P, 4 * P->plane * P->elem)))
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the device solve's planes");
  P->zplane = pscr_mpi_keep(P, 2 * P->plane * sizeof(pscr_z));
  P->zmodes = pscr_mpi_keep(P, ((size_t)(P->size - 1) * nm + 1) * sizeof(pscr_z));
  if ((P->refine && nloc && two_solve && !P->v) || !P->nplane || !P->zplane || !P->zmodes)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the distributed solve's work space "
                      "(%zu bytes)", nloc * P->elem + 3 * P->plane * P->elem);
  return PSCR_SUCCESS;
}

pscr_status pscr_mpi_plan_create(pscr_mpi_plan **plan, MPI_Comm comm, pscr_dtype dtype, int ndim,
                                 const pscr_pencil *pencils, const void *shift, int row_begin,
                                 int row_end, const pscr_options *opts)
{
  pscr_error_clear();
  if (!plan)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "plan is NULL");
  *plan = NULL;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "MPI is not initialized (call MPI_Init first)");
  if (comm == MPI_COMM_NULL)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "comm is MPI_COMM_NULL");
  pscr_mpi_plan *P = calloc(1, sizeof *P);
  if (!P)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate a distributed plan");
  if (MPI_Comm_dup(comm, &P->comm) != MPI_SUCCESS) {
    free(P);
    return PSCR_ERROR(PSCR_ERROR_DEVICE, "MPI_Comm_dup failed");
  }
  /* MPI failures come back as codes (pscr_mpi_error), not an abort. */
  MPI_Comm_set_errhandler(P->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(P->comm, &P->rank);
  MPI_Comm_size(P->comm, &P->size);
  pscr_options o;
  pscr_options_init(&o);
  if (opts)
    o = *opts;

  /* Local checks first; their status is agreed before anything that needs
     every rank's arguments. */
  pscr_status st = PSCR_SUCCESS;
  if (dtype != PSCR_R64 && dtype != PSCR_C64)
    st = dtype == PSCR_R32 || dtype == PSCR_C32
             ? PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "distributed plans take R64 or C64, not float "
                          "types")
             : PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown dtype %d", (int)dtype);
  else if (ndim != 2 && ndim != 3)
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "ndim is %d, must be 2 or 3", ndim);
  else if (!pencils || !shift)
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", pencils ? "shift" : "pencils");
  else if (o.refine < 0 || o.refine > PSCR_REFINE_MAX)
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "refine is %d, must be 0 .. %d", o.refine,
                    PSCR_REFINE_MAX);
  else if (o.refine_single)
    st = PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "refine_single: distributed plans refine in double "
                    "only");
  else if (o.device_only)
    st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "device_only is %d: distributed plans take host "
                    "arrays too, so they need device_only = 0", o.device_only);
  for (int d = 0; !st && d < ndim; d++)
    if (pencils[d].n < 1 || !pencils[d].a_diag || !pencils[d].m_diag ||
        (pencils[d].n > 1 && !pencils[d].a_off))
      st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "pencil %d: n is %d or a factor array is NULL",
                      d + 1, pencils[d].n);
  if (!st) {
    P->dtype = dtype;
    P->ndim = ndim;
    P->cplx = dtype == PSCR_C64;
    P->elem = P->cplx ? sizeof(pscr_z) : sizeof(double);
    for (int d = 0; d < 3; d++)
      P->n[d] = d < ndim ? pencils[d].n : 1;
    P->plane = (size_t)P->n[1] * (size_t)P->n[2];
    /* The same problem on every rank. */
    uint64_t h = pscr_problem_hash(dtype, ndim, pencils, shift, P->elem), lo = 0, hi = 0;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, P->comm);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, P->comm);
    if (lo != hi)
      st = PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "the pencils or the shift differ between ranks (their hashes differ): "
                      "every rank must pass the same global problem");
  } else {
    /* Match the other ranks' two hash reductions. */
    uint64_t h = (uint64_t)P->rank + 1, lo, hi;
    MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, P->comm);
    MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, P->comm);
  }
  st = pscr_mpi_agree(P->comm, P->rank, st);
  if (!st)
    st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_ranges(P, row_begin, row_end));
  /* Each stage's status is agreed before the next, which may exchange. */
  if (!st)
    st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_build(P, pencils, shift, row_begin, row_end, &o));
  if (!st && P->size > 1)
    st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_transverse_eigen(P, &o));
  if (!st && P->size > 1)
    st = pscr_mpi_agree(P->comm, P->rank, pscr_mpi_build_separators(P));
  if (!st && P->dmodes)
    st = pscr_mpi_device_exchange(P);
  if (st) {
    pscr_mpi_plan_destroy(P);
    return st;
  }
  *plan = P;
  return PSCR_SUCCESS;
}

pscr_status pscr_mpi_plan_info_size(const pscr_mpi_plan *P, pscr_mpi_info *out, size_t size)
{
  pscr_error_clear();
  if (!P || !out)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "%s is NULL", P ? "info" : "plan");
  if (size < sizeof(pscr_mpi_info))
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "size is %zu, below the %zu bytes of pscr 0.2's "
                      "pscr_mpi_info", size, sizeof(pscr_mpi_info));
  pscr_mpi_info info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  info.ranks = P->size;
  info.rank = P->rank;
  info.row_begin = P->row_begin;
  info.row_end = P->row_begin + (int)P->rows;
  info.separator = P->sep_row;
  info.mode_begin = P->mb;
  info.mode_end = P->me;
  info.bytes_sent = P->bytes_sent;
  info.local_seconds = P->t_local;
  info.exchange_seconds = P->t_exchange;
  info.separator_seconds = P->t_separator;
  info.slab_margin = P->size > 1 ? P->slab_margin : 1.0;
  info.device_nccl = P->nccl;
  pscr_status st = P->local ? pscr_plan_info(P->local, &info.local) : PSCR_SUCCESS;
  info.device_bytes = info.local.device_bytes;
  info.host_bytes = P->host_bytes + info.local.workspace_bytes;
  if (P->dctx) {
    size_t dev = 0, pinned = 0;
    P->local->ops->modes_bytes(P->dctx, &dev, &pinned);
    info.device_bytes += dev;
    info.host_bytes += pinned;
  }
  memset(out, 0, size);
  memcpy(out, &info, sizeof info);
  return st;
}

void pscr_mpi_plan_destroy(pscr_mpi_plan *P)
{
  if (!P)
    return;
  if (P->dctx)
    P->local->ops->modes_destroy(P->dctx);
  pscr_plan_destroy(P->local);
  free(P->pencil_storage);
  for (int d = 0; d < 2; d++) {
    free(P->E[d]);
    free(P->lam[d]);
    free(P->sscale[d]);
    free(P->Er[d]);
  }
  free(P->sine_scratch);
  free(P->mode_planes);
  free(P->mode_ip);
  free(P->mode_rows);
  free(P->sep);
  free(P->mcount);
  free(P->inv_piv);
  free(P->sup);
  free(P->v);
  free(P->nplane);
  free(P->zplane);
  free(P->zmodes);
  free(P->ext);
  free(P->r);
  free(P->fcopy);
  free(P->dplanes);
  free(P->hslab);
  MPI_Comm_free(&P->comm);
  free(P);
}
