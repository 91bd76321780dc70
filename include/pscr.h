/**
 * @file pscr.h
 * @brief pscr: fast direct solver for separable block tridiagonal systems
 *        (radix-4 PSCR method, Myllykoski, Rossi, Toivanen, JPDC 115, 2018).
 *
 * Solves A u = f with (paper eqs. 7 and 8)
 *
 *   2D: A = A1 (x) M2 + M1 (x) A2 + c M1 (x) M2
 *   3D: A = A1 (x) M2 (x) M3 + M1 (x) A2 (x) M3 + M1 (x) M2 (x) A3
 *           + c M1 (x) M2 (x) M3
 *
 * where each (Aj, Mj) is a pencil of symmetric (complex symmetric, not
 * Hermitian) tridiagonal matrices of order nj and c is a scalar shift.
 *
 * Vector layout: u and f hold n1*n2(*n3) entries, the LAST dimension fastest,
 * index (i1*n2 + i2)*n3 + i3 (0-based). Complex values are interleaved
 * (re, im) pairs, layout-compatible with C99 double _Complex and
 * cuDoubleComplex.
 *
 * This is the only header users include. It has no CUDA dependency: streams
 * cross the API as void *.
 *
 * ABI: every enum value is explicit; pscr_options and pscr_info begin with
 * their size, which the inline wrappers pscr_options_init() and
 * pscr_plan_info() pass from the caller's own header, so that a struct can
 * grow without breaking callers built against an older header (fields added
 * later take 0 as their default). While the version is 0.x the shared
 * library's SOVERSION is MAJOR.MINOR: each minor release may break the ABI
 * and says so in CHANGELOG.md.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#ifndef PSCR_H
#define PSCR_H

#include <stddef.h>

#include "pscr_config.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(PSCR_SHARED_BUILD)
#define PSCR_EXTERN __declspec(dllexport)
#elif defined(__GNUC__)
#define PSCR_EXTERN __attribute__((visibility("default")))
#else
#define PSCR_EXTERN
#endif

/**
 * Status codes, defined once: the enum and pscr_status_string() are both
 * expanded from this list so the text never drifts from the code.
 */
#define PSCR_STATUS_LIST(X)                                                    \
  X(PSCR_SUCCESS, 0, "success")                                                \
  X(PSCR_ERROR_INVALID_VALUE, 1,                                               \
    "invalid value: NULL where a pointer is needed, n < 1, ndim not 2 or 3, "  \
    "or an unknown enum")                                                      \
  X(PSCR_ERROR_NOT_SUPPORTED, 2, "valid, but not supported by this build or backend") \
  X(PSCR_ERROR_NON_FINITE, 3, "NaN or Inf in the factors, the shift or the right-hand side") \
  X(PSCR_ERROR_NOT_DEFINITE, 4,                                                \
    "a mass matrix that must be positive definite is not (real), or a zero "   \
    "pivot (complex)")                                                         \
  X(PSCR_ERROR_EIGEN_FAILED, 5, "the initialization eigensolver did not converge") \
  X(PSCR_ERROR_SINGULAR, 6, "a shifted tridiagonal subproblem is numerically singular") \
  X(PSCR_ERROR_HOST_ALLOC, 7, "host memory allocation failed")                 \
  X(PSCR_ERROR_DEVICE_ALLOC, 8, "device memory allocation failed")             \
  X(PSCR_ERROR_DEVICE, 9, "CUDA error")

#define PSCR_STATUS_ENUM_(name, value, text) name = value,
/** Status returned by every fallible pscr function (values are part of the ABI). */
typedef enum pscr_status { PSCR_STATUS_LIST(PSCR_STATUS_ENUM_) } pscr_status;
#undef PSCR_STATUS_ENUM_

/**
 * @brief Human-readable text of a status.
 * @param[in] status any value; unknown values give "unknown status".
 * @return a static string (never NULL).
 */
PSCR_EXTERN const char *pscr_status_string(pscr_status status);

/**
 * @brief Detail message of the last error raised in the calling thread,
 *        e.g. "M1 is not positive definite: pivot 3 is -0.5": the specific
 *        cause first, context after it in parentheses, no source location;
 *        pscr_status_string() gives the status's generic text.
 * @return a thread-local string, "" when no error has been raised; valid
 *         until the next pscr call in the same thread.
 */
PSCR_EXTERN const char *pscr_last_error(void);

/** The version of this header as one number, MAJOR * 10000 + MINOR * 100 + PATCH. */
#define PSCR_VERSION_NUMBER                                                    \
  (PSCR_VERSION_MAJOR * 10000 + PSCR_VERSION_MINOR * 100 + PSCR_VERSION_PATCH)

/** True when this header's version is at least major.minor.patch. */
#define PSCR_VERSION_GE(major, minor, patch)                                   \
  (PSCR_VERSION_NUMBER >= (major) * 10000 + (minor) * 100 + (patch))

/**
 * @brief Version of the library actually loaded, as "MAJOR.MINOR.PATCH"
 *        (compare with PSCR_VERSION_STRING, the header's).
 * @return a static string.
 */
PSCR_EXTERN const char *pscr_version(void);

/**
 * @brief Version of the library actually loaded, as numbers.
 * @param[out] major receives PSCR_VERSION_MAJOR of the library's build (NULL: not wanted).
 * @param[out] minor receives its PSCR_VERSION_MINOR (NULL: not wanted).
 * @param[out] patch receives its PSCR_VERSION_PATCH (NULL: not wanted).
 */
PSCR_EXTERN void pscr_version_get(int *major, int *minor, int *patch);

/**
 * Element type of factors, shift, f and u.
 *
 * Single precision (R32, C32): the plan is built in double (the factors are
 * widened, the eigenproblems solved in double), then everything a solve reads
 * is rounded to float once, and the solve runs in float on the CPU and the
 * GPU, with half the memory traffic of double.
 *
 * Accuracy (normwise backward error ||Au - f|| / (||A|| ||u|| + ||f||),
 * residual evaluated in double; eps_f = 1.2e-7):
 * - random right-hand sides (tests/test_single.c, tests/test_cuda.c; 2D up
 *   to 1023^2 and 4096 x 64, 3D up to 63 x 64 x 65): at most 8 eps_f on the
 *   CPU, 48 eps_f (5.8e-6) on the GPU, whose partitioned level-3 solver
 *   loses more in float than plain Thomas;
 * - smooth data (pscr-precision, H100): Poisson 2D 9 eps_f at 255^2 growing
 *   to 333 eps_f (4e-5) at 8191^2; complex Helmholtz 2D 600 eps_f (7e-5) at
 *   1023^2 and 1521 eps_f (1.8e-4) at 4095^2. Double loses as much or more
 *   in its own units (21 to 1027 eps_d for Poisson, 4208 and 27280 eps_d for
 *   Helmholtz): single precision is as stable as double.
 * The forward error is up to kappa(A) times that: 2D Poisson relative errors
 * of 5e-3 at 1023^2 and 0.1 at 4095^2 in float, where the discretization
 * error is 1e-6 to 1e-8; already at n = 255 the float error (~3e-5 to 3e-4)
 * exceeds the discretization error. Single precision suits a
 * preconditioner; use R64/C64 for solutions accurate to the discretization.
 */
typedef enum pscr_dtype {
  PSCR_R64 = 0, /**< double */
  PSCR_C64 = 1, /**< double complex, interleaved (re, im) */
  PSCR_R32 = 2, /**< float, built in double, applied in float */
  PSCR_C32 = 3  /**< float complex, interleaved (re, im), built in double, applied in float */
} pscr_dtype;

/** Where the solve runs. */
typedef enum pscr_backend {
  PSCR_BACKEND_AUTO = 0, /**< CUDA when built with it, a device exists and the sizes fit
                              (pscr_plan_create), else CPU */
  PSCR_BACKEND_CPU = 1,  /**< OpenMP on the host */
  PSCR_BACKEND_CUDA = 2  /**< one CUDA device (pscr_options.device) */
} pscr_backend;

/**
 * How a reduced dimension (every dimension but the last) is solved
 * (pscr_options.method, pscr_info.method; new in 0.2).
 */
typedef enum pscr_method {
  /** The planner chooses (pscr_options.planner): the cost model's choice
      with PSCR_PLANNER_ESTIMATE (the default), the reduction with
      PSCR_PLANNER_NONE. */
  PSCR_METHOD_AUTO = 0,
  /** The radix-4 PSCR reduction: O(log n) passes over the data, eigen data
      of O(n log n) entries. */
  PSCR_METHOD_REDUCTION = 1,
  /**
   * A dense transform: all n eigenpairs of the dimension's pencil, W^T A W
   * = Lambda, W^T M W = I, applied by two matrix products (GEMM) around
   * the n decoupled problems of the remaining dimensions, each with its
   * own shift c + lambda_k. 4 n flops per unknown and n^2 entries of W
   * (n = 8191 complex: 1 GiB).
   */
  PSCR_METHOD_TRANSFORM = 2
} pscr_method;

/**
 * How PSCR_METHOD_AUTO dimensions are resolved (pscr_options.planner; new
 * in 0.2). The planners choose among the vectors that the plan's backend
 * takes, whose eigenvectors fit in a quarter of the host's memory and whose
 * transforms are accurate: a transformed dimension is eligible only while
 * its eigenvectors pass the plan's probe (pscr_info.transform_defect at
 * most 100 n_d eps, ten times the bound the reduction's eigen blocks
 * meet). pscr_info.candidate says what each vector cost, or why it was not
 * taken.
 */
typedef enum pscr_planner {
  /** AUTO is PSCR_METHOD_REDUCTION (the behaviour before methods existed;
      the default until 0.2). */
  PSCR_PLANNER_NONE = 0,
  /**
   * Each AUTO dimension takes the method of the vector that the plan's cost
   * model expects to solve fastest: the transforms' products at the
   * backend's product rate, every other modelled byte at its byte rate
   * (constants measured per device kind, docs/performance.md). Costs no
   * solve and one eigenproblem per dimension (a second where a transform
   * fails the probe and the dimension falls back to the reduction).
   */
  PSCR_PLANNER_ESTIMATE = 1,
  /**
   * Builds the plan of each eligible vector and times its solves on the
   * plan's backend and threads (CUDA: device arrays, CUDA events), cheapest
   * estimate first: one untimed solve (first use: loading kernels), then
   * the median of three timed ones, or one where it took over 1.25 times
   * the best median so far. Keeps the fastest. A candidate whose estimate
   * is over 4 times the cheapest's is not timed (its status stays
   * PSCR_SUCCESS, its reason says so): the model is within 2.2 times of
   * the measured times wherever we measured it. A candidate that fails to build or to solve is skipped and
   * reported in pscr_info.candidate; the plan fails only when every one
   * does. At most two plans exist at a time (the best so far and the
   * candidate), so the peak memory is about twice a plan's.
   */
  PSCR_PLANNER_MEASURE = 2
} pscr_planner;

/**
 * A symmetric tridiagonal pencil (A, M) of order n. Entries have the plan's
 * dtype. The arrays are copied at plan creation and may be freed afterwards.
 */
typedef struct pscr_pencil {
  int n;              /**< order, >= 1 */
  const void *a_diag; /**< n entries */
  const void *a_off;  /**< n-1 entries (may be NULL when n == 1) */
  const void *m_diag; /**< n entries */
  const void *m_off;  /**< n-1 entries; NULL: M is diagonal */
} pscr_pencil;

/**
 * Expert and test switches of pscr_options.flags, defined once: the enum and
 * pscr_flag_name() are expanded from this list. Each selects a path that the
 * automatic choice would not take, so that tests and benchmarks can compare
 * the paths (most give bitwise the same solutions; the table in
 * docs/user-guide.md says which do not). None is needed for correct or fast
 * solves. X(name, bit, CLI name, meaning).
 */
#define PSCR_FLAG_LIST(X)                                                      \
  X(PSCR_FLAG_NO_MERGE_TOP, 1u << 0, "no-merge-top",                           \
    "n = 4^j: keep the top two reduction levels apart (default: merged)")     \
  X(PSCR_FLAG_EIGEN_SCALAR, 1u << 1, "eigen-scalar",                           \
    "eigensolver: scalar Crawford sweeps and single LR steps instead of vector lanes") \
  X(PSCR_FLAG_EIGEN_TEAM_NEVER, 1u << 2, "eigen-team-never",                   \
    "eigenvector sweep by one thread while the others produce batches")        \
  X(PSCR_FLAG_EIGEN_TEAM_ALWAYS, 1u << 3, "eigen-team-always",                 \
    "eigenvector sweep by every thread, each on its rows")                     \
  X(PSCR_FLAG_EIGEN_SPLIT_NEVER, 1u << 4, "eigen-split-never",                 \
    "eigenvector stage: never split the spectrum in two parts")                \
  X(PSCR_FLAG_EIGEN_SPLIT_ALWAYS, 1u << 5, "eigen-split-always",               \
    "eigenvector stage: split the spectrum wherever a window boundary exists") \
  X(PSCR_FLAG_CPU_FIXED_TEAM, 1u << 6, "cpu-fixed-team",                       \
    "CPU solves: always the team the work gives, never one thread by timing")  \
  X(PSCR_FLAG_NO_SINE, 1u << 7, "no-sine",                                     \
    "transforms by dense products, never the fast sine transform")             \
  X(PSCR_FLAG_CUDA_NO_TOEPLITZ, 1u << 8, "cuda-no-toeplitz",                   \
    "CUDA level 3: load the last factors per row, never from Toeplitz row classes") \
  X(PSCR_FLAG_CUDA_NO_PIVOT_TABLE, 1u << 9, "cuda-no-pivot-table",             \
    "CUDA level 3: eliminate every chunk, never from a plan-time pivot table") \
  X(PSCR_FLAG_CUDA_NO_STAGE, 1u << 10, "cuda-no-stage",                        \
    "CUDA level 3: read the factor table from device memory, never staged in shared memory") \
  X(PSCR_FLAG_CUDA_NO_EARLY_LAUNCH, 1u << 11, "cuda-no-early-launch",          \
    "CUDA: plain stream order, no programmatic dependent launch")             \
  X(PSCR_FLAG_CUDA_PAIR_NEVER, 1u << 12, "cuda-pair-never",                    \
    "CUDA level 3: one system per pass, never two")                            \
  X(PSCR_FLAG_CUDA_PAIR_ALWAYS, 1u << 13, "cuda-pair-always",                  \
    "CUDA level 3: two systems per pass wherever the kernel has that form")    \
  X(PSCR_FLAG_CUDA_COUPLE_ONE, 1u << 14, "cuda-couple-one",                    \
    "CUDA coupling and gather kernels: one entry per thread")                  \
  X(PSCR_FLAG_CUDA_COUPLE_MANY, 1u << 15, "cuda-couple-many",                  \
    "CUDA coupling and gather kernels: several entries per thread wherever slabs allow") \
  X(PSCR_FLAG_CUDA_FUSE_NEVER, 1u << 16, "cuda-fuse-never",                    \
    "CUDA 2D: the weighted sums always a separate pass, never inside level 3") \
  X(PSCR_FLAG_CUDA_FUSE_ALL, 1u << 17, "cuda-fuse-all",                        \
    "CUDA 2D: the weighted sums inside level 3 on every level whose kernel fits") \
  X(PSCR_FLAG_CUDA_NO_TWIST, 1u << 18, "cuda-no-twist",                        \
    "CUDA transforms: plain Thomas for their systems, never the twisted factorization") \
  X(PSCR_FLAG_MPI_LOCAL_PLANS, 1u << 19, "mpi-local-plans",                    \
    "distributed solves by the ranks' local plans (two interior solves), not one pass in the transverse modes") \
  X(PSCR_FLAG_CUDA_PCR_REFINE_ALL, 1u << 20, "cuda-pcr-refine-all",            \
    "CUDA level 3: refine every partitioned system's boundary solve, not only where its rows are weakly dominant") \
  X(PSCR_FLAG_CUDA_TF_NO_PARTITION, 1u << 21, "cuda-tf-no-partition",          \
    "CUDA 2D sine transforms: the Thomas systems of the modes by the plain kernel, not the partitioned solver") \
  X(PSCR_FLAG_TEST_CUDA_SLAB_1000, 1u << 24, "test-cuda-slab-1000",            \
    "CUDA: refuse 3D problems with n2*n3 > 1000 (tests AUTO's CPU fallback on small plans)") \
  X(PSCR_FLAG_TEST_TRANSFORM_PROBE_FAILS, 1u << 25, "test-transform-probe-fails",      \
    "planners: count every transform of an AUTO dimension as failing its accuracy probe") \
  X(PSCR_FLAG_TEST_MEASURE_TRANSFORM_FAILS, 1u << 26, "test-measure-transform-fails", \
    "MEASURE: fail the timed solves of every vector with a transform (tests the skip)")

#define PSCR_FLAG_ENUM_(name, bit, cli, text) name = (int)(bit),
/** Bits of pscr_options.flags (values are part of the ABI). */
typedef enum pscr_flag { PSCR_FLAG_LIST(PSCR_FLAG_ENUM_) } pscr_flag;
#undef PSCR_FLAG_ENUM_

/**
 * @brief Command-line name of one flag bit ("no-merge-top", ...), as the
 *        tools' --flags option takes it.
 * @param[in] flag one bit of PSCR_FLAG_LIST.
 * @return a static string, or NULL when @p flag is not exactly one known bit.
 */
PSCR_EXTERN const char *pscr_flag_name(unsigned int flag);

/**
 * Plan options. Always initialize with pscr_options_init(), which sets
 * every field to its default (and @c size), then change what you need.
 */
typedef struct pscr_options {
  /** sizeof(pscr_options) of the caller's header, set by pscr_options_init(). */
  size_t size;
  pscr_backend backend; /**< default AUTO */
  int device;           /**< CUDA device ordinal, default 0 */
  int num_threads;      /**< CPU threads, 0 (default): all (OpenMP default) */
  int check_finite;     /**< pscr_solve checks f for NaN/Inf (default 1) */
  /**
   * CUDA level-3 solver (the tridiagonal subproblems along the last
   * dimension). 0 (default): automatic. 2, 4, 8 or 16: the partitioned
   * Thomas/PCR hybrid with this many rows per thread (each thread eliminates
   * its rows with Thomas in registers, the chunk boundaries are solved by PCR
   * across the thread block). -1: one thread per subproblem, plain Thomas with
   * the intermediates in global memory (the slow reference path). Any other
   * value: PSCR_ERROR_INVALID_VALUE. Ignored by the CPU backend.
   */
  int cuda_rows_per_thread;
  /**
   * Batches (pscr_solve_batch, pscr_solve_device_batch): the most right-hand
   * sides one CUDA launch sequence carries. Default 1: a plan's device memory
   * is that of a single solve, and a batch runs as consecutive solves. K > 1
   * multiplies the CUDA workspace (about K times the level workspaces and
   * the host-solve buffer, each about n1*n2(*n3) elements; pscr_info
   * device_bytes says how much) and lets a batch of nrhs run as
   * ceil(nrhs / K) launch sequences of up to K right-hand sides each.
   * < 1: PSCR_ERROR_INVALID_VALUE. Validated, and otherwise ignored, by the
   * CPU backend.
   */
  int max_batch;
  /**
   * Expert and test switches: a bitwise OR of pscr_flag values, default 0
   * (every choice automatic). Read once, by pscr_plan_create. Unknown bits,
   * or both bits of a NEVER/ALWAYS (ONE/MANY) pair:
   * PSCR_ERROR_INVALID_VALUE.
   */
  unsigned int flags;
  /**
   * The method of each reduced dimension: method[0] for dimension 1,
   * method[1] for dimension 2 of a 3D plan (it must be AUTO in 2D). Default
   * AUTO. Other values, or a method[1] other than AUTO in 2D:
   * PSCR_ERROR_INVALID_VALUE. A forced TRANSFORM whose eigenvectors do
   * not fit in memory: PSCR_ERROR_HOST_ALLOC (or _DEVICE_ALLOC). New in 0.2.
   */
  pscr_method method[2];
  /** How AUTO entries of method are resolved (pscr_planner); default
      PSCR_PLANNER_ESTIMATE (PSCR_PLANNER_NONE pins the reduction). Other
      values: PSCR_ERROR_INVALID_VALUE. New in 0.2. */
  pscr_planner planner;
  /**
   * Steps of iterative refinement after every solve, 0 (default) to
   * PSCR_REFINE_MAX: each step computes the residual r = f - A u with the
   * library's operator (pscr_operator_apply's, from the plan's double
   * copy of the factors), solves A d = r with the plan and adds d to u.
   * Host arrays: the residual on the host, in double (double complex)
   * also for float plans; device arrays (CUDA): on the device, on the
   * solve's stream, the same way. It repairs what the reduction's
   * near-resonant subproblems lose on indefinite (Helmholtz) problems
   * (docs/accuracy.md). Costs one solve and one operator application per
   * step, and u-sized buffers allocated with the plan (pscr_info
   * workspace_bytes, device_bytes). Batches are refined one right-hand side
   * at a time. Other values: PSCR_ERROR_INVALID_VALUE. New in 0.2.
   */
  int refine;
  /**
   * 1: the refinement's correction solves (A d = r) of a double plan (R64,
   * C64) run in single precision, by a float plan of the same pencils
   * that this plan holds (pscr_info workspace_bytes and device_bytes
   * include it); the first solve and every residual stay double. A
   * correction needs only a few correct digits, so one step still takes
   * the backward error to a few eps, for about half a double solve (the
   * float solve's time) instead of a whole one. 0 (default): corrections
   * in the plan's own precision. Needs refine >= 1 and a double dtype;
   * otherwise, or other values: PSCR_ERROR_INVALID_VALUE. New in 0.2.
   */
  int refine_single;
  /**
   * 1: the plan solves device arrays only (pscr_solve_device,
   * pscr_solve_device_batch), so it holds no device buffer for host-array
   * solves: a plan whose reduced dimensions are all transformed (2D
   * transform, 3D transform x transform) then needs on the device only the
   * caller's f and u, the eigenvectors and one full-size workspace, one
   * full-size buffer less than by default (pscr_info device_bytes). Other
   * plans use their buffers for device solves too and hold the same. With
   * refine >= 1 such a plan has no host refinement buffers either
   * (pscr_info workspace_bytes). pscr_solve and pscr_solve_batch on such
   * a plan: PSCR_ERROR_INVALID_VALUE. A device batch whose ldf or ldu, in
   * bytes, is not a multiple of 256 may then give other bits than its
   * single solves (cuBLAS chooses its kernels by the operands' alignment;
   * by default less aligned vectors go through that buffer). Needs
   * backend PSCR_BACKEND_CUDA; 0 (default): host and
   * device arrays. Other values, or 1 with another backend or a
   * distributed plan: PSCR_ERROR_INVALID_VALUE. New in 0.2.
   */
  int device_only;
} pscr_options;

/** Largest pscr_options.refine. */
#define PSCR_REFINE_MAX 8

/**
 * @brief Fill @p opts with the defaults documented in pscr_options, for a
 *        struct of @p size bytes (bindings that cannot use the inline
 *        pscr_options_init pass their struct size here).
 * @param[out] opts the options to fill (NULL: PSCR_ERROR_INVALID_VALUE).
 * @param[in]  size sizeof the caller's pscr_options; fields past the
 *                  library's own struct are set to 0.
 * @return PSCR_SUCCESS, or PSCR_ERROR_INVALID_VALUE (NULL, or a size below
 *   that of pscr 0.2's pscr_options).
 */
PSCR_EXTERN pscr_status pscr_options_init_size(pscr_options *opts, size_t size);

/**
 * @brief Fill @p opts with the defaults documented in pscr_options.
 * @param[out] opts the options to fill; NULL is ignored.
 */
static inline void pscr_options_init(pscr_options *opts)
{
  if (opts)
    (void)pscr_options_init_size(opts, sizeof *opts);
}

/** Opaque plan: eigen data, level structure and workspace of one operator. */
typedef struct pscr_plan pscr_plan;

/**
 * @brief Build a plan for A = sum of Kronecker terms (eq. 7 / 8) with shift c.
 *
 * Validates the pencils, solves the generalized eigenproblems of every block
 * of every reduction level (CPU), and allocates all workspace so that a
 * solve allocates nothing.
 *
 * CUDA: the setup also runs one solve of f = 0 to learn whether the level-3
 * pivots fail (they depend on the pencils and the shift only, never on f).
 * Where the partitioned solver's sub-block pivots fail and plain Thomas's
 * do not, the plan takes plain Thomas (pscr_info.level3_rows_per_thread =
 * 0); where Thomas's fail too, the plan is still made, and every solve
 * reports PSCR_ERROR_SINGULAR (device solves: fill u with NaN), as the CPU
 * backend's solves do.
 *
 * @param[out] plan     receives the plan; set to NULL on any error.
 * @param[in]  dtype    element type of pencils, shift, f and u.
 * @param[in]  ndim     2 or 3.
 * @param[in]  pencils  ndim pencils, dimension 1 first.
 * @param[in]  shift    c: one value of dtype (NULL is an error).
 * @param[in]  opts     options, NULL for defaults.
 * @return PSCR_SUCCESS;
 *   PSCR_ERROR_INVALID_VALUE (NULL plan/pencils/shift/array, n < 1, ndim not
 *     2 or 3, unknown dtype or backend, negative num_threads or device;
 *     R32/C32: a factor past the float range once balanced);
 *   PSCR_ERROR_NOT_SUPPORTED (CUDA asked for in a CPU-only build, with no
 *     device, or for a 3D problem with n2*n3 >= 2^31; PSCR_BACKEND_AUTO
 *     takes the CPU in these cases);
 *   PSCR_ERROR_NON_FINITE (NaN/Inf in a factor or in the shift);
 *   PSCR_ERROR_NOT_DEFINITE (M1, and M2 in 3D, not positive definite (real)
 *     or a zero pivot in their reduction (complex));
 *   PSCR_ERROR_EIGEN_FAILED (an eigenproblem did not converge; R32/C32:
 *     eigen data past the float range);
 *   PSCR_ERROR_HOST_ALLOC, PSCR_ERROR_DEVICE_ALLOC, PSCR_ERROR_DEVICE.
 *   pscr_last_error() tells which argument or level failed.
 */
PSCR_EXTERN pscr_status pscr_plan_create(pscr_plan **plan, pscr_dtype dtype, int ndim,
                                         const pscr_pencil *pencils, const void *shift,
                                         const pscr_options *opts);

/**
 * @brief Solve A u = f with host arrays.
 *
 * @param[in]     plan a plan from pscr_plan_create (one thread at a time).
 * @param[in]     f    n1*n2(*n3) entries of the plan's dtype.
 * @param[out]    u    same size; u == f is allowed (in place). Other
 *                     overlaps are not.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL argument);
 *   PSCR_ERROR_NON_FINITE (NaN/Inf in f, when options.check_finite; u is
 *   not written); PSCR_ERROR_SINGULAR (a shifted tridiagonal subproblem
 *   has a zero pivot; u holds no solution); PSCR_ERROR_NOT_SUPPORTED;
 *   PSCR_ERROR_DEVICE. On error f is untouched unless u == f.
 */
PSCR_EXTERN pscr_status pscr_solve(pscr_plan *plan, const void *f, void *u);

/**
 * @brief Solve A u = f with device arrays, enqueued on a CUDA stream.
 *
 * No allocation and no host synchronization. Requires a plan on the CUDA
 * backend. Stream-ordered: work enqueued on `stream` after the call sees
 * u complete. (The solve's own kernels launch early where
 * pscr_info.cuda_early_launch says so; a kernel of the caller's launched
 * with programmatic dependent launch must, as after any kernel, wait with
 * cudaGridDependencySynchronize() before it reads u.)
 *
 * @param[in]  plan   a CUDA plan.
 * @param[in]  f      device array.
 * @param[out] u      device array; u == f allowed.
 * @param[in]  stream cudaStream_t, NULL for the default stream.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE; PSCR_ERROR_NOT_SUPPORTED
 *   (CPU plan or CPU-only build); PSCR_ERROR_DEVICE.
 */
PSCR_EXTERN pscr_status pscr_solve_device(pscr_plan *plan, const void *f, void *u,
                                          void *stream);

/**
 * @brief Solve A u_r = f_r for nrhs right-hand sides with host arrays.
 *
 * Right-hand side r (0-based) is f + r*ldf, its solution u + r*ldu (offsets
 * in elements of the plan's dtype); the elements between consecutive vectors
 * (when ld > n1*n2(*n3)) are neither read nor written. Each u_r is bitwise
 * the u of pscr_solve(plan, f_r, u_r). The CUDA backend solves up to
 * options.max_batch right-hand sides per launch sequence.
 *
 * @param[in]  plan  a plan from pscr_plan_create (one thread at a time).
 * @param[in]  nrhs  number of right-hand sides, >= 1.
 * @param[in]  f     nrhs vectors of n1*n2(*n3) entries, ldf apart.
 * @param[in]  ldf   distance between consecutive f_r in elements, >= n1*n2(*n3).
 * @param[out] u     nrhs vectors, ldu apart; u == f with ldu == ldf is allowed
 *                   (in place). Any other overlap of a u_r with an f_s is not.
 * @param[in]  ldu   distance between consecutive u_r in elements, >= n1*n2(*n3).
 * @return PSCR_SUCCESS;
 *   PSCR_ERROR_INVALID_VALUE (NULL plan, f or u; nrhs < 1; ldf or ldu below
 *     n1*n2(*n3); extents past the address space; u overlapping f other than
 *     exactly in place; nothing is written);
 *   PSCR_ERROR_NON_FINITE (NaN/Inf in some f_r, when options.check_finite:
 *     every f_r is checked before any solve; u is not written);
 *   PSCR_ERROR_SINGULAR (a shifted tridiagonal subproblem has a zero pivot,
 *     or a solution overflowed: the affected u_r are filled with NaN, the
 *     others hold their solutions; pscr_last_error() names the first affected
 *     right-hand side);
 *   PSCR_ERROR_NOT_SUPPORTED; PSCR_ERROR_DEVICE (u partly written). On error
 *   f is untouched unless u == f.
 */
PSCR_EXTERN pscr_status pscr_solve_batch(pscr_plan *plan, int nrhs, const void *f, size_t ldf,
                                         void *u, size_t ldu);

/**
 * @brief pscr_solve_batch with device arrays, enqueued on a CUDA stream.
 *
 * Up to options.max_batch right-hand sides per launch sequence, so a batch
 * makes about ceil(nrhs / max_batch) times the launches of one
 * pscr_solve_device. No allocation and no host synchronization: the call can
 * be captured into a CUDA graph. Each u_r is bitwise the u of
 * pscr_solve_device(plan, f_r, u_r, stream). A zero pivot cannot be reported
 * synchronously: the affected u_r are filled with NaN (as pscr_solve_device).
 * Requires a plan on the CUDA backend.
 *
 * @param[in]  plan    a CUDA plan.
 * @param[in]  nrhs    number of right-hand sides, >= 1.
 * @param[in]  f       device array: nrhs vectors, ldf elements apart.
 * @param[in]  ldf     >= n1*n2(*n3).
 * @param[out] u       device array: nrhs vectors, ldu elements apart; u == f
 *                     with ldu == ldf allowed (in place), other overlaps not.
 *                     The gaps between vectors are not touched.
 * @param[in]  ldu     >= n1*n2(*n3).
 * @param[in]  stream  cudaStream_t, NULL for the default stream.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (as pscr_solve_batch);
 *   PSCR_ERROR_NOT_SUPPORTED (CPU plan or CPU-only build); PSCR_ERROR_DEVICE.
 */
PSCR_EXTERN pscr_status pscr_solve_device_batch(pscr_plan *plan, int nrhs, const void *f,
                                                size_t ldf, void *u, size_t ldu, void *stream);

/**
 * @brief pscr_solve_device, timed per stage kind with CUDA events (for
 *        roofline studies; not for production solves).
 *
 * Records an event after every launch of the solve on @p stream, waits for
 * the stream, and adds the time between consecutive events to the stage
 * kind of the launch that ends the interval. The events separate the
 * launches, so the sum is a little above the time of an unprofiled solve.
 * Unlike pscr_solve_device it creates and destroys events and synchronizes.
 *
 * @param[in]  plan, f, u, stream  as for pscr_solve_device.
 * @param[out] ms  PSCR_STAGE_COUNT entries: milliseconds per stage kind.
 * @return as pscr_solve_device; PSCR_ERROR_NOT_SUPPORTED on a CPU plan.
 */
PSCR_EXTERN pscr_status pscr_solve_device_profile(pscr_plan *plan, const void *f, void *u,
                                                  void *stream, double *ms);

/**
 * @brief Release a plan and everything it owns (host and device memory).
 * @param[in] plan a plan from pscr_plan_create, or NULL (nothing happens).
 */
PSCR_EXTERN void pscr_plan_destroy(pscr_plan *plan);

/**
 * Stage kinds of a solve, for the cost model (pscr_info.cost) and the
 * profile (pscr_solve_device_profile); the paper's Figs. 6-7 split the time
 * the same way (level-1/2 stages against the level-3 solver).
 */
typedef enum pscr_stage {
  PSCR_STAGE_LEVEL3 = 0,   /**< level 3: the tridiagonal subproblems (A_l + s M_l) y = r of the
                            last dimension, their right-hand sides formed on the fly (eqs. 25, 28) */
  PSCR_STAGE_SUMS = 1,     /**< weighted sums over eigenpairs: L_B, R_B (eq. 26) and u on D(B)
                            (eq. 29); the two products of a dense transform
                            (PSCR_METHOD_TRANSFORM) */
  PSCR_STAGE_COUPLING = 2, /**< couplings T(j, j+-1) y: the F_j updates (eq. 27) and gL, gR of
                            the back substitution */
  PSCR_STAGE_GATHER = 3,   /**< 3D: right-hand sides of the 2D subproblems, formed as whole slabs */
  PSCR_STAGE_OTHER = 4,    /**< copying f to u (CPU), clearing and testing the singular flag */
  PSCR_STAGE_COUNT = 5     /**< the number of stage kinds (may grow in a minor release) */
} pscr_stage;

/**
 * @brief Name of a stage kind.
 * @param[in] stage a pscr_stage value.
 * @return a static string: "level3", "sums", "coupling", "gather", "other",
 *   or "unknown" for any other value.
 */
PSCR_EXTERN const char *pscr_stage_name(pscr_stage stage);

/**
 * Modelled work of one solve (one right-hand side) in one stage kind, from
 * the plan's level structure (src/cost.c states the model line by line):
 * - flops: floating-point operations as the backend executes them. Real: +,
 *   -, *, / and a reciprocal count 1 (an FMA 2). Complex: + 2, * 6, a
 *   reciprocal 9 (the scaled formula of the kernels), |.|_1 1. The level-3
 *   count is that of the backend's solver (plain Thomas, or the CUDA
 *   partitioned Thomas/PCR hybrid with its redundant work and padding).
 * - bytes: global-memory traffic of the stage's kernels, each kernel reading
 *   every distinct vector-sized element it needs once and writing every
 *   element it produces once (perfect caching within a kernel, none between
 *   kernels); O(n) tables (factors, eigenvalues, weights, index tables) are
 *   not counted.
 * - launches: CUDA kernel launches and copies (the CPU backend runs the same
 *   stages as OpenMP loops).
 */
typedef struct pscr_cost {
  double flops;    /**< floating-point operations, counted as above */
  double bytes;    /**< global-memory bytes read and written */
  double launches; /**< kernel launches and copies (CPU: the same passes) */
} pscr_cost;

/** One method vector a planner considered (pscr_info.candidate; new in 0.2). */
typedef struct pscr_candidate {
  /** REDUCTION or TRANSFORM per reduced dimension (AUTO for dimension 2 of a 2D plan). */
  pscr_method method[2];
  /**
   * PSCR_SUCCESS for a vector that was eligible (and, under MEASURE,
   * timed); otherwise why it was not taken: PSCR_ERROR_NOT_SUPPORTED (the
   * backend does not take it, or its eigenvectors would take over a
   * quarter of the host's memory), PSCR_ERROR_EIGEN_FAILED (an eigensolve
   * failed, or a transform failed its accuracy probe), an _ALLOC status,
   * or whatever its plan or solve returned (MEASURE).
   */
  pscr_status status;
  /** Why, when status is not PSCR_SUCCESS (the error message, shortened), or
      why a MEASURE candidate was not timed; empty otherwise. */
  char reason[160];
  double estimate_seconds; /**< the cost model's time of one solve; 0 where not estimated */
  double measured_seconds; /**< MEASURE: median seconds of one timed solve; 0 otherwise */
} pscr_candidate;

/** What a plan is, as built (pscr_plan_info). */
typedef struct pscr_info {
  /** Bytes of this struct that pscr_plan_info filled: the caller's
      sizeof(pscr_info), or the library's where that is smaller. */
  size_t size;
  pscr_backend backend;   /**< backend actually used (never AUTO) */
  int num_threads;        /**< CPU threads a solve uses */
  pscr_dtype dtype;       /**< the plan's element type */
  int ndim;               /**< 2 or 3 */
  int n[3];               /**< sizes, n[2] = 1 in 2D */
  /** Reduction levels k of dimension 1 and (3D) 2: floor(log4 n) + 1, one
      fewer where n = 4^j (the top two levels are one, with four
      separators); 0 for a dimension solved by PSCR_METHOD_TRANSFORM. */
  int levels[2];
  size_t eigenpairs;      /**< eigenpairs stored, all levels and dimensions (n_d per transformed dimension) */
  size_t workspace_bytes; /**< host memory owned by the plan */
  size_t device_bytes;    /**< device memory owned by the plan */
  /**
   * Level-3 solver of the plan: rows per thread M of the CUDA partitioned
   * Thomas/PCR solver (2, 4, 8 or 16) and threads per subproblem P (a power
   * of two, P M >= n_last); 0 and 1 for plain Thomas (the CPU backend, and
   * CUDA with cuda_rows_per_thread -1 or subproblems too long for P <= 512).
   */
  int level3_rows_per_thread;
  /** Threads per subproblem P of the partitioned solver; 1 for plain Thomas. */
  int level3_threads_per_system;
  /**
   * 1 when the CUDA level-3 solver forms the last dimension's factors from
   * a table of four row classes in shared memory instead of loading them
   * per row: plans whose A_n and M_n are Toeplitz but for their first
   * and last rows (every uniform mesh), when the full factor table is too
   * large for shared memory (M >= 8 rows per thread); complex plans only
   * together with level3_pivot_table. Otherwise 0. The solutions are
   * bitwise those of the table path. PSCR_FLAG_CUDA_NO_TOEPLITZ turns it
   * off.
   */
  int level3_toeplitz;
  /**
   * 1 when the CUDA level-3 solver also takes the elimination of each
   * chunk of rows (its pivots and multipliers, which depend on the
   * eigenvalue but not on the right-hand side) from a table built at plan
   * time, instead of a reciprocal per row on the dependent chain: 2D plans
   * with level3_toeplitz set, unless a pivot of the table would fail the
   * solver's pivot test; real and complex. Costs 4 (4 M - 2) values per
   * eigenpair of the first dimension in device_bytes (4095^2 double: 46
   * MB). Same numbers to rounding, not bitwise.
   * PSCR_FLAG_CUDA_NO_PIVOT_TABLE turns it off.
   */
  int level3_pivot_table;
  /**
   * 1 when each thread block of the CUDA level-3 solver first copies the
   * last dimension's factor table (4 P M values) to shared memory and
   * reads it from there: tables of at most 16 KiB with P <= 256. 0
   * otherwise: a larger table is read from device memory per row (or
   * formed from row classes, level3_toeplitz). The solutions are bitwise
   * those of the unstaged path. PSCR_FLAG_CUDA_NO_STAGE turns it off.
   */
  int level3_staged;
  /**
   * Levels (of the last-but-one dimension's reduction) whose weighted sums
   * the CUDA level-3 kernel adds up itself in the forward reduction, so
   * that the level's solutions never reach device memory: 2D plans, on the
   * levels long enough to keep the device busy (H100: from about n =
   * 2047), when the kernel keeps 16 warps per SM (real types; double at 16
   * rows per thread only with level3_pivot_table). 0 otherwise.
   * PSCR_FLAG_CUDA_FUSE_NEVER turns it off, PSCR_FLAG_CUDA_FUSE_ALL fuses
   * every level whose kernel fits at all.
   */
  int level3_fused_levels;
  /**
   * 1 when the back substitution adds up the sums of those levels too; 0
   * when only the forward reduction does (its kernel keeps two sums per
   * row, the back substitution's three: double at 16 rows per thread).
   * (The merged top level of n = 4^j, whose back pass keeps four sums,
   * fuses only in real plans and where that kernel still keeps 16 warps
   * per SM; otherwise its sums are a separate pass.)
   */
  int level3_fused_back;
  /**
   * 1 when the CUDA solve launches its kernels early (programmatic
   * dependent launch, compute capability 9.0 and later): each kernel's
   * blocks are scheduled while the previous kernel's last blocks run, and
   * wait on the device until it has finished. The solve's first kernel is
   * never launched early: it follows the caller's earlier work on the
   * stream in plain stream order. The same numbers, bitwise;
   * less time between kernels. PSCR_FLAG_CUDA_NO_EARLY_LAUNCH turns it
   * off. 0 on the CPU backend.
   */
  int cuda_early_launch;
  /**
   * The cost model of one solve of ONE right-hand side, per stage kind. A
   * batch of K (pscr_solve_batch) does K times the flops and bytes; on the
   * CUDA backend its launches are those of one solve per group of up to
   * max_batch.
   */
  pscr_cost cost[PSCR_STAGE_COUNT];
  pscr_cost cost_total;             /**< the sum over stage kinds */
  double min_bytes; /**< the least traffic of any solve: read f once, write u once */
  /** The method of each reduced dimension (REDUCTION or TRANSFORM; AUTO for
      dimension 2 of a 2D plan). New in 0.2. */
  pscr_method method[2];
  /**
   * The eigenvectors' defect of each transformed dimension d, measured at
   * plan creation by a probe with a random vector z (the same every time):
   * the larger of |W^T M W z - z| / |z| and |A W z - M W Lambda z| /
   * ((|A| + max|lambda| |M|) |W z|), 2-norms, |A| the largest row sum. It
   * bounds what the transform adds to a solve's backward error. 0 for a
   * reduced dimension. New in 0.2.
   */
  double transform_defect[2];
  /** Vectors the planner considered (0 with PSCR_PLANNER_NONE or no AUTO
      dimension), in candidate[0 .. ncandidates-1]. New in 0.2. */
  int ncandidates;
  /** Index in candidate of the plan's own vector; -1 when ncandidates is 0. */
  int chosen;
  /** What the planner knew of each vector (ESTIMATE, MEASURE). New in 0.2. */
  pscr_candidate candidate[4];
  /** Wall time of pscr_plan_create, seconds (all of MEASURE's plans and
      solves included). New in 0.2. */
  double plan_seconds;
  /**
   * 1 when the transform of reduced dimension d is applied by a fast sine
   * transform (O(n log n) per vector) instead of dense products: a pencil
   * that is a real symmetric Toeplitz pair (A_d = tridiag(a, b, a), M_d =
   * tridiag(m, g, m): every uniform mesh, Dirichlet ends) of order n_d
   * with n_d + 1 a power of two, unless PSCR_FLAG_NO_SINE; on the CPU
   * backend in 2D and 3D (in 3D with both dimensions transformed, only
   * when both qualify), on the CUDA backend in 2D (cuFFT).
   * Such a pencil's eigenpairs are taken in closed form on every backend.
   * 0 otherwise. New in 0.2.
   */
  int transform_sine[2];
} pscr_info;

/**
 * @brief Describe a plan into a pscr_info of @p size bytes (bindings that
 *        cannot use the inline pscr_plan_info pass their struct size here).
 * @param[in]  plan a plan.
 * @param[out] info receives min(size, sizeof(pscr_info)) bytes; info->size
 *                  says how many.
 * @param[in]  size sizeof the caller's pscr_info.
 * @return PSCR_SUCCESS or PSCR_ERROR_INVALID_VALUE (NULL argument, or a size
 *   below that of pscr 0.2's pscr_info).
 */
PSCR_EXTERN pscr_status pscr_plan_info_size(const pscr_plan *plan, pscr_info *info, size_t size);

/**
 * @brief Describe a plan.
 * @param[in]  plan a plan.
 * @param[out] info receives the description.
 * @return PSCR_SUCCESS or PSCR_ERROR_INVALID_VALUE (NULL argument).
 */
static inline pscr_status pscr_plan_info(const pscr_plan *plan, pscr_info *info)
{
  return pscr_plan_info_size(plan, info, sizeof *info);
}

/* ------------------------------------------------------------------------ */
/* The operator itself, for residuals and for Krylov users.                  */

/**
 * @brief out = A u for the operator of eq. 7 (ndim 2) or eq. 8 (ndim 3).
 * @param[in]  dtype   element type of the pencils, shift, u and out.
 * @param[in]  ndim    2 or 3.
 * @param[in]  pencils ndim pencils, dimension 1 first (as for pscr_plan_create).
 * @param[in]  shift   c: one value of dtype.
 * @param[in]  u    input vector (layout as in the file comment).
 * @param[out] out  result; must not overlap u.
 *   R32/C32 compute in float (for a residual of a float solve in double,
 *   widen the data and use R64/C64).
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE, PSCR_ERROR_HOST_ALLOC.
 */
PSCR_EXTERN pscr_status pscr_operator_apply(pscr_dtype dtype, int ndim,
                                            const pscr_pencil *pencils, const void *shift,
                                            const void *u, void *out);

/**
 * @brief Infinity norm of A (maximum absolute row sum), computed exactly
 *        from the factors without forming A.
 * @param[in]  dtype   element type of the pencils and shift.
 * @param[in]  ndim    2 or 3.
 * @param[in]  pencils ndim pencils, dimension 1 first.
 * @param[in]  shift   c: one value of dtype.
 * @param[out] norm    receives ||A||_inf.
 * @return as pscr_operator_apply.
 */
PSCR_EXTERN pscr_status pscr_operator_norm_inf(pscr_dtype dtype, int ndim,
                                               const pscr_pencil *pencils,
                                               const void *shift, double *norm);

/* ------------------------------------------------------------------------ */
/* Problem builders (problems/): the paper's test problems, section 5.1.    */

/** Which model problem. */
typedef enum pscr_problem_kind {
  PSCR_PROBLEM_POISSON = 0,  /**< -lap u = f, Dirichlet, piecewise-linear FE, eq. 31 (R64) */
  PSCR_PROBLEM_HELMHOLTZ = 1 /**< -lap u - w^2 u = f, 2nd-order ABC, bilinear FE, eqs. 33-35 (C64) */
} pscr_problem_kind;

/**
 * @brief Poisson factors of one dimension (eq. 31): piecewise-linear FE on
 *        the nodes strictly inside a mesh with n+1 steps, lumped mass.
 *
 * Node l (0-based) lies between steps h[l] and h[l+1].
 * A = tridiag(-1/h[l], 1/h[l] + 1/h[l+1], -1/h[l+1]), M = diag((h[l]+h[l+1])/2).
 *
 * @param[in]  n      number of unknowns, >= 1.
 * @param[in]  h      n+1 mesh steps, all > 0 and finite.
 * @param[out] a_diag n entries: the diagonal of A.
 * @param[out] a_off  n-1 entries: the off-diagonal of A.
 * @param[out] m_diag n entries: the (lumped) diagonal of M.
 * @param[out] m_off  n-1 entries set to 0, or NULL (M is diagonal).
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE (NULL, n < 1, h <= 0),
 *   PSCR_ERROR_NON_FINITE.
 */
PSCR_EXTERN pscr_status pscr_poisson_factors(int n, const double *h, double *a_diag,
                                             double *a_off, double *m_diag, double *m_off);

/**
 * @brief Helmholtz factors of one dimension with the second-order absorbing
 *        boundary condition (eqs. 33-35): bilinear FE on n nodes including
 *        both boundary nodes, consistent mass.
 *
 * Complex arrays are interleaved (re, im). Node l lies between steps h[l-1]
 * and h[l]; the boundary rows carry -i w/2 in A and +i/(2 w) in M.
 *
 * @param[in]  n      nodes, >= 2.
 * @param[in]  h      n-1 mesh steps, all > 0 and finite.
 * @param[in]  omega  wave number, > 0 and finite.
 * @param[out] a_diag 2n doubles: the diagonal of A, (re, im) pairs.
 * @param[out] a_off  2(n-1) doubles: the off-diagonal of A.
 * @param[out] m_diag 2n doubles: the diagonal of M.
 * @param[out] m_off  2(n-1) doubles: the off-diagonal of M.
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE, PSCR_ERROR_NON_FINITE.
 */
PSCR_EXTERN pscr_status pscr_helmholtz_factors(int n, const double *h, double omega,
                                               double *a_diag, double *a_off,
                                               double *m_diag, double *m_off);

/**
 * @brief Mesh steps of a uniform mesh: h[i] = length / nsteps.
 * @param[in]  nsteps number of steps, >= 1.
 * @param[in]  length the interval's length, > 0 and finite.
 * @param[out] h      nsteps entries.
 * @return PSCR_SUCCESS or PSCR_ERROR_INVALID_VALUE (NULL, nsteps < 1,
 *   length not > 0 and finite).
 */
PSCR_EXTERN pscr_status pscr_mesh_uniform(int nsteps, double length, double *h);

/**
 * @brief Mesh steps of a smoothly graded non-uniform mesh on [0, length]:
 *        nodes x = length * phi(t), t uniform in [0, 1], with
 *        phi(t) = t - grading * sin(2 pi t) / (2 pi) (monotone for
 *        0 <= grading < 1; finer near both ends for grading > 0).
 * @param[in]  nsteps  number of steps, >= 1.
 * @param[in]  length  the interval's length, > 0 and finite.
 * @param[in]  grading in [0, 1); 0 gives the uniform mesh.
 * @param[out] h       nsteps entries.
 * @return PSCR_SUCCESS or PSCR_ERROR_INVALID_VALUE (NULL, nsteps < 1, length
 *   not > 0 and finite, grading outside [0, 1)).
 */
PSCR_EXTERN pscr_status pscr_mesh_graded(int nsteps, double length, double grading,
                                         double *h);

/**
 * A model problem on [0, L1] x [0, L2] (x [0, L3]): factors, shift, node
 * coordinates. All arrays are owned by the problem.
 */
typedef struct pscr_problem {
  pscr_problem_kind kind;    /**< Poisson or Helmholtz */
  pscr_dtype dtype;          /**< R64 (Poisson) or C64 (Helmholtz) */
  int ndim;                  /**< 2 or 3 */
  int n[3];                  /**< unknowns per dimension (n[2] = 1 in 2D) */
  double omega;              /**< wave number (Helmholtz) */
  double length[3];          /**< domain lengths */
  double *x[3];              /**< node coordinates of the unknowns, n[d] each */
  double *h[3];              /**< mesh steps: n[d]+1 (Poisson), n[d]-1 (Helmholtz) */
  pscr_pencil pencils[3];    /**< ready for pscr_plan_create */
  double shift[2];           /**< c: 0 (Poisson) or -omega^2 (Helmholtz), as dtype */
  void *storage;             /**< internal */
} pscr_problem;

/**
 * @brief Build a model problem.
 * @param[out] problem receives it (NULL on error).
 * @param[in]  kind    Poisson or Helmholtz.
 * @param[in]  ndim    2 or 3.
 * @param[in]  n       ndim sizes (>= 1 Poisson, >= 2 Helmholtz).
 * @param[in]  length  ndim domain lengths (> 0), NULL for unit lengths.
 * @param[in]  grading 0 for a uniform mesh, in (0, 1) for the graded mesh of
 *                     pscr_mesh_graded in every dimension.
 * @param[in]  omega   wave number (> 0) for Helmholtz, ignored for Poisson.
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE, PSCR_ERROR_HOST_ALLOC.
 */
PSCR_EXTERN pscr_status pscr_problem_create(pscr_problem **problem, pscr_problem_kind kind,
                                            int ndim, const int *n, const double *length,
                                            double grading, double omega);

/**
 * @brief Release a problem and the arrays it owns.
 * @param[in] problem a problem from pscr_problem_create, or NULL (nothing happens).
 */
PSCR_EXTERN void pscr_problem_destroy(pscr_problem *problem);

/**
 * A scalar field: writes f(x) to value[0] (real) or value[0..1] (complex
 * problems: re, im). x has ndim coordinates.
 */
typedef void (*pscr_field_fn)(const double *x, void *ctx, double *value);

/**
 * @brief FE load vector b = (Mf1 (x) Mf2 (x) Mf3) g(nodes): the FE mass of
 *        each dimension (lumped for Poisson, consistent without the ABC terms
 *        for Helmholtz) applied to the nodal values of g.
 * @param[in]  problem a problem from pscr_problem_create.
 * @param[in]  g       the field f of the equation (pscr_field_fn).
 * @param[in]  ctx     passed to every call of g.
 * @param[out] b n1*n2(*n3) entries of the problem's dtype.
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE, PSCR_ERROR_HOST_ALLOC.
 */
PSCR_EXTERN pscr_status pscr_problem_load(const pscr_problem *problem, pscr_field_fn g,
                                          void *ctx, void *b);

/**
 * @brief Nodal values u_i = g(x_i) at every unknown.
 * @param[in]  problem a problem from pscr_problem_create.
 * @param[in]  g       the field (pscr_field_fn).
 * @param[in]  ctx     passed to every call of g.
 * @param[out] u       n1*n2(*n3) entries of the problem's dtype.
 * @return PSCR_SUCCESS or PSCR_ERROR_INVALID_VALUE (NULL problem, g or u).
 */
PSCR_EXTERN pscr_status pscr_problem_sample(const pscr_problem *problem, pscr_field_fn g,
                                            void *ctx, void *u);

/**
 * @brief A manufactured solution for convergence tests: fills the load
 *        vector b of the right-hand side that belongs to a known smooth
 *        exact solution, and that solution's nodal values u_exact.
 *
 * Poisson: u = prod_d sin(pi x_d / L_d) (zero on the boundary).
 * Helmholtz: u = (1 + i) prod_d sin^2(pi x_d / L_d), which vanishes with its
 * normal and tangential derivatives on the boundary, so the ABC holds
 * exactly and no boundary load is needed.
 *
 * @param[in]  problem a problem from pscr_problem_create.
 * @param[out] b       the load vector, n1*n2(*n3) entries of the problem's
 *                     dtype, or NULL (not wanted).
 * @param[out] u_exact the exact solution's nodal values, or NULL.
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE (NULL problem),
 *   PSCR_ERROR_HOST_ALLOC.
 */
PSCR_EXTERN pscr_status pscr_problem_manufactured(const pscr_problem *problem, void *b,
                                                  void *u_exact);

#ifdef __cplusplus
}
#endif

#endif /* PSCR_H */
