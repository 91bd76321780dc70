// Internal state of the CUDA backend, shared by its translation units:
// cuda_setup.cu (allocation, upload, teardown), cuda_solve.cu (the level
// driver, device-array solves, profiling) and cuda_host.cu (host-array
// solves through pinned staging). Not part of the public API.
#ifndef PSCR_CUDA_STATE_CUH
#define PSCR_CUDA_STATE_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <string.h>

#include "cuda_args.cuh"
#include "cuda_view.h"
#include "partition.cuh"

namespace pscr_cuda {

// Device tables and workspace of one dimension d (0 .. ndim-2). A
// transformed dimension of a mixed 3D vector (transform: T x R at d = 0,
// R x T at d = 1) has no levels: lam holds its n eigenvalues, w its E = W^T
// (n x n, row-major), and at d = 0 shifts the n shifts c + lambda_k of
// dimension 2's problems.
struct DimState {
  int transform;
  int n, k;
  size_t S;          // slab length below d
  size_t neig;       // eigenpairs over all levels
  int nblk, njl;
  pscr_cuda_level_view *lvl; // host copy, k entries
  int *lit0, *lnit;          // host, per level: first item (in items) and item count
  int *ldirect;              // host, per level: every block is a single item
  int *lemax;                // host, per level: the longest item (eigenpairs)
  int *lfused;               // host, per level: level 3 adds up the sums (part_sum.cuh)
  int nitem, max_nit;
  int item_sums;             // partial sums per item in `part`: 3, or 4 (merged top level)
  int *blk, *eblk, *jl;      // device tables
  int *items, *bitem;        // device: reduction items (3 ints), per block first item, count
  void *lam, *w;             // device eigen data
  // Workspace of the dimension's largest batch: max_batch at the top
  // dimension, max_batch times the outer max_ne below it.
  void *v;      // level solutions: batch * max_ne * S
  void *lr;     // L_B|R_B or gL|gR: batch * max_nb * 2 * S
  void *part;   // reduction partial sums: batch * max_nit * item_sums * S
  void *shifts; // subproblem shifts (dimensions below ndim-2 only)
};

enum { MAX_ALLOCS = 48 };

// Profiling mode (pscr_solve_device_profile): an event after every launch,
// tagged with the stage kind (pscr_stage) of that launch. NULL in State
// during normal solves, so they record nothing.
struct Prof {
  cudaEvent_t *ev;
  int *kind;
  size_t n, cap;
  bool overflow;   // more launches than the cost model counts
  cudaError_t err; // the first failed record
};

// Host-array solves of more than STAGE_MIN bytes copy pageable f and u through
// two pinned buffers of STAGE_CHUNK bytes, the host copy of one chunk
// overlapping the transfer of the other (H100, 4096^2 double: the host API
// time fell from 27 to about 12 ms).
constexpr size_t STAGE_CHUNK = (size_t)8 << 20;
constexpr size_t STAGE_MIN = (size_t)4 << 20;

struct State {
  int device, cplx, ndim, n[3];
  int single;          // R32 / C32: every device array holds float data
  size_t total, elem;
  cudaStream_t stream; // private stream of the host-array solve
  void *fac[3];        // 4 n_d entries per dimension
  void *cs0;           // max_batch copies of the shift c: the top dimension's cs[b]
  int *flag;           // singular-pivot flag: set by the level-3 kernels, cleared only
                       // by probe_pivots (the pivots depend on the plan, never on f)
  int pivots_bad;      // probe_pivots: the solve's pivots fail; every solve fills u
                       // with NaN (k_nan_if_flag), the host solves report it
  int max_batch;       // pscr_options.max_batch: right-hand sides per launch sequence
  void *xbuf;          // max_batch * total entries: the host solve's device copy of f / u
  void *cp;            // Thomas multipliers of the last-but-one dimension (serial path)
  int rows;            // level-3 solver: rows per thread of k_part, 0: serial Thomas
  int rows_chosen;     // choose_rows' choice (rows, unless probe_pivots fell back to 0)
  int part_p;          // k_part threads per system
  int part_mdiag;      // the last dimension's M_l is diagonal: k_part skips m_off
  int part_toep;       // A_l, M_l Toeplitz but for the end rows (complex: with ptab_on): ToepFacs
  unsigned flags;      // pscr_options.flags (the PSCR_FLAG_CUDA_* switches)
  int pair_mode;       // -1 part_pair's rule, 0 never, 1 always (PSCR_FLAG_CUDA_PAIR_*)
  int stage_facs;      // k_part stages small factor tables in shared memory (staged_facs)
  int pcr_refine_all;  // k_part refines every boundary system (PSCR_FLAG_CUDA_PCR_REFINE_ALL)
  int couple_mode;     // -1 couple_grid's rule, 0 one entry per thread, 1 COUPLE_PER
                       // entries wherever the slabs have them (PSCR_FLAG_CUDA_COUPLE_*)
  int fuse_slots;      // 2D: slots of k_part_sum on the device (the back kernel's when
                       // fuse_back, else the forward one's), 0: sums unfused
                       // (PSCR_FLAG_CUDA_FUSE_NEVER, or 3D, or no k_part)
  int fuse_min;        // shortest fused item (pscr_cuda_fused_eigs); 0: PSCR_FLAG_CUDA_FUSE_ALL
  int fuse_pair[2];    // k_part_sum pairs systems: forward [0], back [1] (part_sum_plan)
  int fuse_back;       // the back substitution's fused levels fuse too (else forward only)
  int fuse_back4;      // so does a back level with four sums (merged top level, real types)
  int part_res[2];     // staged factors: k_part blocks per SM, unpaired [0] / paired [1]
  int sum_res[2][3];   // and k_part_sum's, [pair][sums - 2] (part_resident; 0: unknown)
  int sms;             // multiprocessors of the device
  int sm_threads;      // resident threads per multiprocessor (2048 on H100, 1536 on some)
  int pdl;             // kernels may start early (launch.cuh; pdl_supported)
  mutable int pdl_armed; // 0 until a solve's first kernel is launched (pdl_take)
  int nthreads;        // host threads for the staging copies
  void *pin[2];        // pinned staging buffers, STAGE_CHUNK bytes each (host solves)
  cudaEvent_t pin_done[2]; // the last transfer from/to pin[i] finished
  void *pfac;          // k_part factors of the last dimension (PartFacs), 4 P rows entries
  void *ptoep;         // their row-class table (ToepFacs), PART_TOEP_ENTRIES entries
  void *ptab;          // 2D Toeplitz plans only: k_part's pivot table (partition.cuh),
                       // part_tab_stride(rows) entries per eigenpair of dim[0]
  int ptab_on;         // ptab holds the current factors' table: k_part takes ToepTabFacs
  DimState dim[2];
  // Mixed 3D vectors (a dimension transformed, dim[d].transform): the
  // products on cuBLAS, and the transform's workspace tfw: T x R one
  // right-hand side's E1 F (total entries), R x T the outer levels'
  // subproblems E2 X (max_batch max_ne n2 n3, as dim[0].v).
  cublasHandle_t blas;
  void *blas_ws;                   // the handle's workspace, BLAS_WORKSPACE bytes
  void *tfw;
  mutable cublasStatus_t blas_err; // a solve's failed product, for solve_on_stream
  Prof *prof;          // non-NULL only inside pscr_cuda_state_solve_profile
  void *mem[MAX_ALLOCS];
  int nmem;
  size_t bytes;
};

// Whether the next kernel of a solve may start early (launch.cuh): never the
// first one of a solve_on_stream call (pdl_armed cleared there). The stream
// work before it is the caller's (copies, memsets, event waits, other
// libraries' kernels); how an early launch orders against a predecessor that
// is not one of our grids is the driver's business, and a device solve into
// memory just memset on the same stream once came out wrong while another
// process shared the GPU (H100, 2026-11-25).
// Without the attribute the first kernel is in plain stream order after all
// of it. Every later kernel follows one of ours, and its pdl_gate waits for it.
inline bool pdl_take(const State *s)
{
  const bool early = s->pdl && s->pdl_armed;
  s->pdl_armed = 1;
  return early;
}

// A NEVER/ALWAYS pair of pscr_options.flags as a mode: 0 never, 1 always,
// -1 the automatic rule (pscr_plan_create has refused both bits at once).
inline int flag_mode(unsigned flags, unsigned never, unsigned always)
{
  return (flags & never) ? 0 : (flags & always) ? 1 : -1;
}

// Whether k_part (and k_part_sum) of M rows per thread stage the plan's
// factor table (StagedFacs): where part_stages holds for the plan's P,
// unless PSCR_FLAG_CUDA_NO_STAGE (State::stage_facs). ToepFacs come first where
// part_toep_used (which needs a table too large to stage).
inline bool staged_facs(const State *s, int M, size_t es)
{
  return s->stage_facs && part_stages(s->part_p, M, es);
}

// Profiling mode: record that the launch just enqueued belongs to `kind`.
inline void mark(const State *s, int kind, cudaStream_t stream)
{
  Prof *p = s->prof;
  if (!p)
    return;
  if (p->n == p->cap) {
    p->overflow = true;
    return;
  }
  cudaError_t e = cudaEventRecord(p->ev[p->n], stream);
  if (e != cudaSuccess && p->err == cudaSuccess)
    p->err = e;
  p->kind[p->n++] = kind;
}

template <class T> Facs<T> facs_of(const State *s)
{
  FacDim<T> D[3];
  memset(D, 0, sizeof D);
  for (int d = 0; d < 3; d++) {
    D[d].n = s->n[d];
    if (d < s->ndim) {
      const T *base = (const T *)s->fac[d];
      const size_t n = (size_t)s->n[d];
      D[d].ad = base;
      D[d].ao = base + n;
      D[d].md = base + 2 * n;
      D[d].mo = base + 3 * n;
    }
  }
  Facs<T> F;
  memset(&F, 0, sizeof F);
  F.f0 = D[0];
  F.f1 = D[1];
  F.f2 = D[2];
  F.ndim = s->ndim;
  return F;
}

// Level i of dimension d; xs, fs: distances between the batch vectors of
// x and of the level's sources.
template <class T> LevelArgs<T> level_of(const State *s, int d, int i, size_t xs, size_t fs)
{
  const DimState &D = s->dim[d];
  const pscr_cuda_level_view &V = D.lvl[i - 1];
  LevelArgs<T> L;
  L.blk = D.blk + (size_t)V.blk0 * PSCR_CUDA_BLK_INTS;
  L.eblk = D.eblk + V.eig0;
  L.jl = D.jl + (size_t)V.j0 * 3;
  L.lam = (const T *)D.lam + V.eig0;
  L.w = (const T *)D.w + V.eig0 * W_SLOTS;
  L.items = D.items + (size_t)D.lit0[i - 1] * 3;
  L.bitem = D.bitem + (size_t)V.blk0 * 2;
  L.nit = D.lnit[i - 1];
  L.direct = D.ldirect[i - 1];
  L.nb = V.nb;
  L.nj = V.nj;
  L.ne = V.ne;
  L.nds = V.max_nd;
  L.ps = D.item_sums;
  L.d = d;
  L.n = D.n;
  L.S = D.S;
  L.xs = xs;
  L.fs = fs;
  // The pivot table (2D plans only: their last dimension's shift is
  // c + lambda_e for every batch).
  L.ptab = s->ptab_on ? (const T *)s->ptab + V.eig0 * (size_t)part_tab_stride(s->rows) : nullptr;
  L.pcr_all = s->pcr_refine_all;
  return L;
}

// cuda_setup.cu
cudaError_t dalloc(State *s, void **p, size_t bytes);
void state_free(State *s);
int choose_rows(int requested, int n, int ndim, bool single, bool cplx);

// cuda_solve.cu: the shared-memory limits of the level-3 kernels (they must
// be set in the translation unit that launches them), the launch plan of
// the fused level-3 kernel (fuse_slots, fuse_pair), the persistent grids'
// blocks per SM (part_res, sum_res), and the whole solve of
// nb right-hand sides on a stream.
cudaError_t part_attributes(bool cplx, bool single, int device);
cudaError_t pdl_supported(int device, int *yes);
cudaError_t part_sum_plan(State *s, bool always);
cudaError_t part_resident(State *s);
pscr_status probe_pivots(State *s);
pscr_status solve_on_stream(State *s, int nb, const void *f, size_t ldf, void *u, size_t ldu,
                            cudaStream_t cs);

} // namespace pscr_cuda

#endif
