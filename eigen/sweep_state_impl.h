/*
 * Shared state of the eigenvector stage: its inputs (ictx), a batch of
 * sixteen vectors (tbatch), the sweep's state and scratch (sweep), a
 * failure's details (ifail), access to the ring of the most recent
 * eigenvectors that Gram-Schmidt reads, and the random starts of inverse
 * iteration (their parts that do not depend on the scalar type: stage.h).
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

/* Shared inputs of the eigenvector stage. lambda0: the eigenvalues as they
 * came in (read by the producers of twisted batches, while the sweep may
 * refine lambda). */
typedef struct EIG(ictx) {
  int n, nsel;
  const EIG_T *ad, *ao, *md, *mo;
  EIG_T *lambda, *w;
  const EIG_T *lambda0;
  const int *sel;
  double anorm, mnorm, tnorm;
  double tau, tight, pertol; /* window, tight cluster, shift perturbation */
  int team, split;           /* the sweep as a team, the split (pscr_eigen_config) */
} EIG(ictx);

/* A batch of twisted vectors for eigenvalues j0..j0+cnt-1: the vectors
 * (EIG_TW_NV n lane vectors), whether each lane was accepted, and its
 * (complex: possibly refined) eigenvalue. */
typedef struct EIG(tbatch) {
  EIG(v) *z;
  int j0, cnt, ok[EIG_TW_LANES];
  EIG_T lam[EIG_TW_LANES];
} EIG(tbatch);

/* Ring of the most recent full eigenvectors (stage.h keeps its books). */
static inline EIG_T *EIG(ring_at)(eig_ring *r, int n, int k)
{
  return (EIG_T *)r->v + (size_t)(k % r->cap) * n;
}

/* Random start of index j (eig_splitmix_unit, stage.h). */
static void EIG(random_start)(int n, int j, EIG_T *x)
{
  for (int i = 0; i < n; i++)
    x[i] = eig_splitmix_unit((uint64_t)i + (uint64_t)j + 2u);
}

/* State of the sweep over the eigenvectors, shared by its threads. */
typedef struct EIG(sweep) {
  eig_ring ring;
  EIG_T *work;    /* 14 n: LU factors, x, y, coefficients */
  EIG(v) *bcoef;  /* block coefficients: EIG_TW_NV n lane vectors */
  eig_vm *member; /* block window masks: EIG_TW_NV n */
  unsigned char *ip;
  int *win;
  int *gact;      /* block_orth's active lane vectors per group of vectors: n */
  /* Per segment partial sums: block coefficients (segc_cap vectors of
   * EIG_TW_NV lane vectors per segment), the run's Gram rows (EIG_TW_LANES
   * + 1 rows of EIG_TW_NV), norms (EIG_SN_N EIG_TW_NV per segment). */
  EIG(v) *segc, *segg;
  eig_vd *segn;
  int segc_cap;
  /* Thread 0's serial results, read by all after a barrier. */
  int okb[EIG_TW_LANES], lkind[EIG_TW_LANES], kf, bad;
  EIG_T sigma_prev;
  int refined;
  int g0; /* the part's first index (vectors_pipeline): no window reaches before it */
} EIG(sweep);

/* Failure, reported by the calling thread (the detail message is
 * thread-local). kind: 1 breakdown, 2 no convergence, 3 isotropic,
 * 4 allocation. */
typedef struct EIG(ifail) {
  int kind, j;
  EIG_T lam, s;
  double val;
} EIG(ifail);

/* sw zeroed by the caller; sweep_free undoes a partial success. */
static int EIG(sweep_init)(EIG(sweep) * sw, int n)
{
  sw->work = malloc((size_t)14 * (size_t)n * sizeof(EIG_T));
  sw->bcoef = aligned_alloc(64, (size_t)EIG_TW_NV * (size_t)n * sizeof(EIG(v)));
  sw->member = aligned_alloc(64, (size_t)EIG_TW_NV * (size_t)n * sizeof(eig_vm));
  sw->ip = malloc((size_t)n);
  sw->win = malloc((size_t)n * sizeof(int));
  sw->gact = malloc((size_t)n * sizeof(int));
  sw->segc_cap = 64;
  sw->segc = aligned_alloc(64, (size_t)EIG_SWEEP_SEGS * sw->segc_cap * EIG_TW_NV *
                                   sizeof(EIG(v)));
  sw->segg = aligned_alloc(64, (size_t)EIG_SWEEP_SEGS * (EIG_TW_LANES + 1) * EIG_TW_NV *
                                   sizeof(EIG(v)));
  sw->segn = aligned_alloc(64, (size_t)EIG_SWEEP_SEGS * EIG_SN_N * EIG_TW_NV * sizeof(eig_vd));
  return sw->work && sw->bcoef && sw->member && sw->ip && sw->win && sw->gact && sw->segc &&
         sw->segg && sw->segn;
}

static void EIG(sweep_free)(EIG(sweep) * sw)
{
  free(sw->ring.v);
  free(sw->work);
  free(sw->bcoef);
  free(sw->member);
  free(sw->ip);
  free(sw->win);
  free(sw->gact);
  free(sw->segc);
  free(sw->segg);
  free(sw->segn);
}
