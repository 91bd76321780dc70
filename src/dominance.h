/*
 * Strict diagonal dominance by rows of a family of shifted tridiagonal
 * systems A + s_k M, s_k = c + lam_k (k < m), A and M of order nl given by
 * their diagonals (ad, md) and off-diagonals (ao, mo, nl - 1 entries each).
 * Row i is dominant for s when |ad_i + s md_i| > |ao_{i-1} + s mo_{i-1}| +
 * |ao_i + s mo_i| (no term past either end), in the scalar type's own
 * arithmetic. The CUDA backend's partitioned Thomas solver of a transform
 * plan needs it of every system (its sub-blocks' pivots cannot vanish then;
 * gpu/tf_part.cuh), and asks it at plan time for m = n of the transformed
 * dimension, up to 8191 shifts of 8191 rows.
 *
 * A row equal to the one before it (the same six coefficients: an interior
 * row of a uniform mesh) has the same verdict for every shift, so each run
 * of equal rows is tested once per shift: O(nl + runs m) in place of
 * O(nl m), the same verdicts. No allocation.
 */
#ifndef PSCR_DOMINANCE_H
#define PSCR_DOMINANCE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when every row of every system is strictly dominant, else 0 (NaN
   entries included). nl >= 1; ao and mo may be NULL only when nl == 1. */
int pscr_rows_dominant_d(const double *ad, const double *ao, const double *md, const double *mo,
                         int nl, double c, const double *lam, size_t m);
int pscr_rows_dominant_s(const float *ad, const float *ao, const float *md, const float *mo,
                         int nl, float c, const float *lam, size_t m);

#ifdef __cplusplus
}
#endif

#endif
