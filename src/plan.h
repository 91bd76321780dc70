/* The plan object: everything a solve needs, built once (docs/design.md). */
#ifndef PSCR_PLAN_H
#define PSCR_PLAN_H

#include <stddef.h>

#include "backend.h"
#include "kron.h"
#include "levels.h"
#include "pscr.h"

struct pscr_plan {
  pscr_dtype dtype; /* the caller's type: f, u and the solve's arithmetic */
  int cplx;         /* C64 or C32 */
  int single;       /* R32 or C32: built in double, applied in float */
  int ndim;
  int n[3];     /* n[2] = 1 in 2D */
  size_t total; /* n1 n2 (n3) */
  size_t elem;  /* bytes per element of dtype */
  size_t celem; /* bytes per element of the compute type (double or double complex) */
  pscr_options opts;
  pscr_backend backend; /* resolved: CPU or CUDA */
  int nthreads;         /* CPU threads used by a solve */

  /* Owned copies of the factors in double or double complex (the compute
     type); off-diagonals always present (zeros when the caller passed NULL). */
  void *factor_storage;
  pscr_factor_d fac_d[3];
  pscr_factor_z fac_z[3];
  double shift[2]; /* c as (re, im) */

  /* Single precision (R32, C32): the balanced factors rounded to float, which
     the solve applies; fac_d / fac_z keep the double originals. */
  void *apply_storage;
  pscr_factor_s fac_s[3];
  pscr_factor_c fac_c[3];

  /* Reduction structure and eigen data of dimensions 1 .. ndim-1 (0-based:
     0 .. ndim-2): lambda[neig], w[neig * PSCR_W_SLOTS]. Computed in the
     compute type; in a single-precision plan rounded to float in place once
     the eigen stage is done (pscr_plan_create), so that from then on they
     have the plan's dtype, as everything a solve reads. */
  pscr_levels lv[2];
  void *lambda[2];
  void *w[2];
  /* The method of each reduced dimension (never AUTO). A transformed
     dimension d has no levels (lv[d] zeroed): lambda[d] holds its n_d
     eigenvalues and w[d] its n_d x n_d eigenvectors, row e the eigenvector
     of lambda_e (W^T as a row-major matrix). */
  pscr_method method[2];
  /* Reduced dimensions whose pencil is a real symmetric Toeplitz pair,
     A_d = tridiag(a, b, a) and M_d = tridiag(m, g, m) positive definite
     (every uniform mesh): the DST-I vectors diagonalize both
     (docs/design.md, "Sine transforms"), so a transform of it takes its
     eigenpairs in closed form and a backend may apply it by a fast sine
     transform (pscr_plan_sine_fast). Set from the balanced factors. */
  int sine_pencil[2];
  /* A transformed sine pencil's eigenvector scales: w_k(j) = s_k sin(pi j k
     / (n_d + 1)), n_d reals in the plan's precision (float in single
     plans); NULL for any other dimension. */
  void *sine_scale[2];

  /* The backend that runs the levels, and its private data (workspace,
     device state, what it chose). */
  const pscr_backend_ops *ops;
  void *backend_data;

  size_t host_bytes, device_bytes;
  /* A skeleton of pscr_plan_build: backend and methods only, nothing to
     solve with. */
  int skeleton;

  /* The planner's record (planner.c; pscr_info.candidate, .chosen). */
  int ncand, chosen;
  pscr_candidate cand[4];
  /* The accuracy probe of each transformed dimension (pscr_transform_defect). */
  double defect[2];
  double plan_seconds;

  /* pscr_options.refine (refine.c): the host buffers of a refined solve,
     allocated with the plan when refine > 0. */
  void *refine_storage;
  void *refine_f;  /* total elements of dtype: f of an in-place solve */
  void *refine_r;  /* total elements of dtype: the residual, then the correction */
  void *refine_wu; /* float plans: total compute-type elements, u widened */
  void *refine_au; /* total compute-type elements: A u */
  /* options.refine_single: the float plan of the same pencils that solves
     the corrections (refine.c); NULL otherwise. */
  struct pscr_plan *refine_plan;
};

/* The refinement of pscr_options.refine (refine.c). */
pscr_status pscr_refine_setup(pscr_plan *p);
/* A solve of host arrays followed by opts.refine refinement steps. */
pscr_status pscr_refine_solve(pscr_plan *p, const void *f, void *u);

/* What pscr_plan_create was given, validated. */
typedef struct pscr_plan_args {
  pscr_dtype dtype;
  int ndim;
  const pscr_pencil *pencils;
  const void *shift;
} pscr_plan_args;

/* Build a plan of a's problem with options o (validated), its AUTO methods
   resolved by pscr_choose_methods. skeleton: stop once the methods are
   chosen (backend selected, factors and levels in place; no eigenproblem,
   no backend setup): the planners read the candidates from it. */
pscr_status pscr_plan_build(pscr_plan **plan, const pscr_plan_args *a, const pscr_options *o,
                            int skeleton);
/* pscr_plan_create's checks, then the skeleton of pscr_plan_build: for a
   caller that needs the backend a plan would run on (its ops, its device)
   but solves by other means (mpi_modes.c). pscr_plan_info describes it,
   with no bytes; it must not be solved with. */
pscr_status pscr_plan_skeleton(pscr_plan **plan, pscr_dtype dtype, int ndim,
                               const pscr_pencil *pencils, const void *shift,
                               const pscr_options *opts);

/* planner.c: resolve p->method's AUTO entries (the levels of every
   dimension not forced to a transform exist on entry) and record the
   candidates; plan a's problem with the planner of o; the probe of a
   transformed dimension's eigenvectors. */
pscr_status pscr_choose_methods(pscr_plan *p);
pscr_status pscr_plan_planned(pscr_plan **plan, const pscr_plan_args *a, const pscr_options *o);
double pscr_transform_defect(const pscr_plan *p, int d);

/* Whether a backend may apply dimension d's transform by the fast sine
   transform (sine.h): a sine pencil of a supported order, and the plan's
   flags allow it (PSCR_FLAG_NO_SINE). Whether one does is the backend's
   choice (pscr_info.transform_sine). */
int pscr_plan_sine_fast(const pscr_plan *p, int d);

/* Fill f (p->total entries of p's dtype) with the fixed values that
   MEASURE's timed solves use. */
void pscr_plan_probe_values(const pscr_plan *p, void *f);

/* Slab length below dimension d: prod_{e > d} n_e. */
static inline size_t pscr_plan_slab(const pscr_plan *p, int d)
{
  size_t s = 1;
  for (int e = d + 1; e < p->ndim; e++)
    s *= (size_t)p->n[e];
  return s;
}

#endif
