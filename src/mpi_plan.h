/* The distributed plan (pscr_mpi.h; mpi_plan.c builds it, mpi_solve.c solves). */
#ifndef PSCR_MPI_PLAN_H
#define PSCR_MPI_PLAN_H

#include <stddef.h>

#include "pscr_mpi.h"
#include "scalar.h"

struct pscr_mpi_plan {
  MPI_Comm comm; /* the caller's, duplicated */
  int rank, size;
  pscr_dtype dtype;
  int ndim, cplx;
  size_t elem;  /* bytes per element of dtype */
  int n[3];     /* global sizes; n[2] = 1 in 2D */
  size_t plane; /* n2 n3: a plane of dimension 1 */
  int sep_row;  /* this rank's separator (its last row), -1 on the last rank */
  int left_sep; /* the previous rank's separator, -1 on rank 0 */
  int ia, ib;   /* this rank's interior rows [ia, ib) */
  int nthreads; /* the plane operators' threads (pscr_options.num_threads) */
  size_t rows;  /* this rank's rows, end - begin */
  int refine;   /* pscr_options.refine: steps after each solve */
  int *sep;     /* every separator row, size - 1 of them */
  pscr_plan *local; /* the interior's plan; NULL where the interior is empty;
                       planned only in the one-pass forms (below) */

  /* Owned copies of the pencils in dtype, and dimension 1's factors in
     double complex (the separators' 1D matrices; M's NULL off-diagonal as
     zeros). */
  void *pencil_storage;
  pscr_pencil pen[3];
  pscr_z *a1d, *a1o, *m1d, *m1o;
  unsigned char shift[sizeof(pscr_z)]; /* c in dtype */
  pscr_z c;

  /* The transverse pencils' eigenpairs (ndim - 1 of them): E[d] row e the
     eigenvector of lam[d][e], W^T M W = I. Mode m = (i, k) of a plane has
     sigma = lam[0][i] + lam[1][k], m = i n3 + k. */
  pscr_z *E[2], *lam[2];
  /* How a separator plane is transformed (mpi_solve.c): sine = 1 when
     every transverse pencil is a sine pencil of a supported order (plan.h,
     sine.h): by the fast sine transform, E[d] row k being sscale[d][k]
     sin(pi j k / (n + 1)); otherwise real plans by real products with Er
     (E's real parts) and complex ones by complex products with E.
     sine_scratch: sine_nt threads' scratch (sine.h). */
  int sine, sine_nt;
  double *sscale[2], *Er[2], *sine_scratch;
  /* The one-pass solve (mpi_modes.c): modes = 1 where host solves take it
     (CPU ranks, more than one, unless PSCR_FLAG_MPI_LOCAL_PLANS); its
     threads, five planes of dtype (the interior's end entries, the
     exchanged terms, the previous separator), and per thread the inverse
     pivots of a chunk of modes (interior rows x 64 compute-type values). */
  int modes, mode_nt;
  void *mode_planes, *mode_ip;
  /* Per thread a block of mode_block rows of mode_len compute-type values
     (the transforms along the contiguous dimension, mpi_modes.c; mode_len
     = n2 in 2D, n3 in 3D); sine_order: the largest transverse order. */
  void *mode_rows;
  size_t mode_len, mode_block;
  int sine_order;

  /* The one-pass solve on device arrays (mpi_modes.c): dmodes = 1 where
     every rank has a CUDA local plan (unless PSCR_FLAG_MPI_LOCAL_PLANS;
     host arrays go through a device slab, pscr_mpi_solve_staged); the
     backend's context (backend.h's modes_*), its three device planes and
     six pinned host planes of dtype. In both one-pass forms the local
     plan is a skeleton (pscr_plan_skeleton): the backend and its device. */
  int dmodes;
  void *dctx, *dev_planes, *host_planes;
  /* nccl = 1 where the backend exchanges between the ranks' devices
     itself (modes_separators; one rank per device): the separators' steps
     then run on the device too. */
  int nccl;

  /* Modes: rank r owns [moff[r], moff[r] + mcount[r]); this rank [mb, me).
     The all-to-all counts and displacements (in modes) of the forward
     exchange; the backward one swaps send and receive. */
  int *mcount, *moff, *scount, *sdispl, *rcount, *rdispl;
  int mb, me;
  /* Per own mode k, the separators' system factored (size - 1 entries
     each, at k (size - 1)). */
  pscr_z *inv_piv, *sup;
  double slab_margin; /* pscr_mpi_info.slab_margin */

  /* Work space of a solve. */
  void *v;        /* an in-place solve's first interior solve (else in u) */
  void *nplane;   /* three planes of dtype */
  pscr_z *zplane; /* two planes of double complex */
  pscr_z *zmodes; /* (size - 1) x own modes */
  /* Refinement (refine > 0): u and A u with a halo plane on each side,
     the residual / correction, f of an in-place solve. */
  void *ext, *r, *fcopy;
  /* Device solves (a CUDA local plan): four host planes (fs, vf, vl, us). */
  void *dplanes;
  /* Refined device solves: a host slab of dtype (made at the first). */
  void *hslab;

  /* pscr_mpi_info: bytes sent per solve, and the last solve's seconds per
     stage (mpi_solve.c adds to them as it goes). */
  size_t bytes_sent;
  size_t host_bytes; /* what pscr_mpi_keep allocated */
  int row_begin;
  double t_local, t_exchange, t_separator;
};

/* malloc, counted in P->host_bytes (pscr_mpi_info.host_bytes): the
   plan's lasting buffers (mpi_plan.c). */
void *pscr_mpi_keep(pscr_mpi_plan *P, size_t bytes);

/* Every rank's status agreed: the lowest failing rank's status and message
   on every rank. */
pscr_status pscr_mpi_agree(MPI_Comm comm, int rank, pscr_status st);

/* The eigenvalue of transverse mode m: sigma = lambda2_i (+ lambda3_k),
   m = i n3 + k (mpi_plan.c). */
pscr_z pscr_mpi_mode_sigma(const pscr_mpi_plan *P, size_t m);

/* mpi_solve.c, shared with the one-pass solve (mpi_modes.c): */
/* Add the seconds since t0 to *acc; returns now. */
double pscr_mpi_lap(double *acc, double t0);
/* An MPI return code as a status naming the call. */
pscr_status pscr_mpi_error(int rc, const char *what);
/* A plane of dtype to the transverse modes (back = 0) or from them, in
   place (work: a plane of dtype); sine pencils and real plans only. */
void pscr_mpi_transform_plane(const pscr_mpi_plan *P, int back, void *x, void *work);
/* The same for a complex plan's plane of double complex (work: a plane). */
void pscr_mpi_transform(const pscr_mpi_plan *P, int back, pscr_z *z, pscr_z *work);
/* Step 3 in the modes: z, this rank's separator's right-hand side in the
   modes (where it has one), becomes the separator's solution: the two
   all-to-alls and this rank's share of the per-mode Schur systems. */
pscr_status pscr_mpi_separator_modes(pscr_mpi_plan *P, pscr_z *z);
/* The one-pass solve in the transverse modes (mpi_modes.c; P->modes). */
pscr_status pscr_mpi_solve_modes(pscr_mpi_plan *P, const void *f, void *u);
/* The same on device arrays (P->dmodes): its context from the local
   plan's backend, made while P->E holds the eigenvectors; the solve. */
pscr_status pscr_mpi_device_modes_create(pscr_mpi_plan *P);
/* The exchanges between devices where the backend has them (P->nccl);
   collective; fails only where MPI does. */
pscr_status pscr_mpi_device_exchange(pscr_mpi_plan *P);
pscr_status pscr_mpi_solve_device_modes(pscr_mpi_plan *P, const void *f, void *u, void *stream);
/* Host arrays in that form: through the backend's device slab. */
pscr_status pscr_mpi_solve_staged(pscr_mpi_plan *P, const void *f, void *u);

#endif
