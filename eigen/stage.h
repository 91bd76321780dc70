/*
 * The eigenvector stage's parts that do not depend on the scalar type
 * (pipeline_impl.h and the files it drives): the team of threads that
 * sweeps a batch (barriers, fixed row segments), the books of the ring of
 * recent eigenvectors, the random starts of inverse iteration, and the
 * schedule's arithmetic (threads, chunks of batches, the split of the
 * spectrum). What the kernels call per block of rows is inline here, as is
 * the ring's growth (eig_ring_reserve says why); the rest is in stage.c.
 *
 * Included once by eigen.c, before the type-generic files, and by stage.c.
 */
#ifndef PSCR_EIGEN_STAGE_H
#define PSCR_EIGEN_STAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The threads that sweep a batch together (pipeline_impl.h): the batch's rows
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

/* Ring of the most recent full eigenvectors (vbytes each, n entries of the
 * scalar type): vector k lives in slot k % cap while k >= (next index) -
 * cap (sweep_state_impl.h, ring_at, reads it). */
typedef struct eig_ring {
  void *v;
  int cap;
} eig_ring;

/* Make room for vectors first..j-1 plus j; returns 0 on allocation failure.
 * Inline, not in stage.c: called out of line, GCC compiled sweep_batch
 * (pipeline_impl.h), which inlines most of the sweep, differently, and
 * some complex eigenvectors changed in their last bits (glued clusters of
 * order 14 and more). */
static inline int eig_ring_reserve(eig_ring *r, size_t vbytes, int first, int j)
{
  int need = j - first + 1;
  if (need <= r->cap)
    return 1;
  int cap = r->cap ? r->cap : 8;
  while (cap < need)
    cap *= 2;
  char *v = malloc((size_t)cap * vbytes);
  if (!v)
    return 0;
  for (int k = first; r->cap > 0 && k < j; k++) /* (vectors not yet computed: garbage) */
    memcpy(v + (size_t)(k % cap) * vbytes, (const char *)r->v + (size_t)(k % r->cap) * vbytes,
           vbytes);
  free(r->v);
  r->v = v;
  r->cap = cap;
  return 1;
}

/* Random start in [-1, 1) (splitmix64, seeded by the eigenvalue index):
 * entry i of the start of index j is eig_splitmix_unit(i + j + 2), a
 * function of i + j alone (piv_produce builds sixteen starts from one
 * sequence that way; random_start in sweep_state_impl.h). */
static inline double eig_splitmix_unit(uint64_t k)
{
  uint64_t z = k * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return 2.0 * ((double)(z >> 11) * 0x1.0p-53) - 1.0;
}

/* The eigenvector sweep: by every thread, each on its rows, from
 * EIG_TEAM_MIN threads on; with fewer, by thread 0 alone while the others
 * produce the next batches (pipeline_impl.h, pipeline_part, says why).
 * mode 0 or 1: never or always (the tests compare both bitwise); other
 * values: by the thread count. */
#define EIG_TEAM_MIN 4
static inline int eig_team_on(int mode, int nt) { return mode >= 0 ? mode : nt >= EIG_TEAM_MIN; }

/* How pipeline_part cuts its batches for nt threads: chunks of nb batches
 * (nchunk of them), nbuf chunk buffers (produced, swept), and whether the
 * sweep is a team (team_mode as eig_team_on's mode). */
typedef struct eig_chunks {
  int nb, nbuf, nchunk, team;
} eig_chunks;
eig_chunks pscr_eig_chunks(int nbatch, int nt, int team_mode);

/* The threads of the eigenvector stage for order n: OpenMP's maximum,
 * or 1 for small orders and inside a parallel region. */
int pscr_eig_sweep_threads(int n);

/* Where the spectrum of order n splits in two for the pipeline (stage.c
 * says how): the real parts of the sorted eigenvalues are re[0],
 * re[stride], ...; tau the cluster window; mode 0 never, 1 wherever a
 * window boundary exists, other values where it balances. Returns 0 for
 * no split. */
int pscr_eig_split_point(int n, const double *re, size_t stride, double tau, int mode);

#endif
