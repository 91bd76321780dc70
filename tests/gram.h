/* M-orthonormality of a full eigenvector matrix, W^T M W = I (plain
 * transpose, never conjugate), every entry of the lower triangle, blocked so
 * that order 4000 takes seconds instead of minutes. */
#ifndef PSCR_TEST_GRAM_H
#define PSCR_TEST_GRAM_H

#include <complex.h>

typedef struct gram_worst {
  double measure; /* max over j >= k of |(W^T M W - I)_jk| / (n eps s_jk) */
  int j, k;       /* where the maximum lies (the smallest such (j, k)) */
} gram_worst;

/*
 * The scaled worst entry of W^T M W - I for the order-n tridiagonal M
 * (diagonal md, off-diagonal mo, mo NULL: diagonal M) and the n vectors
 * w_j = w + j n. Real pencils (cplx 0: md, mo and w have zero imaginary
 * parts) use s_jk = 1. Complex pencils use the rounding scale of the entry,
 * s_jk = max(1, |w_j|^T |M| |w_k|): the bilinear form is no inner product,
 * so an entry's rounding error grows with it. measure is -1 (and j = k = -1)
 * when memory runs out, and +inf (j = k = -1) when cplx is 0 but an
 * imaginary part of md, mo or w is not zero (the real product would
 * ignore it).
 */
gram_worst gram_orth_worst(int n, int cplx, const double complex *md, const double complex *mo,
                           const double complex *w);

/* The same measure by the textbook triple loop (a reference for the blocked
 * one; O(n^3) with no blocking, for small n only). */
gram_worst gram_orth_worst_naive(int n, int cplx, const double complex *md,
                                 const double complex *mo, const double complex *w);

#endif
