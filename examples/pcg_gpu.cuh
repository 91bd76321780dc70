/*
 * The device side of the GPU PCG examples, shared by pscr-pcg-gpu
 * (pcg_kappa_gpu.cu, 2D) and pscr-pcg3d-gpu (pcg3d_gpu.cu, 3D): the whole
 * preconditioned CG iteration on a CUDA device for the problems of
 * pcg_problem.h, one size's table, and the checks of the device operator.
 * pcg_gpu.cu's opening comment describes what runs where.
 */
#ifndef PSCR_EXAMPLES_PCG_GPU_CUH
#define PSCR_EXAMPLES_PCG_GPU_CUH

#include <stdio.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "krylov_common.h"
#include "pcg_problem.h"

/* Stream, cuBLAS handle (device pointer mode, on the stream), events, pinned scalars. */
struct gpu_env {
  int device;
  cudaStream_t stream;
  cublasHandle_t blas;
  cudaEvent_t ev_start, ev_rr;
  double *h_scal; /* pinned, 2 entries */
};

/* 0, or 1 after a message; gpu_env_free also after a failed init. */
int gpu_env_init(gpu_env *g, int device);
void gpu_env_free(gpu_env *g);

/* The rows of the table (R_CG .. R_SCALED of pcg_problem.h). */
extern const char *const pcg_gpu_method_names[R_COUNT];

/* What one size runs. */
struct run_opts {
  int ndim; /* 2 or 3 */
  kappa_kind kind;
  double contrast, grading, tol;
  int maxit, skip_cg;
  int cpu;   /* also run the CPU example's pscr variants (pcg() of pcg_problem.c) */
  int check; /* --test: the device operator and the device's x checked on the host */
};

/* What pcg_gpu_run_size found. */
struct size_result {
  krylov_result res[R_COUNT]; /* the GPU runs (iterations -1: not run) */
  int cpu_iters[R_COUNT];     /* the CPU example's counts, -1: not run */
  double cpu_true_res[R_COUNT];
  double host_true_res[R_COUNT]; /* ||b - A x|| / ||b|| of the device's x, on the host */
  double apply_diff, apply_scale; /* device vs host operator */
  size_t apply_mismatch;          /* entries not bitwise equal */
  double kmin, kmax;
};

/*
 * One size (n^ndim unknowns) on the device: prints the problem and the
 * table (the CPU example's counts beside it with ro->cpu). 0, or 1 on an
 * error (reported).
 */
int pcg_gpu_run_size(const gpu_env *g, int n, const run_opts *ro, size_result *out);

/*
 * The device operator with kappa = 1 against pscr_operator_apply of the
 * Poisson pencils (relative max difference <= 100 eps, as the CPU
 * examples' check); prints a check line. 0 when it passes.
 */
int pcg_gpu_check_poisson(const gpu_env *g, int ndim, int n, double grading);

/* The allowed |GPU - CPU| iteration count difference: max(2, 5% of the CPU's). */
// A GPU PCG example (pscr-pcg-gpu in 2D, pscr-pcg3d-gpu in 3D): what its
// main differs in.
struct pcg_gpu_program {
  const char *name;           // the program, the prefix of its messages
  int ndim;                   // 2 or 3
  int default_sizes[3];       // -n's default
  const char *discretization; // for the heading: "P1 FE (5-point)"
  void (*usage)(FILE *out);
  int (*self_test)(const gpu_env *g); // --test
};

// The main of a GPU PCG example: the shared options and --cpu, --device,
// --help, --test, the device, then the table of every size. Its exit status.
int pcg_gpu_main(int argc, char **argv, const pcg_gpu_program *prog);

static inline int pcg_gpu_iters_slack(int cpu) { return cpu / 20 > 2 ? cpu / 20 : 2; }

#endif
