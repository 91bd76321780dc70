// Roofline ceilings of the device (ceilings.h): streaming copy bandwidth and
// FMA throughput, each the median of GPU_CEIL_REPEAT event-timed runs.
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "ceilings.h"

namespace {

// Grid-stride copy in 16-byte words, four loads in flight per thread before
// the stores (one load at a time left the H100 at 2.8 of its 3 TB/s): every
// byte read once, written once.
__global__ void k_copy(const double2 *__restrict__ src, double2 *__restrict__ dst, size_t n)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const double2 a = src[i], b = src[i + stride], c = src[i + 2 * stride],
                  d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}

// CHAINS independent FMA chains per thread, ITERS steps each: the chains
// hide the FMA latency, so the loop runs at the issue rate. The result is
// stored only when it is impossible (the sum of the chains is never the
// sentinel), which keeps the compiler from removing the work.
constexpr int CHAINS = 8;
constexpr int ITERS = 4096;

template <class T> __global__ void k_fma(T a, T b, T *sink)
{
  T x[CHAINS];
  for (int c = 0; c < CHAINS; c++)
    x[c] = (T)(threadIdx.x + c);
  for (int it = 0; it < ITERS; it++)
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
      x[c] = fma(x[c], a, b);
  T s = 0;
  for (int c = 0; c < CHAINS; c++)
    s += x[c];
  if (s == (T)-12345.678)
    *sink = s;
}

int cmp_float(const void *a, const void *b)
{
  const float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

struct Timer {
  cudaEvent_t t0, t1;
};

// Median milliseconds of `repeat` runs of launch() after one warm-up.
template <class F> cudaError_t median_ms(const Timer &t, int repeat, F launch, double *ms)
{
  float v[64];
  cudaError_t e;
  if (repeat > 64)
    repeat = 64;
  if ((e = launch()) != cudaSuccess)
    return e;
  for (int r = 0; r < repeat; r++) {
    if ((e = cudaEventRecord(t.t0, 0)) != cudaSuccess || (e = launch()) != cudaSuccess ||
        (e = cudaEventRecord(t.t1, 0)) != cudaSuccess || (e = cudaEventSynchronize(t.t1)) != cudaSuccess ||
        (e = cudaEventElapsedTime(&v[r], t.t0, t.t1)) != cudaSuccess)
      return e;
  }
  qsort(v, (size_t)repeat, sizeof v[0], cmp_float);
  *ms = v[repeat / 2];
  return cudaSuccess;
}

// Datasheet peaks (NVIDIA product briefs; FP64/FP32 without tensor cores).
struct Sheet {
  const char *match, *name;
  double gbs, fp64, fp32;
};
const Sheet sheets[] = {
    {"H100 80GB HBM3", "H100 SXM5 80GB", 3350, 34000, 67000},
    {"H100 PCIe", "H100 PCIe 80GB", 2000, 26000, 51000},
    {"H100 NVL", "H100 NVL 94GB", 3900, 30000, 60000},
    {"H200", "H200 SXM 141GB", 4800, 34000, 67000},
    {"A100-SXM4-80GB", "A100 SXM4 80GB", 2039, 9700, 19500},
    {"A100-SXM4-40GB", "A100 SXM4 40GB", 1555, 9700, 19500},
    {"GTX 1080 Ti", "GeForce GTX 1080 Ti", 484, 354, 11340},
};

} // namespace

extern "C" pscr_status gpu_measure_ceilings(int device, size_t copy_bytes, gpu_ceilings *c,
                                            char *msg, size_t len)
{
  memset(c, 0, sizeof *c);
  if (copy_bytes < ((size_t)256 << 20))
    copy_bytes = (size_t)256 << 20;
  copy_bytes &= ~(size_t)15;
  c->copy_bytes = copy_bytes;
  void *src = nullptr, *dst = nullptr, *sink = nullptr;
  Timer t = {nullptr, nullptr};
  pscr_status st = PSCR_SUCCESS;
  cudaError_t e;
  int sms = 0;
  cudaDeviceProp prop;
  const char *what = "";
#define CEIL_TRY(call)                                                                    \
  do {                                                                                     \
    if ((e = (call)) != cudaSuccess) {                                                     \
      what = #call;                                                                        \
      goto fail;                                                                           \
    }                                                                                      \
  } while (0)
  CEIL_TRY(cudaSetDevice(device));
  CEIL_TRY(cudaGetDeviceProperties(&prop, device));
  CEIL_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CEIL_TRY(cudaEventCreate(&t.t0));
  CEIL_TRY(cudaEventCreate(&t.t1));
  CEIL_TRY(cudaMalloc(&src, copy_bytes));
  CEIL_TRY(cudaMalloc(&dst, copy_bytes));
  CEIL_TRY(cudaMalloc(&sink, 16));
  CEIL_TRY(cudaMemset(src, 0, copy_bytes));
  {
    const size_t n = copy_bytes / 16;
    const unsigned grid = (unsigned)sms * 8;
    double ms = 0;
    CEIL_TRY(median_ms(t, GPU_CEIL_REPEAT,
                       [&] {
                         k_copy<<<grid, 256>>>((const double2 *)src, (double2 *)dst, n);
                         return cudaGetLastError();
                       },
                       &ms));
    c->copy_gbs = 2.0 * (double)copy_bytes / (ms * 1e6);
    CEIL_TRY(median_ms(t, GPU_CEIL_REPEAT,
                       [&] {
                         return cudaMemcpyAsync(dst, src, copy_bytes, cudaMemcpyDeviceToDevice,
                                                0);
                       },
                       &ms));
    c->memcpy_gbs = 2.0 * (double)copy_bytes / (ms * 1e6);
    // FMA: enough warps to fill every scheduler (32 warps per SM).
    const unsigned fgrid = (unsigned)sms * 4, fthreads = 256;
    const double fmas = (double)fgrid * fthreads * CHAINS * ITERS;
    CEIL_TRY(median_ms(t, GPU_CEIL_REPEAT,
                       [&] {
                         k_fma<double><<<fgrid, fthreads>>>(1.0000001, 1e-9, (double *)sink);
                         return cudaGetLastError();
                       },
                       &ms));
    c->fp64_gflops = 2.0 * fmas / (ms * 1e6);
    CEIL_TRY(median_ms(t, GPU_CEIL_REPEAT,
                       [&] {
                         k_fma<float><<<fgrid, fthreads>>>(1.0000001f, 1e-9f, (float *)sink);
                         return cudaGetLastError();
                       },
                       &ms));
    c->fp32_gflops = 2.0 * fmas / (ms * 1e6);
  }
  for (const Sheet &s : sheets)
    if (strstr(prop.name, s.match)) {
      c->sheet_gbs = s.gbs;
      c->sheet_fp64 = s.fp64;
      c->sheet_fp32 = s.fp32;
      snprintf(c->sheet_name, sizeof c->sheet_name, "%s", s.name);
      break;
    }
  goto out;
fail:
  snprintf(msg, len, "%s: %s", what, cudaGetErrorString(e));
  st = e == cudaErrorMemoryAllocation ? PSCR_ERROR_DEVICE_ALLOC : PSCR_ERROR_DEVICE;
  cudaGetLastError();
out:
  cudaFree(src);
  cudaFree(dst);
  cudaFree(sink);
  if (t.t0)
    cudaEventDestroy(t.t0);
  if (t.t1)
    cudaEventDestroy(t.t1);
  return st;
#undef CEIL_TRY
}
