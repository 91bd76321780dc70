// The one-pass distributed solve's separators on the device, exchanging
// between the ranks' GPUs by NCCL (backend.h's modes_comm_* and
// modes_separators; the state in cuda_modes.cuh, the slab's steps in
// cuda_modes.cu): the neighbours' terms, the separators' right-hand sides
// and their Schur systems per mode (two all-to-alls of grouped ncclSend /
// ncclRecv, the modes dealt out as on the host, mpi_plan.c), the separator
// planes to the next rank; device to device (NVLink where the GPUs have
// it). Built where CMake finds NCCL (PSCR_HAVE_NCCL).
#if PSCR_HAVE_NCCL

#include <cuda_runtime.h>
#include <nccl.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_modes.cuh"
#include "cuda_modes.h"
#include "cuda_scalar.cuh"
#include "cuda_view.h"

namespace pscr_cuda {

namespace {

// The term for the previous separator, out = J(ia - 1, ia) vf per mode.
template <class T>
__global__ void k_modes_left(const T *vf, T *out, const T *__restrict__ jo, const T *lam2,
                             const T *lam3, int n3, T c, size_t pl)
{
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m < pl)
    out[m] = jent(jo, 0, mode_shift(lam2, lam3, n3, m, c)) * vf[m];
}

// The separator's right-hand side in place: xs - in - J(ib, ib - 1) vl.
template <class T>
__global__ void k_modes_rhs(T *xs, const T *in, const T *vl, const T *__restrict__ jo,
                            const T *lam2, const T *lam3, int n3, T c, int nI, size_t pl)
{
  const size_t m = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (m < pl)
    xs[m] = xs[m] - in[m] - jent(jo, nI, mode_shift(lam2, lam3, n3, m, c)) * vl[m];
}

// The separators' Schur systems of the own modes (factored at plan time,
// pscr_mpi_factor_separators): b[j nm + k], separator j, mode k.
template <class T>
__global__ void k_modes_schur(T *b, const T *__restrict__ ip, const T *__restrict__ su, int ns,
                              size_t nm)
{
  const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nm)
    return;
  T prev = b[k];
  for (int j = 1; j < ns; j++) {
    const size_t a = (size_t)(j - 1) * nm + k;
    prev = b[a + nm] - su[a] * ip[a] * prev;
    b[a + nm] = prev;
  }
  prev = prev * ip[(size_t)(ns - 1) * nm + k];
  b[(size_t)(ns - 1) * nm + k] = prev;
  for (int j = ns - 2; j >= 0; j--) {
    const size_t a = (size_t)j * nm + k;
    prev = (b[a] - su[a] * prev) * ip[a];
    b[a] = prev;
  }
}

} // namespace

// A non-blocking communicator: finalized (polled, with the time limit),
// then destroyed; aborted where finalizing fails.
void modes_comm_close(ModesState *s)
{
  ncclResult_t r = ncclCommFinalize(s->comm);
  const double t0 = now_s();
  while (r == ncclInProgress && now_s() - t0 < kNcclTimeout)
    if (ncclCommGetAsyncError(s->comm, &r) != ncclSuccess)
      r = ncclInternalError;
  if (r == ncclSuccess)
    ncclCommDestroy(s->comm);
  else
    ncclCommAbort(s->comm);
  s->comm = NULL;
}

} // namespace pscr_cuda

using namespace pscr_cuda;

static_assert(sizeof(ncclUniqueId) == PSCR_MODES_ID_BYTES, "PSCR_MODES_ID_BYTES is NCCL's id");

namespace {

pscr_status nccl_error(ncclResult_t r, const char *what)
{
  return pscr_error_set(PSCR_ERROR_DEVICE, "%s (%s, the distributed solve's exchange between "
                        "GPUs)", ncclGetErrorString(r), what);
}

// Abort the communicator: later solves fail at once instead of waiting.
void comm_abort(ModesState *s)
{
  if (s->comm)
    ncclCommAbort(s->comm);
  s->comm = NULL;
  s->comm_broken = 1;
}

// A non-blocking call's result r settled (ncclInProgress polled away).
pscr_status settle(ModesState *s, ncclResult_t r, const char *what)
{
  const double t0 = now_s();
  while (r == ncclInProgress) {
    if (ncclCommGetAsyncError(s->comm, &r) != ncclSuccess)
      r = ncclInternalError;
    if (r == ncclInProgress && now_s() - t0 > kNcclTimeout) {
      comm_abort(s);
      return pscr_error_set(PSCR_ERROR_DEVICE, "%s: no progress in %.0f s (a peer failed?); "
                            "the GPUs' communicator was aborted", what, kNcclTimeout);
    }
  }
  if (r != ncclSuccess) {
    const pscr_status st = nccl_error(r, what);
    comm_abort(s);
    return st;
  }
  return PSCR_SUCCESS;
}

// The stream finished, watching the communicator, with the time limit.
pscr_status wait_stream(ModesState *s, cudaStream_t cs)
{
  const double t0 = now_s();
  for (;;) {
    const cudaError_t e = cudaStreamQuery(cs);
    if (e == cudaSuccess)
      return PSCR_SUCCESS;
    if (e != cudaErrorNotReady)
      return pscr_cuda_error(e, "cudaStreamQuery");
    ncclResult_t a = ncclSuccess;
    if (ncclCommGetAsyncError(s->comm, &a) != ncclSuccess ||
        (a != ncclSuccess && a != ncclInProgress)) {
      comm_abort(s);
      return nccl_error(a, "the separators' exchange; the GPUs' communicator was aborted");
    }
    if (now_s() - t0 > kNcclTimeout) {
      comm_abort(s);
      return pscr_error_set(PSCR_ERROR_DEVICE, "the separators' exchange did not finish in %.0f "
                            "s (a peer failed?); the GPUs' communicator was aborted",
                            kNcclTimeout);
    }
  }
}

// count values of dtype as NCCL doubles.
size_t words(const ModesState *s, size_t count) { return count * (s->cplx ? 2 : 1); }

} // namespace

extern "C" pscr_status pscr_cuda_modes_comm_key(void *ctx, unsigned char *key)
{
  ModesState *s = (ModesState *)ctx;
  cudaDeviceProp prop;
  const cudaError_t e = cudaGetDeviceProperties(&prop, s->device);
  if (e != cudaSuccess)
    return pscr_cuda_error(e, "cudaGetDeviceProperties");
  memcpy(key, prop.uuid.bytes, 16);
  return PSCR_SUCCESS;
}

extern "C" pscr_status pscr_cuda_modes_comm_id(void *ctx, unsigned char *id)
{
  (void)ctx;
  ncclUniqueId u;
  const ncclResult_t r = ncclGetUniqueId(&u);
  if (r != ncclSuccess)
    return nccl_error(r, "ncclGetUniqueId");
  memcpy(id, &u, sizeof u);
  return PSCR_SUCCESS;
}

extern "C" pscr_status pscr_cuda_modes_comm_init(void *ctx, const unsigned char *id)
{
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  pscr_status st = PSCR_SUCCESS;
  ncclUniqueId u;
  memcpy(&u, id, sizeof u);
  ncclResult_t r = ncclSuccess;
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0; // every call polled with a time limit (settle)
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  r = ncclCommInitRankConfig(&s->comm, s->size, u, s->rank, &config);
  if (r != ncclSuccess && r != ncclInProgress) {
    s->comm = NULL;
    st = nccl_error(r, "ncclCommInitRankConfig");
  } else {
    st = settle(s, r, "ncclCommInitRankConfig");
  }
out:
  pscr_cuda_restore_device(saved);
  return st;
}

// Steps 2-4 of the one-pass solve on the device. Every rank makes every
// exchange of its part whatever failed before it on that rank (a launch),
// so that no peer waits for it; the first failure is returned.
extern "C" pscr_status pscr_cuda_modes_separators(void *ctx, void *x, const void *vf,
                                                  const void *vl, void *usl, void *stream)
{
  ModesState *s = (ModesState *)ctx;
  const int saved = pscr_cuda_current_device();
  const cudaStream_t cs = (cudaStream_t)stream;
  pscr_status st = PSCR_SUCCESS;
  const size_t pl = s->plane, e = s->elem, nm = s->nm;
  const int me = s->rank, ns = s->size - 1, has_left = me > 0, has_sep = me < ns;
  const unsigned threads = 256, blocks = (unsigned)((pl + threads - 1) / threads);
  char *xs = (char *)x + (size_t)s->nI * pl * e, *out = (char *)s->tplanes, *in = out + pl * e;
  char *zm = (char *)s->zm;
  ncclResult_t r = ncclSuccess;
  const void *lam3 = s->ndim == 3 ? s->lam[1] : NULL;
  if (s->comm_broken || !s->comm)
    return pscr_error_set(PSCR_ERROR_DEVICE, "the GPUs' communicator was aborted by an earlier "
                          "failure: make a new plan");
  cudaError_t ce = cudaSetDevice(s->device);
  if (ce != cudaSuccess) {
    pscr_cuda_restore_device(saved);
    return pscr_cuda_error(ce, "cudaSetDevice");
  }
#define MODES_KEEP(call)                                                                     \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess && !st)                                                            \
      st = pscr_cuda_error(e_, #call);                                                       \
  } while (0)
  // A call's failure (not ncclInProgress, the non-blocking answer) is kept;
  // each group's end settles before the next kernel or group, and a
  // failure aborts the communicator there (settle), the rest skipped.
#define MODES_NCCL(call)                                                                     \
  do {                                                                                       \
    ncclResult_t r_ = s->comm ? (call) : ncclInvalidUsage;                                   \
    if (r_ != ncclSuccess && r_ != ncclInProgress && r == ncclSuccess)                       \
      r = r_;                                                                                \
  } while (0)
#define MODES_GROUP_END(what)                                                                \
  do {                                                                                       \
    const ncclResult_t g_ = s->comm ? ncclGroupEnd() : ncclInvalidUsage;                     \
    if (r != ncclSuccess) {                                                                  \
      if (!st)                                                                               \
        st = nccl_error(r, what);                                                            \
      comm_abort(s);                                                                         \
    } else if (s->comm) {                                                                    \
      const pscr_status g_st = settle(s, g_, what);                                          \
      if (g_st && !st)                                                                       \
        st = g_st;                                                                           \
    }                                                                                        \
  } while (0)
  // 2: this rank's term for the previous separator; the next rank's term.
  if (has_left) {
    if (!s->cplx)
      k_modes_left<double><<<blocks, threads, 0, cs>>>(
          (const double *)vf, (double *)out, (const double *)s->jo, (const double *)s->lam[0],
          (const double *)lam3, s->n3, s->shift[0], pl);
    else
      k_modes_left<zc><<<blocks, threads, 0, cs>>>(
          (const zc *)vf, (zc *)out, (const zc *)s->jo, (const zc *)s->lam[0], (const zc *)lam3,
          s->n3, zc(s->shift[0], s->shift[1]), pl);
    MODES_KEEP(cudaGetLastError());
  }
  MODES_NCCL(ncclGroupStart());
  if (has_left)
    MODES_NCCL(ncclSend(out, words(s, pl), ncclDouble, me - 1, s->comm, cs));
  if (has_sep)
    MODES_NCCL(ncclRecv(in, words(s, pl), ncclDouble, me + 1, s->comm, cs));
  MODES_GROUP_END("the separators' terms (ncclSend / ncclRecv)");
  // 3: the separator's right-hand side; to the modes' owners; the Schur
  // systems of the own modes; back.
  if (has_sep) {
    if (!s->cplx)
      k_modes_rhs<double><<<blocks, threads, 0, cs>>>(
          (double *)xs, (const double *)in, (const double *)vl, (const double *)s->jo,
          (const double *)s->lam[0], (const double *)lam3, s->n3, s->shift[0], s->nI, pl);
    else
      k_modes_rhs<zc><<<blocks, threads, 0, cs>>>(
          (zc *)xs, (const zc *)in, (const zc *)vl, (const zc *)s->jo, (const zc *)s->lam[0],
          (const zc *)lam3, s->n3, zc(s->shift[0], s->shift[1]), s->nI, pl);
    MODES_KEEP(cudaGetLastError());
  }
  for (int back = 0; back < 2; back++) {
    if (back && nm) {
      const unsigned kb = (unsigned)((nm + threads - 1) / threads);
      if (!s->cplx)
        k_modes_schur<double><<<kb, threads, 0, cs>>>((double *)zm, (const double *)s->ip,
                                                      (const double *)s->sup, ns, nm);
      else
        k_modes_schur<zc><<<kb, threads, 0, cs>>>((zc *)zm, (const zc *)s->ip,
                                                  (const zc *)s->sup, ns, nm);
      MODES_KEEP(cudaGetLastError());
    }
    // Forward: separator j's plane, modes of rank q, to zm + j nm on q;
    // back the reverse. The own block by a copy.
    MODES_NCCL(ncclGroupStart());
    for (int q = 0; q <= ns; q++) {
      const size_t cnt = (size_t)s->mcount[q];
      char *mine = xs + (size_t)s->moff[q] * e;
      if (!has_sep || !cnt || q == me)
        continue;
      if (!back)
        MODES_NCCL(ncclSend(mine, words(s, cnt), ncclDouble, q, s->comm, cs));
      else
        MODES_NCCL(ncclRecv(mine, words(s, cnt), ncclDouble, q, s->comm, cs));
    }
    for (int j = 0; j < ns && nm; j++) {
      if (j == me)
        continue;
      if (!back)
        MODES_NCCL(ncclRecv(zm + (size_t)j * nm * e, words(s, nm), ncclDouble, j, s->comm, cs));
      else
        MODES_NCCL(ncclSend(zm + (size_t)j * nm * e, words(s, nm), ncclDouble, j, s->comm, cs));
    }
    MODES_GROUP_END("the separators' all-to-all (ncclSend / ncclRecv)");
    if (has_sep && nm) {
      char *own = zm + (size_t)me * nm * e, *mine = xs + (size_t)s->moff[me] * e;
      MODES_KEEP(cudaMemcpyAsync(back ? mine : own, back ? own : mine, nm * e,
                                 cudaMemcpyDeviceToDevice, cs));
    }
  }
  // 4: the separator's plane to the next rank, the previous one's here.
  MODES_NCCL(ncclGroupStart());
  if (has_sep)
    MODES_NCCL(ncclSend(xs, words(s, pl), ncclDouble, me + 1, s->comm, cs));
  if (has_left)
    MODES_NCCL(ncclRecv(usl, words(s, pl), ncclDouble, me - 1, s->comm, cs));
  MODES_GROUP_END("the separators' planes (ncclSend / ncclRecv)");
#undef MODES_KEEP
#undef MODES_NCCL
#undef MODES_GROUP_END
  // Finished on return, watching the communicator (a peer that failed
  // mid-exchange ends this wait by the time limit, not a hang).
  if (s->comm) {
    const pscr_status w = wait_stream(s, cs);
    if (w && !st)
      st = w;
  }
  pscr_cuda_restore_device(saved);
  return st;
}

#endif
