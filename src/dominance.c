/* Row dominance of shifted tridiagonal systems (dominance.h). */
#include <math.h>

#include "dominance.h"

/* Row i of A + s M for every shift: up_i = ao_{i-1} + s mo_{i-1} (0 for
   i = 0), dn_i = ao_i + s mo_i (0 for i = nl - 1). */
#define PSCR_DEFINE_ROWS_DOMINANT(NAME, T, ABS)                                                  \
  static int NAME##_row(const T *ad, const T *ao, const T *md, const T *mo, int nl, int i, T c,  \
                        const T *lam, size_t m)                                                  \
  {                                                                                              \
    for (size_t k = 0; k < m; k++) {                                                             \
      const T s = c + lam[k];                                                                    \
      const T up = i > 0 ? ao[i - 1] + s * mo[i - 1] : (T)0;                                     \
      const T dn = i < nl - 1 ? ao[i] + s * mo[i] : (T)0;                                        \
      if (!(ABS(ad[i] + s * md[i]) > ABS(up) + ABS(dn)))                                         \
        return 0;                                                                                \
    }                                                                                            \
    return 1;                                                                                    \
  }                                                                                              \
  int NAME(const T *ad, const T *ao, const T *md, const T *mo, int nl, T c, const T *lam,        \
           size_t m)                                                                             \
  {                                                                                              \
    for (int i = 0; i < nl; i++) {                                                               \
      /* An interior row whose six coefficients equal the interior row                           \
         before it: that row's verdict (NaN never compares equal). */                            \
      if (i >= 2 && i < nl - 1 && ad[i] == ad[i - 1] && md[i] == md[i - 1] &&                   \
          ao[i] == ao[i - 1] && mo[i] == mo[i - 1] && ao[i - 1] == ao[i - 2] &&                  \
          mo[i - 1] == mo[i - 2])                                                                \
        continue;                                                                                \
      if (!NAME##_row(ad, ao, md, mo, nl, i, c, lam, m))                                         \
        return 0;                                                                                \
    }                                                                                            \
    return 1;                                                                                    \
  }

PSCR_DEFINE_ROWS_DOMINANT(pscr_rows_dominant_d, double, fabs)
PSCR_DEFINE_ROWS_DOMINANT(pscr_rows_dominant_s, float, fabsf)
