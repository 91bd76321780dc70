/**
 * @file pscr_mpi.h
 * @brief Distributed solves over MPI: each rank holds a contiguous range of
 *        dimension 1 (new in 0.2; built where CMake finds MPI,
 *        PSCR_ENABLE_MPI).
 *
 * The operator is the one of pscr.h (eq. 7 / eq. 8), global: every rank
 * passes the same global pencils and shift, and its own rows
 * [row_begin, row_end) of dimension 1. A rank's arrays are its slab: rows
 * row_begin .. row_end - 1 of the global array, in pscr.h's layout
 * ((row_end - row_begin) x n2 (x n3), dimension 1 slowest).
 *
 * The method (docs/distributed.md): the last row of every rank but the last
 * is a separator. Each rank solves its other rows (its interior) with a
 * single-process plan of the same options, so the planner's choice applies
 * locally; the separator planes' Schur complement decouples in the
 * eigenbasis of the transverse pencils into one tridiagonal system of order
 * P - 1 per transverse mode, solved with the modes spread over the ranks
 * (two all-to-alls of one plane per rank); a second interior solve then
 * gives the rest. A rank sends and receives about four planes per solve,
 * whatever the rank count.
 *
 * Every function here is collective over the plan's communicator and
 * returns the same status on every rank; a failure on one rank is reported
 * on all, with pscr_last_error() naming the rank and its cause.
 */
#ifndef PSCR_MPI_H
#define PSCR_MPI_H

#include <mpi.h>

#include "pscr.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque distributed plan. */
typedef struct pscr_mpi_plan pscr_mpi_plan;

/**
 * @brief A balanced split of n1 rows over nranks ranks: rank r gets
 *        [*row_begin, *row_end), the first n1 % nranks ranks one row more.
 *        Not collective.
 * @param[in]  n1        rows of dimension 1 (>= nranks).
 * @param[in]  nranks    ranks (>= 1).
 * @param[in]  rank      0 .. nranks - 1.
 * @param[out] row_begin first row of the rank.
 * @param[out] row_end   one past its last row.
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE.
 */
PSCR_EXTERN pscr_status pscr_mpi_split(int n1, int nranks, int rank, int *row_begin,
                                       int *row_end);

/**
 * @brief Build a distributed plan (collective).
 *
 * @param[out] plan      receives the plan; NULL on any error.
 * @param[in]  comm      the communicator (duplicated: the plan's messages
 *                       never meet the caller's).
 * @param[in]  dtype     PSCR_R64 or PSCR_C64 (float types:
 *                       PSCR_ERROR_NOT_SUPPORTED).
 * @param[in]  ndim      2 or 3.
 * @param[in]  pencils   the ndim global pencils, the same on every rank.
 * @param[in]  shift     c, the same on every rank.
 * @param[in]  row_begin this rank's first row of dimension 1.
 * @param[in]  row_end   one past its last row. The ranges, in rank order,
 *                       must tile 0 .. n1 - 1 with at least one row each
 *                       (pscr_mpi_split proposes one).
 * @param[in]  opts      options of the ranks' local plans (backend,
 *                       threads, planner, methods), NULL for defaults.
 *                       num_threads > 0: each rank's solves take exactly
 *                       that many threads (PSCR_FLAG_CPU_FIXED_TEAM: ranks
 *                       share a node as the caller split it; 0 leaves the
 *                       choice to each local plan, which counts the other
 *                       ranks' threads as load). refine: steps of the
 *                       distributed solve (0 .. PSCR_REFINE_MAX);
 *                       refine_single: PSCR_ERROR_NOT_SUPPORTED.
 * @return PSCR_SUCCESS; PSCR_ERROR_INVALID_VALUE (NULL arguments, a bad
 *   range, pencils or shift that differ between ranks: checked by a hash);
 *   PSCR_ERROR_NOT_SUPPORTED; PSCR_ERROR_SINGULAR (a rank's interior block
 *   or the separators' system is singular at plan time: a slab at
 *   resonance); any status of pscr_plan_create for a rank's local plan;
 *   PSCR_ERROR_HOST_ALLOC.
 */
PSCR_EXTERN pscr_status pscr_mpi_plan_create(pscr_mpi_plan **plan, MPI_Comm comm,
                                             pscr_dtype dtype, int ndim,
                                             const pscr_pencil *pencils, const void *shift,
                                             int row_begin, int row_end,
                                             const pscr_options *opts);

/**
 * @brief Solve A u = f for this rank's slab of f and u (collective).
 * @param[in]  plan a plan from pscr_mpi_plan_create.
 * @param[in]  f    the rank's rows of the right-hand side (host memory).
 * @param[out] u    the rank's rows of the solution; may equal f (in place).
 * @return PSCR_SUCCESS, PSCR_ERROR_INVALID_VALUE (NULL), any status of
 *   pscr_solve on a rank's local plan (then u is NaN on every rank).
 */
PSCR_EXTERN pscr_status pscr_mpi_solve(pscr_mpi_plan *plan, const void *f, void *u);

/**
 * @brief Solve A u = f for this rank's slab of device arrays, ordered on a
 *        CUDA stream (collective; new in 0.2).
 *
 * The ranks' local plans must be CUDA plans (pscr_options.backend) and
 * every rank but the last must hold two rows or more (else
 * PSCR_ERROR_NOT_SUPPORTED on every rank). The volume stays on the device:
 * the slab goes to the transverse modes (cuBLAS products) and its per-mode
 * tridiagonal systems along dimension 1 run there; the separators' steps
 * run on the GPUs with NCCL between them where the build has NCCL and each
 * rank its own GPU (pscr_mpi_info.device_nccl), else their few planes
 * cross to the host and the messages go through MPI. With
 * PSCR_FLAG_MPI_LOCAL_PLANS: the two local solves on the device, and then
 * u must not be f. With refine > 0 the solve goes through a host slab
 * (made at the first call), where host solves refine. u may be f. The
 * call returns when u is complete.
 * @param[in]  plan   a plan from pscr_mpi_plan_create.
 * @param[in]  f      the rank's rows of the right-hand side (device memory).
 * @param[out] u      the rank's rows of the solution (device memory); may be f.
 * @param[in]  stream cudaStream_t, NULL for the default stream.
 * @return as pscr_mpi_solve (but after a failure u is left as it stands,
 *   not NaN), and PSCR_ERROR_NOT_SUPPORTED (above).
 */
PSCR_EXTERN pscr_status pscr_mpi_solve_device(pscr_mpi_plan *plan, const void *f, void *u,
                                              void *stream);

/**
 * @brief nrhs solves of one plan (collective): f_r = f + r ldf and
 *        u_r = u + r ldu (elements), each as pscr_mpi_solve(plan, f_r, u_r),
 *        bitwise the same.
 * @param[in]  plan a plan from pscr_mpi_plan_create.
 * @param[in]  nrhs right-hand sides (>= 0; 0 does nothing).
 * @param[in]  f    the rank's rows of the first right-hand side.
 * @param[in]  ldf  elements between right-hand sides (>= the rank's slab).
 * @param[out] u    the rank's rows of the first solution; u == f with
 *                  ldu == ldf solves in place.
 * @param[in]  ldu  elements between solutions (>= the rank's slab).
 * @return as pscr_mpi_solve (the first failure stops the batch, and every
 *   solution from it on is NaN); PSCR_ERROR_INVALID_VALUE for nrhs < 0 or
 *   a short ldf, ldu.
 */
PSCR_EXTERN pscr_status pscr_mpi_solve_batch(pscr_mpi_plan *plan, int nrhs, const void *f,
                                             size_t ldf, void *u, size_t ldu);

/** What a distributed plan holds on this rank, and its last solve. */
typedef struct pscr_mpi_info {
  size_t size;         /**< sizeof(pscr_mpi_info), set by pscr_mpi_plan_info */
  int ranks;           /**< ranks of the plan's communicator */
  int rank;            /**< this rank */
  int row_begin;       /**< this rank's first row of dimension 1 */
  int row_end;         /**< one past its last row */
  int separator;       /**< its separator row (its last), -1 on the last rank */
  int mode_begin;      /**< first transverse mode whose separator system it solves */
  int mode_end;        /**< one past its last such mode */
  size_t bytes_sent;   /**< bytes it sends per solve (planes to neighbours,
                            its share of the all-to-alls), refinement excluded */
  double local_seconds;     /**< last pscr_mpi_solve: its interior solves */
  double exchange_seconds;  /**< last solve: waiting in and moving messages */
  double separator_seconds; /**< last solve: plane operators, transforms,
                                 the separators' systems */
  pscr_info local;     /**< the local plan's pscr_info (zeros where the
                            rank's interior is empty; in the one-pass forms,
                            the default with two ranks or more, a plan made
                            for its backend and device only, with no bytes) */
  double slab_margin;  /**< how far the slabs are from resonance, over this
                            rank's modes: the smallest pivot of a slab's 1D
                            matrix J = A1 + (sigma + c) M1 relative to the
                            terms it came from (1 with one rank; near eps: a
                            slab near resonance, refine, or move a range) */
  int device_nccl;     /**< 1 where device solves (pscr_mpi_solve_device) run
                            the separators' steps on the GPUs, exchanging
                            between them by NCCL (a build with NCCL, one rank
                            per GPU); 0 where through MPI on the host */
  size_t device_bytes; /**< device memory this rank's plan holds, the local
                            plan's included (the one-pass forms plan it
                            only: local.device_bytes is 0 there, and their
                            own slab is counted here) */
  size_t host_bytes;   /**< host memory it holds (pinned included) */
} pscr_mpi_info;

/**
 * @brief Describe a distributed plan on this rank (not collective).
 * @param[in]  plan a plan from pscr_mpi_plan_create.
 * @param[out] info receives the description.
 * @param[in]  size sizeof *info as the caller compiled it.
 * @return PSCR_SUCCESS or PSCR_ERROR_INVALID_VALUE (NULL argument, or a
 *   size below pscr 0.2's pscr_mpi_info).
 */
PSCR_EXTERN pscr_status pscr_mpi_plan_info_size(const pscr_mpi_plan *plan, pscr_mpi_info *info,
                                                size_t size);

/**
 * @brief Describe a distributed plan on this rank (not collective).
 * @param[in]  plan a plan.
 * @param[out] info receives the description.
 * @return PSCR_SUCCESS or PSCR_ERROR_INVALID_VALUE (NULL argument).
 */
static inline pscr_status pscr_mpi_plan_info(const pscr_mpi_plan *plan, pscr_mpi_info *info)
{
  return pscr_mpi_plan_info_size(plan, info, sizeof *info);
}

/**
 * @brief Release a plan (collective: it frees the plan's communicator).
 * @param[in] plan a plan, or NULL (nothing happens).
 */
PSCR_EXTERN void pscr_mpi_plan_destroy(pscr_mpi_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
