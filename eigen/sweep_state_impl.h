/*
 * Shared state of the eigenvector stage: its inputs (ictx), a batch of
 * sixteen vectors (tbatch), the team of threads that sweeps, the sweep's
 * state and scratch (sweep), a failure's details (ifail), the ring of the
 * most recent eigenvectors that Gram-Schmidt reads, and the random starts
 * of inverse iteration.
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
} EIG(ictx);

/* A batch of twisted vectors for eigenvalues j0..j0+cnt-1: the vectors
 * (EIG_TW_NV n lane vectors), whether each lane was accepted, and its
 * (complex: possibly refined) eigenvalue. */
typedef struct EIG(tbatch) {
  EIG(v) *z;
  int j0, cnt, ok[EIG_TW_LANES];
  EIG_T lam[EIG_TW_LANES];
} EIG(tbatch);

#ifndef EIG_TEAM_DEFINED
#define EIG_TEAM_DEFINED
/*
 * The threads that sweep together (vectors_pipeline): the batch's rows
 * split into EIG_SWEEP_SEGS fixed segments (whole blocks of 32 rows),
 * thread tid of nt taking segments tid S / nt .. (tid + 1) S / nt - 1,
 * always the same rows. Sums over the rows are formed per segment and
 * added in segment order, so the result does not depend on nt (a team of
 * one, thread 0 sweeping alone, gives the same bits). Every thread takes
 * the same branches (decisions come from the added sums); what writes
 * shared state runs on thread 0 between barriers.
 */
#define EIG_SWEEP_SEGS 16
typedef struct eig_team {
  int tid, nt;
} eig_team;

static inline void eig_team_sync(const eig_team *tm)
{
#ifdef _OPENMP
  if (tm->nt > 1) {
#pragma omp barrier
  }
#else
  (void)tm;
#endif
}

/* First row of segment s (s = EIG_SWEEP_SEGS: n). */
static inline int eig_seg_row(int n, int s)
{
  const long nblk = (n + 31) / 32;
  const int r = (int)(s * nblk / EIG_SWEEP_SEGS) * 32;
  return r < n ? r : n;
}

/* The thread's segments s0..s1-1. */
static inline void eig_team_segs(const eig_team *tm, int *s0, int *s1)
{
  *s0 = tm->tid * EIG_SWEEP_SEGS / tm->nt;
  *s1 = (tm->tid + 1) * EIG_SWEEP_SEGS / tm->nt;
}

/* Items lo..hi-1 of cnt that the thread takes in a split (reductions). */
static inline void eig_team_share(const eig_team *tm, int cnt, int *lo, int *hi)
{
  *lo = (int)((long)tm->tid * cnt / tm->nt);
  *hi = (int)((long)(tm->tid + 1) * cnt / tm->nt);
}

/* Per segment partial norms and maxima (eig_vd slots per segment): max
 * and sum of |z| before and after block_orth, V's largest entry and its
 * row in run_finish. */
enum { EIG_SN_MB, EIG_SN_SB, EIG_SN_MA, EIG_SN_SA, EIG_SN_VMAX, EIG_SN_IMAX, EIG_SN_N };
#endif

/* Ring of the most recent full eigenvectors (n entries each): vector k lives
 * in slot k % cap while k >= (next index) - cap. */
typedef struct EIG(ring) {
  EIG_T *v;
  int cap;
} EIG(ring);

/* Make room for vectors first..j-1 plus j; returns 0 on allocation failure. */
static int EIG(ring_reserve)(EIG(ring) * r, int n, int first, int j)
{
  int need = j - first + 1;
  if (need <= r->cap)
    return 1;
  int cap = r->cap ? r->cap : 8;
  while (cap < need)
    cap *= 2;
  EIG_T *v = malloc((size_t)cap * (size_t)n * sizeof(EIG_T));
  if (!v)
    return 0;
  for (int k = first; r->cap > 0 && k < j; k++) /* (vectors not yet computed: garbage) */
    memcpy(v + (size_t)(k % cap) * n, r->v + (size_t)(k % r->cap) * n,
           (size_t)n * sizeof(EIG_T));
  free(r->v);
  r->v = v;
  r->cap = cap;
  return 1;
}

static EIG_T *EIG(ring_at)(EIG(ring) * r, int n, int k)
{
  return r->v + (size_t)(k % r->cap) * n;
}

/* Random start in [-1, 1) (splitmix64, seeded by the eigenvalue index):
 * entry i of the start of index j is eig_splitmix_unit(i + j + 2), a
 * function of i + j alone (piv_produce builds sixteen starts from one
 * sequence that way). */
#ifndef EIG_SPLITMIX_DEFINED
#define EIG_SPLITMIX_DEFINED
static inline double eig_splitmix_unit(uint64_t k)
{
  uint64_t z = k * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0;
}
#endif

static void EIG(random_start)(int n, int j, EIG_T *x)
{
  for (int i = 0; i < n; i++)
    x[i] = eig_splitmix_unit((uint64_t)i + (uint64_t)j + 2u);
}

/* State of the sweep over the eigenvectors, shared by its threads. */
typedef struct EIG(sweep) {
  EIG(ring) ring;
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
