// CUDA backend, host-array solves (pscr_solve, pscr_solve_batch): f staged
// to the device through pinned, chunked, pipelined copies, the solve on the
// plan's private stream, u staged back; a partition pivot failure retries
// with plain Thomas.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_state.cuh"

namespace pscr_cuda {

// Host -> device (h2d) or device -> host of `bytes` through the pinned buffers
// on s->stream; returns after the host side is done (the stream then holds
// only device work). Pinned or registered host memory goes directly.
static cudaError_t staged_copy(State *s, void *dev, void *host, size_t bytes, bool h2d)
{
  cudaPointerAttributes attr;
  cudaError_t e = cudaPointerGetAttributes(&attr, host);
  if (e != cudaSuccess)
    cudaGetLastError(); // plain pageable memory on old runtimes
  const bool pinned = e == cudaSuccess && attr.type == cudaMemoryTypeHost;
  if (!s->pin[0] || pinned || bytes <= pscr_cuda::STAGE_MIN) {
    e = h2d ? cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s->stream)
            : cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s->stream);
    return e != cudaSuccess ? e : cudaStreamSynchronize(s->stream);
  }
  const size_t C = pscr_cuda::STAGE_CHUNK, nc = (bytes + C - 1) / C;
  char *d = (char *)dev, *h = (char *)host;
  if (h2d) {
    for (size_t i = 0; i < nc; i++) {
      const size_t off = i * C, len = bytes - off < C ? bytes - off : C;
      void *buf = s->pin[i % 2];
      // The buffer's previous transfer, possibly one of the previous call (a
      // batch stages its right-hand sides back to back), must be done. An
      // event never recorded counts as done.
      if ((e = cudaEventSynchronize(s->pin_done[i % 2])) != cudaSuccess)
        return e;
      pscr_cuda_host_copy(buf, h + off, len, s->nthreads);
      if ((e = cudaMemcpyAsync(d + off, buf, len, cudaMemcpyHostToDevice, s->stream)) !=
              cudaSuccess ||
          (e = cudaEventRecord(s->pin_done[i % 2], s->stream)) != cudaSuccess)
        return e;
    }
    return cudaSuccess; // later stream work is ordered after the copies
  }
  // Device -> host: chunk i + 1 is in flight while chunk i is copied out.
  for (size_t i = 0; i <= nc; i++) {
    if (i < nc) {
      const size_t off = i * C, len = bytes - off < C ? bytes - off : C;
      if ((e = cudaMemcpyAsync(s->pin[i % 2], d + off, len, cudaMemcpyDeviceToHost,
                               s->stream)) != cudaSuccess ||
          (e = cudaEventRecord(s->pin_done[i % 2], s->stream)) != cudaSuccess)
        return e;
    }
    if (i > 0) {
      const size_t j = i - 1, off = j * C, len = bytes - off < C ? bytes - off : C;
      if ((e = cudaEventSynchronize(s->pin_done[j % 2])) != cudaSuccess)
        return e;
      pscr_cuda_host_copy(h + off, s->pin[j % 2], len, s->nthreads);
    }
  }
  return cudaSuccess;
}

// Host-array solves of nrhs right-hand sides (pscr_solve: 1), f_r at
// f + r ldf, u_r at u + r ldu: groups of up to max_batch staged into xbuf
// (contiguous), solved there in one launch sequence, staged back.
static pscr_status host_solve(State *s, int nrhs, const void *f, size_t ldf, void *u, size_t ldu)
{
  pscr_status st = PSCR_SUCCESS;
  const size_t bytes = s->total * s->elem;
  char *xb = (char *)s->xbuf;
  PSCR_CUDA_GOTO(st, out, cudaSetDevice(s->device));
  for (int r0 = 0; r0 < nrhs; r0 += s->max_batch) {
    const int nb = nrhs - r0 < s->max_batch ? nrhs - r0 : s->max_batch;
    for (int j = 0; j < nb; j++)
      PSCR_CUDA_GOTO(st, out,
                     staged_copy(s, xb + (size_t)j * bytes,
                                 (char *)f + (size_t)(r0 + j) * ldf * s->elem, bytes, true));
    if ((st = solve_on_stream(s, nb, s->xbuf, s->total, s->xbuf, s->total, s->stream)) !=
        PSCR_SUCCESS)
      goto out;
    for (int j = 0; j < nb; j++)
      PSCR_CUDA_GOTO(st, out,
                     staged_copy(s, xb + (size_t)j * bytes,
                                 (char *)u + (size_t)(r0 + j) * ldu * s->elem, bytes, false));
  }
  // The pivots depend on the shifts only, never on f: probe_pivots found out
  // at setup whether they fail (after choosing plain Thomas where only the
  // partitioned solver's sub-block pivots do), and then every u_r is NaN.
  if (s->pivots_bad && nrhs == 1)
    st = PSCR_ERROR(PSCR_ERROR_SINGULAR,
                    "A%d + s M%d has a zero pivot for a shift s of the reduction: u is NaN",
                    s->ndim, s->ndim);
  else if (s->pivots_bad)
    st = PSCR_ERROR(PSCR_ERROR_SINGULAR,
                    "A%d + s M%d has a zero pivot for a shift s of the reduction: u is NaN "
                    "for all %d right-hand sides (the first is right-hand side 0)",
                    s->ndim, s->ndim, nrhs);
out:
  return st;
}

extern "C" pscr_status pscr_cuda_state_solve(void *state, const void *f, void *u)
{
  State *s = (State *)state;
  return host_solve(s, 1, f, s->total, u, s->total);
}

extern "C" pscr_status pscr_cuda_state_solve_batch(void *state, int nrhs, const void *f,
                                                   size_t ldf, void *u, size_t ldu)
{
  return host_solve((State *)state, nrhs, f, ldf, u, ldu);
}

} // namespace pscr_cuda
