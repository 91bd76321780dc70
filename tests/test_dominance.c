/*
 * src/dominance.c, the row-dominance test of shifted tridiagonal systems
 * that the CUDA transform plans ask before taking the partitioned solver:
 * against the row-by-row definition on uniform (Toeplitz) pencils, pencils
 * that differ in one row or at the ends, graded pencils, NaN entries and
 * shifts that make one row lose its dominance, in double and float.
 */
#include <math.h>
#include <stdlib.h>

#include "dominance.h"
#include "test_util.h"

/* The definition, row by row for every shift. */
#define DEFINE_NAIVE(NAME, T, ABS)                                                               \
  static int NAME(const T *ad, const T *ao, const T *md, const T *mo, int nl, T c,              \
                  const T *lam, size_t m)                                                        \
  {                                                                                              \
    for (size_t k = 0; k < m; k++) {                                                             \
      const T s = c + lam[k];                                                                    \
      for (int i = 0; i < nl; i++) {                                                             \
        const T up = i > 0 ? ao[i - 1] + s * mo[i - 1] : (T)0;                                   \
        const T dn = i < nl - 1 ? ao[i] + s * mo[i] : (T)0;                                      \
        if (!(ABS(ad[i] + s * md[i]) > ABS(up) + ABS(dn)))                                       \
          return 0;                                                                              \
      }                                                                                          \
    }                                                                                            \
    return 1;                                                                                    \
  }
DEFINE_NAIVE(naive_d, double, fabs)
DEFINE_NAIVE(naive_s, float, fabsf)

enum { NL = 40, M = 25 };

/* The FE pencil of a uniform mesh of order NL (A = (2, -1)/h, M = h (4, 1)/6),
   then one change by `kind`: 0 none, 1 an interior diagonal, 2 the first
   off-diagonal, 3 the last diagonal, 4 a graded mesh, 5 a NaN on the
   diagonal, 6 a NaN off the diagonal, 7 an interior off-diagonal (two rows
   change), 8 two neighbouring off-diagonals by 1.0045 (row 21 has both and
   loses its dominance for the smallest shifts, whose margin is s h^2 / h
   with s h^2 about 0.006; rows 20 and 22 have one and keep it), 9 one of
   them (every row keeps it). */
static void pencil(int kind, double *ad, double *ao, double *md, double *mo)
{
  const double h = 1.0 / (NL + 1);
  for (int i = 0; i < NL; i++) {
    ad[i] = 2 / h;
    md[i] = 4 * h / 6;
    if (i < NL - 1) {
      ao[i] = -1 / h;
      mo[i] = h / 6;
    }
  }
  switch (kind) {
  case 1: ad[17] *= 1.5; break;
  case 2: ao[0] *= 0.5; break;
  case 3: ad[NL - 1] *= 0.75; break;
  case 4:
    for (int i = 0; i < NL; i++) {
      const double hl = h * (0.5 + (double)i / NL), hr = h * (0.5 + (i + 1.0) / NL);
      ad[i] = 1 / hl + 1 / hr;
      md[i] = (hl + hr) / 3;
      if (i < NL - 1) {
        ao[i] = -1 / hr;
        mo[i] = hr / 6;
      }
    }
    break;
  case 5: ad[23] = NAN; break;
  case 6: ao[11] = NAN; break;
  case 7: ao[29] *= 1.25; break;
  case 8: ao[20] *= 1.0045; ao[21] *= 1.0045; break;
  case 9: ao[20] *= 1.0045; break;
  default: break;
  }
}

/* Shifts: positive (every row dominant), or with one that makes the rows
   lose dominance (c + lam near -ad / md: the diagonal cancels). */
static void shifts(int bad, double *lam)
{
  for (int k = 0; k < M; k++)
    lam[k] = 10.0 * (k + 1);
  if (bad)
    lam[M / 2] = -3.0 * (NL + 1) * (NL + 1); /* s = -3 / h^2: 2/h + s 4h/6 = 0 */
}

START_TEST(against_definition)
{
  const int kind = _i / 2, bad = _i % 2;
  double ad[NL], ao[NL], md[NL], mo[NL], lam[M];
  float adf[NL], aof[NL], mdf[NL], mof[NL], lamf[M];
  pencil(kind, ad, ao, md, mo);
  shifts(bad, lam);
  for (int i = 0; i < NL; i++) {
    adf[i] = (float)ad[i];
    mdf[i] = (float)md[i];
    aof[i] = i < NL - 1 ? (float)ao[i] : 0.0f;
    mof[i] = i < NL - 1 ? (float)mo[i] : 0.0f;
  }
  for (int k = 0; k < M; k++)
    lamf[k] = (float)lam[k];
  for (int c10 = -2; c10 <= 2; c10++) {
    const double c = 0.1 * c10;
    const int want = naive_d(ad, ao, md, mo, NL, c, lam, M);
    ck_assert_msg(pscr_rows_dominant_d(ad, ao, md, mo, NL, c, lam, M) == want,
                  "double, pencil kind %d, bad shift %d, c %g: want %d", kind, bad, c, want);
    const int wantf = naive_s(adf, aof, mdf, mof, NL, (float)c, lamf, M);
    ck_assert_msg(pscr_rows_dominant_s(adf, aof, mdf, mof, NL, (float)c, lamf, M) == wantf,
                  "float, pencil kind %d, bad shift %d, c %g: want %d", kind, bad, c, wantf);
  }
  /* The cases are not all one verdict: positive shifts on the FE pencil are
     dominant, the cancelling shift is not, NaN never is. */
  if (kind == 0)
    ck_assert_int_eq(naive_d(ad, ao, md, mo, NL, 0.0, lam, M), !bad);
  if (kind == 8 || kind == 9) /* positive shifts: only the doubled change loses */
    ck_assert_int_eq(naive_d(ad, ao, md, mo, NL, 0.0, lam, M), bad ? 0 : kind == 9);
  if (kind == 5 || kind == 6)
    ck_assert_int_eq(pscr_rows_dominant_d(ad, ao, md, mo, NL, 0.0, lam, M), 0);
}
END_TEST

/* One row loses dominance alone: an interior row in a run of equal rows
   must still be tested (the run's first row is the one tested). */
START_TEST(one_row)
{
  double ad[NL], ao[NL], md[NL], mo[NL], lam[M];
  shifts(0, lam);
  for (int r = 0; r < NL; r++) {
    pencil(0, ad, ao, md, mo);
    ad[r] = 0.5 * fabs(ao[0]); /* below |up| + |dn| for every shift */
    md[r] = 0.0;
    ck_assert_int_eq(naive_d(ad, ao, md, mo, NL, 0.0, lam, M), 0);
    ck_assert_msg(pscr_rows_dominant_d(ad, ao, md, mo, NL, 0.0, lam, M) == 0, "row %d", r);
  }
}
END_TEST

START_TEST(order_one_and_two)
{
  const double ad[2] = {2.0, 2.0}, ao[1] = {-1.0}, md[2] = {1.0, 1.0}, mo[1] = {0.0};
  const double lam[2] = {0.5, 1.0}, neg[1] = {-2.0};
  ck_assert_int_eq(pscr_rows_dominant_d(ad, NULL, md, NULL, 1, 0.0, lam, 2), 1);
  ck_assert_int_eq(pscr_rows_dominant_d(ad, NULL, md, NULL, 1, 0.0, neg, 1), 0); /* |0| > 0 */
  ck_assert_int_eq(pscr_rows_dominant_d(ad, ao, md, mo, 2, 0.0, lam, 2), 1);
  ck_assert_int_eq(pscr_rows_dominant_d(ad, ao, md, mo, 2, -2.5, lam, 2), 0); /* s = -2: |0| < 1 */
}
END_TEST

int main(void)
{
  Suite *s = suite_create("dominance");
  TCase *tc = tcase_create("dominance");
  tcase_add_loop_test(tc, against_definition, 0, 20);
  tcase_add_test(tc, one_row);
  tcase_add_test(tc, order_one_and_two);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
