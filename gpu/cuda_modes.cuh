// The device state of the one-pass distributed solve (backend.h's modes_*
// ops), shared by cuda_modes.cu (the slab's transforms and per-mode
// sweeps) and cuda_modes_nccl.cu (the separators' steps between GPUs).
#ifndef PSCR_CUDA_MODES_CUH
#define PSCR_CUDA_MODES_CUH

#include <cublas_v2.h>
#include <cuda_runtime.h>
#if PSCR_HAVE_NCCL
#include <nccl.h>
#endif
#include <stddef.h>
#include <time.h>

namespace pscr_cuda {

struct ModesState {
  int device, ndim, cplx, n2, n3, nI;
  size_t rows, plane, elem;
  void *E[2], *lam[2];  // dtype, on the device
  void *jd, *jo;        // dtype: a | m per entry (nI and nI + 1 pairs)
  void *work;           // a slab of dtype: the products' other operand; the pivots
  void *dplanes;        // three planes for the caller
  void *hplanes;        // six pinned host planes for the caller
  unsigned long long *bad; // the least failing mode + 1 (device)
  // Host-array solves (modes_stage): a slab of dtype and a stream of
  // their own, made at the first such solve.
  void *stage;
  cudaStream_t stage_stream;
  size_t device_bytes, pinned_bytes; // what the state holds
  double shift[2];
  cublasHandle_t blas;
  // The separators (modes_separators): this rank of size, the modes'
  // owners, this rank's nm modes' Schur factors (dtype, j nm + k), two
  // planes (the term sent, the term received), the own modes' right-hand
  // sides of every separator (ns nm).
  int rank, size;
  int *moff, *mcount; // host
  size_t nm;
  void *ip, *sup, *tplanes, *zm;
#if PSCR_HAVE_NCCL
  ncclComm_t comm; // non-blocking; NULL once aborted (comm_broken)
  int comm_broken;
#endif
};

// Seconds a rank waits for NCCL or its stream before it gives up (a peer
// failed or died): the communicator is aborted and the solve fails on this
// rank, which the distributed plan then agrees over MPI. Never a hang.
constexpr double kNcclTimeout = 120.0;

inline double now_s()
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// sigma_m + c: mode m = k2 n3 + k3.
template <class T>
__device__ inline T mode_shift(const T *lam2, const T *lam3, int n3, size_t m, T c)
{
  if (!lam3)
    return lam2[m] + c;
  return lam2[m / (size_t)n3] + lam3[m % (size_t)n3] + c;
}

// J's entries: jd[2 i] + t jd[2 i + 1] (row ia + i), jo likewise (the
// coupling of rows ia - 1 + i and ia + i).
template <class T> __device__ inline T jent(const T *j, int i, T t) { return j[2 * i] + t * j[2 * i + 1]; }

#if PSCR_HAVE_NCCL
// Finalize and destroy the communicator (cuda_modes_nccl.cu).
void modes_comm_close(ModesState *s);
#endif

} // namespace pscr_cuda

#endif
