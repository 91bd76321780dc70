/*
 * The transpose-based baseline of pscr-dist-bench --baseline: the
 * distributed matrix-decomposition solver of pencil-decomposed spectral
 * codes (CaNS's eigenvector solver on cuDecomp's transposes), on the same
 * slabs of dimension 1 as pscr's distributed solve, real double.
 *
 * With W_d^T A_d W_d = Lambda_d, W_d^T M_d W_d = I for every dimension but
 * the last (LAPACKE, as bench/baselines/dense_md.c),
 *     u = (W1 (x) [W2 (x)] I) D^{-1} (W1^T (x) [W2^T (x)] I) f,
 * D block diagonal: one tridiagonal system A_l + (c + lambda1 [+ lambda2])
 * M_l per line of the last dimension. Dimension 1 is split over the ranks,
 * so its transform needs every row: all-to-all transposes. Dimension 2 is
 * split too (pscr_mpi_split: rank r owns modes / columns [c_r, d_r)).
 *
 * 3D, one transpose each way (the fewest):
 *   1. W2^T along dimension 2 on the rank's planes, one batched GEMM per
 *      destination rank q (its columns of W2), written straight into the
 *      send buffer as q's block [i1][k2 of q][i3]: no packing (the own
 *      block straight into the receive buffer: no copy);
 *   2. all-to-all: each rank receives [i1 all][k2 of its own][i3], the
 *      blocks of the sources one after another: no unpacking;
 *   3. W1^T along dimension 1: one GEMM, transposed operands, leaving
 *      [k2][i3][k1] (k1 fastest);
 *   4. Thomas along dimension 3 for every (k2, k1): consecutive k1 are
 *      consecutive systems at consecutive addresses (GPU: one thread per
 *      system, coalesced; CPU: the row loop runs over up to 64 systems at
 *      once, vectorized);
 *   5. W1 back, one GEMM per destination q (its rows i1), into q's block
 *      [i1 of q][k2 own][i3] (the own block straight into the receive
 *      buffer);
 *   6. all-to-all back: [q][i1 own][k2 of q][i3];
 *   7. W2 back: per source q a batched GEMM over i1, accumulated (beta 1).
 *   Bytes per rank per solve: 2 * 8 * nl1 (n2 - nl2) n3
 *   (about 16 (P - 1) n1 n2 n3 / P^2).
 * 2D (dimension 2 is the tridiagonal one), four transposes:
 *   pack [i1 own][i2 of q] per q; all-to-all to [i1 all][i2 own];
 *   W1^T as one GEMM per destination q (its rows of k1), written as q's
 *   block [i2 own][k1 of q]; all-to-all to [i2 all][k1 own] (consecutive k1
 *   consecutive); Thomas along i2 for each own k1; all-to-all back to
 *   [q][i2 own][k1 of q]; W1 accumulated over q into [i1 all][i2 own];
 *   all-to-all back to [q][i1 own][i2 of q]; unpack. The own block of the
 *   first and last transposes is packed into / unpacked from the receive
 *   buffer directly; the middle two copy it.
 *   Bytes per rank per solve: 2 * 8 (nl1 (n2 - nl2) + nl2 (n1 - nl1)).
 *   (Not taken: a reduce-scatter of each rank's partial product W1(rows
 *   own, :)^T F_own instead of the two transposes around the first GEMM,
 *   the same bytes at P = 2 but P/2 times more beyond; diagonalizing
 *   dimension 2 too, which trades Thomas for two more dense GEMMs.)
 * One rank: no exchange and no copy (the transforms read and write f, u
 * and the work buffers directly). Bytes count only what goes to other
 * ranks.
 *
 * Backends: CPU (host arrays; cblas_dgemm column-major, a batch of small
 * products shared over the OpenMP threads with one OpenBLAS thread each;
 * MPI_Alltoallv; Thomas and copies on OpenMP threads) and CUDA (one device
 * per rank; cuBLAS, NCCL grouped ncclSend/ncclRecv on device buffers, the
 * Thomas kernel; host or device f and u, stage times from CUDA events),
 * the latter built where CMake finds NCCL (DT_HAVE_GPU).
 */
#ifndef PSCR_BENCH_DIST_TRANSPOSE_H
#define PSCR_BENCH_DIST_TRANSPOSE_H

#include <stddef.h>

#include "pscr.h"
#include "pscr_mpi.h"

typedef struct dt_solver dt_solver;

/*
 * @brief Build the baseline (collective over @p comm).
 * @param ndim, pencils, shift   the global operator (real double pencils).
 * @param row_begin, row_end     this rank's rows of dimension 1 (the ranges
 *                               must tile 0 .. n1-1 in rank order).
 * @param cuda     0: CPU; 1: CUDA on @p device (f and u device arrays when
 *                 @p device_arrays, else host arrays copied in and out).
 * @param threads  OpenMP threads of the CPU Thomas and copies (0: the
 *                 node's processors over its ranks, at least 1).
 * @return the same on every rank: PSCR_SUCCESS; PSCR_ERROR_NOT_SUPPORTED
 *   when this configuration cannot run the baseline (no NCCL or LAPACKE in
 *   the build, n2 below the rank count, ranks sharing a device, a size over
 *   an int count): not a failure of the baseline, @p msg says why; any other
 *   status is a failure, @p msg naming the lowest failing rank and cause.
 *   The eigendecompositions (rank 0, broadcast), allocations and the NCCL
 *   communicator are all made here: dt_setup_seconds.
 */
pscr_status dt_create(dt_solver **s, MPI_Comm comm, int ndim, const pscr_pencil *pencils,
                      double shift, int row_begin, int row_end, int cuda, int device,
                      int device_arrays, int threads, char *msg, size_t len);

/*
 * @brief u = A^{-1} f on this rank's slab (collective; returns when u is
 *        complete, also on the device). @p local_s: seconds in transforms,
 *        copies and Thomas (GPU: CUDA events, copies of host f and u
 *        included); @p exchange_s: in the all-to-alls. Status agreed over
 *        the ranks.
 */
pscr_status dt_solve(dt_solver *s, const double *f, double *u, double *local_s,
                     double *exchange_s, char *msg, size_t len);

/* Bytes this rank sends to other ranks per solve. */
double dt_bytes_sent(const dt_solver *s);

/* Wall seconds of dt_create on this rank. */
double dt_setup_seconds(const dt_solver *s);

/* Release (collective: the NCCL communicator); NULL allowed on every rank. */
void dt_destroy(dt_solver *s);

#endif
