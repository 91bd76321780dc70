/*
 * Batched DST-I (the fast sine transform) for the CPU backend's transforms
 * of sine pencils (docs/design.md, "Sine transforms"):
 *
 *   y_k = sum_{j=1..n} sin(pi j k / (n + 1)) x_j,   k = 1..n,
 *
 * of orders n with n + 1 a power of two, applied to every column of row-major
 * blocks whose columns are contiguous. Nothing is allocated: the caller
 * passes per-thread scratch (pscr_sine_scratch).
 *
 * Accuracy: the error of each column is O(log2(n + 1) eps) relative to its
 * norm (sine.c says how), like the FFT it is built on; the transform is
 * symmetric, so the inverse is the same transform up to 2 / (n + 1).
 */
#ifndef PSCR_SINE_H
#define PSCR_SINE_H

#include <stddef.h>

/**
 * @brief Whether pscr_sine_d and pscr_sine_s serve a transform of order n.
 * @param[in] n the order.
 * @return 1 when n + 1 is a power of two and 1 <= n <= 2^24 - 1, else 0.
 */
int pscr_sine_supported(int n);

/**
 * @brief Scratch one thread needs for a transform of order n.
 * @param[in] n the order (pscr_sine_supported).
 * @return elements of the transform's type (double for pscr_sine_d, float
 *         for pscr_sine_s; the one count serves both), 0 for an order that is
 *         not supported: at most 2^17 + 3 (n + 1) + 30 up to n = 8191 (a
 *         chunk of columns that stays in L2), 19 (n + 1) beyond (a chunk of 8
 *         columns).
 */
size_t pscr_sine_scratch(int n);

/**
 * @brief In-place DST-I of every column of nb batches of n rows.
 *
 * Row j (j = 1..n) of batch b starts at x + b * bstride + (j - 1) * ld and
 * has `cols` contiguous entries (ld >= cols). Every column is transformed
 * independently along the rows:
 *
 *   inverse == 0:  y_k = scale[k-1] * sum_{j=1..n} sin(pi j k / (n + 1)) x_j,    k = 1..n
 *   inverse == 1:  y_j = sum_{k=1..n} sin(pi j k / (n + 1)) * (scale[k-1] * x_k), j = 1..n
 *
 * The sine matrix S is symmetric and S S = (n + 1) / 2 I, so with the same
 * scale the inverse is the transpose of the forward map, and with scale NULL
 * inverse(forward(x)) = (n + 1) / 2 x. Complex data transform as 2 * cols
 * real columns (interleaved real and imaginary parts, ld and bstride
 * doubled) with real scales.
 *
 * The columns are processed in chunks of a fixed width that depends on n
 * only; work items are (batch, chunk) pairs. With nt > 1 an OpenMP parallel
 * region of nt threads shares the items; with nt == 1 the calling thread
 * does them all and no parallel region starts (callers inside their own
 * parallel regions pass nt = 1). Each item is computed the same way
 * whichever thread takes it, so the result is bitwise the same for every nt.
 *
 * @param[in] n the order (pscr_sine_supported(n); other orders do nothing).
 * @param[in] nb number of batches.
 * @param[in] bstride elements from a batch's first row to the next batch's.
 * @param[in] ld elements from a row to the next, ld >= cols.
 * @param[in] cols columns (contiguous entries per row).
 * @param[in,out] x the data, transformed in place.
 * @param[in] scale n values (see above), or NULL for all ones.
 * @param[in] inverse 0: scale after the transform; 1: scale before it.
 * @param[in] nt threads, >= 1.
 * @param[out] scratch nt * pscr_sine_scratch(n) elements; thread t
 *             (omp_get_thread_num(), 0 when nt == 1) uses elements
 *             [t * pscr_sine_scratch(n), (t + 1) * pscr_sine_scratch(n)).
 *             No alignment is required.
 */
void pscr_sine_d(int n, size_t nb, size_t bstride, size_t ld, size_t cols, double *x,
                 const double *scale, int inverse, int nt, double *scratch);

/**
 * @brief pscr_sine_d in single precision: computed in float (twiddle factors
 *        computed in double and rounded once), error O(log2(n + 1)) FLT_EPSILON.
 */
void pscr_sine_s(int n, size_t nb, size_t bstride, size_t ld, size_t cols, float *x,
                 const float *scale, int inverse, int nt, float *scratch);

#endif
