// CUDA backend, solve side: the level driver of the radix-4 PSCR solve
// (docs/design.md), mirroring cpu_solve_impl.h. Each stage of a level
// is one launch over all its blocks and eigenpairs; the 3D dimension-1
// subproblems (2D solves with shifts c + lambda_e) run as one batched 2D
// solve per outer level. The right-hand sides of a batched solve
// (pscr_solve_batch) are batches of the top dimension in the same way: up to
// max_batch of them share every launch. A solve only enqueues work on its
// stream. Also the device-array entry points and the profiling mode.
//
// The templates live in cuda_solve_impl.cuh, instantiated once per scalar
// type in cuda_solve_{d,z,s,c}.cu; this file dispatches on the plan's type.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_solve_types.cuh"
#include "cuda_state.cuh"
#include "cuda_transform.cuh"
#include "launch.cuh"
#include "levels_kernels.cuh"

namespace pscr_cuda {

cudaError_t part_attributes(bool cplx, bool single, int device)
{
  int cap = 0;
  cudaError_t e = cudaDeviceGetAttribute(&cap, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess)
    return e;
  if (single)
    return cplx ? part_attrs_c(cap) : part_attrs_s(cap);
  return cplx ? part_attrs_z(cap) : part_attrs_d(cap);
}

// *yes: the solve kernels may be launched early (launch.cuh). That needs a
// device of compute capability 9.0 or later running code compiled for one:
// a kernel JIT-compiled from older PTX has no pdl_gate and would race.
cudaError_t pdl_supported(int device, int *yes)
{
  *yes = 0;
  int major = 0;
  cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (e != cudaSuccess || major < 9)
    return e;
  cudaFuncAttributes a;
  if ((e = cudaFuncGetAttributes(&a, k_nan_if_flag<float>)) != cudaSuccess)
    return e;
  *yes = a.ptxVersion >= 90;
  return cudaSuccess;
}

// Whether the solve's level-3 pivots fail, once per set of factors (the
// end of pscr_cuda_state_upload): a solve of f = 0 with the flag cleared.
// The partitioned solver checks the pivots of its sub-blocks; where one
// fails and plain Thomas (the CPU backend's pivots) does not, the plan
// takes plain Thomas (rows = 0) for every solve. Where Thomas fails too,
// pivots_bad: the flag stays set and every solve fills u with NaN (the
// host solves report PSCR_ERROR_SINGULAR). The pivots depend on the
// shifts only, never on f, so no solve can change the answer.
pscr_status probe_pivots(State *s)
{
  pscr_status st = PSCR_SUCCESS;
  int bad = 0;
  s->pivots_bad = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    PSCR_CUDA_GOTO(st, out, cudaMemsetAsync(s->flag, 0, sizeof(int), s->stream));
    PSCR_CUDA_GOTO(st, out, cudaMemsetAsync(s->xbuf, 0, s->total * s->elem, s->stream));
    if ((st = solve_on_stream(s, 1, s->xbuf, s->total, s->xbuf, s->total, s->stream)) !=
        PSCR_SUCCESS)
      goto out;
    PSCR_CUDA_GOTO(st, out,
                   cudaMemcpyAsync(&bad, s->flag, sizeof bad, cudaMemcpyDeviceToHost, s->stream));
    PSCR_CUDA_GOTO(st, out, cudaStreamSynchronize(s->stream));
    if (!bad || s->rows == 0)
      break;
    s->rows = 0;
  }
  s->pivots_bad = bad != 0;
out:
  return st;
}

cudaError_t part_resident(State *s)
{
  if (s->single)
    return s->cplx ? part_resident_c(s) : part_resident_s(s);
  return s->cplx ? part_resident_z(s) : part_resident_d(s);
}

cudaError_t part_sum_plan(State *s, bool always)
{
  if (s->single)
    return s->cplx ? part_sum_plan_c(s, always) : part_sum_plan_s(s, always);
  return s->cplx ? part_sum_plan_z(s, always) : part_sum_plan_d(s, always);
}

// The whole solve of nb right-hand sides (1 <= nb <= max_batch) on `stream`
// with the plan's level-3 solver (State.rows): f_r at f + r ldf, u_r
// at u + r ldu (elements, >= total); u == f only with ldu == ldf (in place).
// One launch sequence, the launches of a single solve, each over nb times the
// work; every u_r gets bitwise the numbers of a single solve (each kernel
// computes an entry the same way whatever B is).
//
// Strided batches: the kernels address the top dimension's batch vectors
// through LevelArgs.xs, so the solve runs in u itself whatever ldu is. The
// alternative, gathering the vectors into a contiguous device buffer and
// scattering them back, would need max_batch * total more device memory and
// two more passes over the data per right-hand side, for nothing the kernels
// cannot do with one multiply.
pscr_status solve_on_stream(State *s, int nb, const void *f, size_t ldf, void *u,
                                   size_t ldu, cudaStream_t cs)
{
  pscr_status st = PSCR_SUCCESS;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  s->pdl_armed = 0; // the first kernel waits for all the caller's work (pdl_take)
  pscr_cuda::mark(s, PSCR_STAGE_OTHER, cs); // profiling: the start
  if (s->blas) {
    const cublasStatus_t b = blas_bind(s->blas, s->blas_ws, cs);
    if (b != CUBLAS_STATUS_SUCCESS)
      return PSCR_ERROR(PSCR_ERROR_DEVICE,
                        "cuBLAS status %d (cublasSetStream, cublasSetWorkspace)", (int)b);
  }
  {
    cudaError_t e;
    if (s->single)
      e = s->cplx ? solve_typed_c(s, nb, f, ldf, u, ldu, cs)
                  : solve_typed_s(s, nb, f, ldf, u, ldu, cs);
    else
      e = s->cplx ? solve_typed_z(s, nb, f, ldf, u, ldu, cs)
                  : solve_typed_d(s, nb, f, ldf, u, ldu, cs);
    if (e != cudaSuccess && s->blas_err != CUBLAS_STATUS_SUCCESS) {
      st = PSCR_ERROR(PSCR_ERROR_DEVICE, "cuBLAS status %d (the transform's products)",
                      (int)s->blas_err);
      s->blas_err = CUBLAS_STATUS_SUCCESS;
      goto out;
    }
    PSCR_CUDA_GOTO(st, out, e);
  }
out:
  return st;
}

extern "C" pscr_status pscr_cuda_state_solve_device(void *state, const void *f, void *u,
                                                    void *stream)
{
  State *s = (State *)state;
  return solve_on_stream(s, 1, f, s->total, u, s->total, (cudaStream_t)stream);
}

// Groups of up to max_batch right-hand sides, one launch sequence each, in
// order on `stream`. Nothing is allocated and nothing waits for the host, so
// the call can be captured into a CUDA graph.
extern "C" pscr_status pscr_cuda_state_solve_device_batch(void *state, int nrhs, const void *f,
                                                          size_t ldf, void *u, size_t ldu,
                                                          void *stream)
{
  State *s = (State *)state;
  for (int r0 = 0; r0 < nrhs; r0 += s->max_batch) {
    const int nb = nrhs - r0 < s->max_batch ? nrhs - r0 : s->max_batch;
    const pscr_status st =
        solve_on_stream(s, nb, (const char *)f + (size_t)r0 * ldf * s->elem, ldf,
                        (char *)u + (size_t)r0 * ldu * s->elem, ldu, (cudaStream_t)stream);
    if (st != PSCR_SUCCESS)
      return st;
  }
  return PSCR_SUCCESS;
}

} // namespace pscr_cuda

using pscr_cuda::State;

extern "C" pscr_status pscr_cuda_state_solve_profile(void *state, const void *f, void *u,
                                                     void *stream, double *ms, size_t launches)
{
  State *s = (State *)state;
  pscr_cuda::Prof prof = {};
  pscr_status st = PSCR_SUCCESS;
  cudaStream_t cs = (cudaStream_t)stream;
  // One event for the start, one after each launch.
  const size_t cap = launches + 1;
  prof.ev = (cudaEvent_t *)calloc(cap, sizeof *prof.ev);
  prof.kind = (int *)calloc(cap, sizeof *prof.kind);
  size_t made = 0;
  if (!prof.ev || !prof.kind) {
    st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate %zu profiling events", cap);
    goto out;
  }
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  for (; made < cap; made++)
    PSCR_CUDA_GOTO(st, out, cudaEventCreate(&prof.ev[made]));
  prof.cap = cap;
  s->prof = &prof;
  st = solve_on_stream(s, 1, f, s->total, u, s->total, cs);
  s->prof = nullptr;
  if (st != PSCR_SUCCESS)
    goto out;
  PSCR_CUDA_GOTO(st, out, cudaStreamSynchronize(cs));
  if (prof.overflow || prof.n != cap) {
    st = PSCR_ERROR(PSCR_ERROR_DEVICE,
                    "the solve made %s launches than the cost model's %zu, which the profile "
                    "relies on",
                    prof.overflow ? "more" : "fewer", launches);
    goto out;
  }
  PSCR_CUDA_GOTO(st, out, prof.err);
  for (size_t i = 1; i < prof.n; i++) {
    float t = 0;
    PSCR_CUDA_GOTO(st, out, cudaEventElapsedTime(&t, prof.ev[i - 1], prof.ev[i]));
    ms[prof.kind[i]] += t;
  }
out:
  s->prof = nullptr;
  for (size_t i = 0; i < made; i++)
    cudaEventDestroy(prof.ev[i]);
  free(prof.ev);
  free(prof.kind);
  return st;
}
