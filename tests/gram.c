/*
 * W^T M W - I, entry by entry, as a blocked product (gram.h).
 *
 * The product is G = W^T B with B = M W (and, for the complex scale,
 * |W|^T |M| |W|): n^3 / 2 complex multiply-adds over the lower triangle,
 * 3.2e10 at order 4000. The textbook loop runs at memory speed; here the
 * columns k come in panels of KC = 16, packed row-major (B[i][0..15] in two
 * eight-wide vectors), and a micro-kernel keeps the sums of JR = 4 rows j
 * against the panel in registers over a block of IC rows i, so each load of
 * the panel feeds 4 rows and each broadcast of w_j[i] feeds 16 columns. The
 * panel block (3 x IC x KC doubles, 384 KB) stays in the L2 cache. Panels
 * are shared among OpenMP threads; the maximum is taken with a fixed
 * tie-break, so the result does not depend on the thread count.
 */
#include "gram.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KC 16   /* columns k per panel: two eight-wide vectors */
#define IC 1024 /* rows i per block of the panel */
#define JR 4    /* rows j per micro-kernel call */

typedef double v8 __attribute__((vector_size(64)));

static v8 ld(const double *p)
{
  v8 v;
  memcpy(&v, p, sizeof v);
  return v;
}

static void st(double *p, v8 v) { memcpy(p, &v, sizeof v); }

/* Complex rows: g{re,im}[r] += w_r[i0..i1)^T B over the panel's 16 columns,
   gab[r] += |w_r|^T |M||W|. a[r] are the rows, aab[r] their moduli. */
static void kernel_complex(int i0, int i1, const double complex *const a[JR],
                           const double *const aab[JR], const double *bre, const double *bim,
                           const double *bab, double *const gre[JR], double *const gim[JR],
                           double *const gab[JR])
{
  v8 cr[JR][2], ci[JR][2], ca[JR][2];
  for (int r = 0; r < JR; r++)
    for (int h = 0; h < 2; h++) {
      cr[r][h] = ld(gre[r] + 8 * h);
      ci[r][h] = ld(gim[r] + 8 * h);
      ca[r][h] = ld(gab[r] + 8 * h);
    }
  for (int i = i0; i < i1; i++) {
    const size_t o = (size_t)(i - i0) * KC;
    const v8 br0 = ld(bre + o), br1 = ld(bre + o + 8);
    const v8 bi0 = ld(bim + o), bi1 = ld(bim + o + 8);
    const v8 ba0 = ld(bab + o), ba1 = ld(bab + o + 8);
    for (int r = 0; r < JR; r++) {
      const double ar = creal(a[r][i]), ai = cimag(a[r][i]), aa = aab[r][i];
      cr[r][0] += ar * br0 - ai * bi0;
      cr[r][1] += ar * br1 - ai * bi1;
      ci[r][0] += ar * bi0 + ai * br0;
      ci[r][1] += ar * bi1 + ai * br1;
      ca[r][0] += aa * ba0;
      ca[r][1] += aa * ba1;
    }
  }
  for (int r = 0; r < JR; r++)
    for (int h = 0; h < 2; h++) {
      st(gre[r] + 8 * h, cr[r][h]);
      st(gim[r] + 8 * h, ci[r][h]);
      st(gab[r] + 8 * h, ca[r][h]);
    }
}

/* Real rows (zero imaginary parts): gre[r] += w_r[i0..i1)^T B. */
static void kernel_real(int i0, int i1, const double complex *const a[JR], const double *bre,
                        double *const gre[JR])
{
  v8 c[JR][2];
  for (int r = 0; r < JR; r++)
    for (int h = 0; h < 2; h++)
      c[r][h] = ld(gre[r] + 8 * h);
  for (int i = i0; i < i1; i++) {
    const size_t o = (size_t)(i - i0) * KC;
    const v8 b0 = ld(bre + o), b1 = ld(bre + o + 8);
    for (int r = 0; r < JR; r++) {
      const double ar = creal(a[r][i]);
      c[r][0] += ar * b0;
      c[r][1] += ar * b1;
    }
  }
  for (int r = 0; r < JR; r++)
    for (int h = 0; h < 2; h++)
      st(gre[r] + 8 * h, c[r][h]);
}

/* y = M x, and ya = |M| |x| when ya is not NULL. */
static void apply_m(int n, const double complex *md, const double complex *mo,
                    const double complex *x, double complex *y, double *ya)
{
  for (int i = 0; i < n; i++) {
    double complex s = md[i] * x[i];
    double sa = cabs(md[i]) * cabs(x[i]);
    if (mo && i > 0) {
      s += mo[i - 1] * x[i - 1];
      sa += cabs(mo[i - 1]) * cabs(x[i - 1]);
    }
    if (mo && i < n - 1) {
      s += mo[i] * x[i + 1];
      sa += cabs(mo[i]) * cabs(x[i + 1]);
    }
    y[i] = s;
    if (ya)
      ya[i] = sa;
  }
}

/* The larger of two candidates, ties to the smaller (j, k). NaN counts as
   the largest, so a NaN entry is reported rather than lost. */
static gram_worst worse(gram_worst a, gram_worst b)
{
  int an = isnan(a.measure), bn = isnan(b.measure);
  if (an != bn)
    return an ? a : b;
  if (!an && a.measure != b.measure)
    return a.measure > b.measure ? a : b;
  if (a.j != b.j)
    return a.j < b.j ? a : b;
  return a.k <= b.k ? a : b;
}

static gram_worst entry(int n, int cplx, int j, int k, double complex g, double gab)
{
  double e = cabs(g - (j == k ? 1.0 : 0.0));
  double s = cplx ? fmax(1.0, gab) : 1.0;
  return (gram_worst){e / (n * DBL_EPSILON * s), j, k};
}

/* One panel, columns [k0, k0 + kc): its worst entry, or measure -1 when out
   of memory (then *oom is set). */
static gram_worst panel(int n, int cplx, const double complex *md, const double complex *mo,
                        const double complex *w, const double *absw, int k0, int *oom)
{
  const int kc = n - k0 < KC ? n - k0 : KC, rows = n - k0;
  const size_t bsz = (size_t)n * KC, gsz = (size_t)(rows + JR) * KC;
  double *bre = calloc(bsz, sizeof(double)), *bim = calloc(bsz, sizeof(double));
  double *bab = calloc(bsz, sizeof(double));
  double *gre = calloc(gsz, sizeof(double)), *gim = calloc(gsz, sizeof(double));
  double *gab = calloc(gsz, sizeof(double));
  double complex *mw = malloc((size_t)n * sizeof(double complex));
  double *amw = malloc((size_t)n * sizeof(double));
  gram_worst worst = {-1.0, -1, -1};
  if (!bre || !bim || !bab || !gre || !gim || !gab || !mw || !amw) {
    *oom = 1;
    goto out;
  }

  /* The panel of B = M W (and |M||W|), row-major by i, blocked by IC rows
     so that a block is contiguous: block b holds rows [b IC, b IC + IC). */
  for (int c = 0; c < kc; c++) {
    apply_m(n, md, mo, w + (size_t)(k0 + c) * n, mw, cplx ? amw : NULL);
    for (int i = 0; i < n; i++) {
      bre[(size_t)i * KC + c] = creal(mw[i]);
      bim[(size_t)i * KC + c] = cimag(mw[i]);
      if (cplx)
        bab[(size_t)i * KC + c] = amw[i];
    }
  }

  /* Rows j in [k0, n); a short last group repeats row n - 1 into spare
     accumulator rows (gsz has JR spare rows) that are never read. */
  for (int i0 = 0; i0 < n; i0 += IC) {
    const int i1 = i0 + IC < n ? i0 + IC : n;
    const size_t bo = (size_t)i0 * KC;
    for (int j0 = k0; j0 < n; j0 += JR) {
      const double complex *a[JR];
      const double *aab[JR];
      double *pr[JR], *pi[JR], *pa[JR];
      for (int r = 0; r < JR; r++) {
        const int j = j0 + r < n ? j0 + r : n - 1;
        const size_t go = (size_t)(j0 + r - k0) * KC;
        a[r] = w + (size_t)j * n;
        aab[r] = cplx ? absw + (size_t)j * n : NULL;
        pr[r] = gre + go;
        pi[r] = gim + go;
        pa[r] = gab + go;
      }
      if (cplx)
        kernel_complex(i0, i1, a, aab, bre + bo, bim + bo, bab + bo, pr, pi, pa);
      else
        kernel_real(i0, i1, a, bre + bo, pr);
    }
  }

  for (int j = k0; j < n; j++)
    for (int c = 0; c < kc && k0 + c <= j; c++) {
      const size_t o = (size_t)(j - k0) * KC + c;
      gram_worst e = entry(n, cplx, j, k0 + c, CMPLX(gre[o], gim[o]), gab[o]);
      worst = worst.j < 0 ? e : worse(worst, e);
    }
out:
  free(bre);
  free(bim);
  free(bab);
  free(gre);
  free(gim);
  free(gab);
  free(mw);
  free(amw);
  return worst;
}

/* Whether md, mo (may be NULL) and the n^2 entries of w have zero
   imaginary parts: the real kernels never read them. */
static int all_real(int n, const double complex *md, const double complex *mo,
                    const double complex *w)
{
  for (int i = 0; i < n; i++)
    if (cimag(md[i]) != 0.0 || (mo && i < n - 1 && cimag(mo[i]) != 0.0))
      return 0;
  for (size_t t = 0; t < (size_t)n * n; t++)
    if (cimag(w[t]) != 0.0)
      return 0;
  return 1;
}

static const gram_worst not_real = {INFINITY, -1, -1};

gram_worst gram_orth_worst(int n, int cplx, const double complex *md, const double complex *mo,
                           const double complex *w)
{
  gram_worst worst = {-1.0, -1, -1};
  double *absw = NULL;
  if (!cplx && !all_real(n, md, mo, w))
    return not_real;
  if (cplx) {
    absw = malloc((size_t)n * n * sizeof(double));
    if (!absw)
      return worst;
    for (size_t t = 0; t < (size_t)n * n; t++)
      absw[t] = cabs(w[t]);
  }
  int oom = 0;
  const int panels = (n + KC - 1) / KC;
  /* Panel p has n - p KC rows: the first are the longest, so dynamic
     scheduling in order balances the threads. */
#pragma omp parallel for schedule(dynamic, 1)
  for (int p = 0; p < panels; p++) {
    int mine = 0;
    gram_worst e = panel(n, cplx, md, mo, w, absw, p * KC, &mine);
#pragma omp critical(gram_reduce)
    {
      if (mine)
        oom = 1;
      else
        worst = worst.j < 0 ? e : worse(worst, e);
    }
  }
  free(absw);
  if (oom)
    return (gram_worst){-1.0, -1, -1};
  return worst;
}

gram_worst gram_orth_worst_naive(int n, int cplx, const double complex *md,
                                 const double complex *mo, const double complex *w)
{
  gram_worst worst = {-1.0, -1, -1};
  if (!cplx && !all_real(n, md, mo, w))
    return not_real;
  double complex *mw = malloc((size_t)n * sizeof(double complex));
  double *amw = malloc((size_t)n * sizeof(double));
  double *absw = malloc((size_t)n * n * sizeof(double));
  if (!mw || !amw || !absw)
    goto out;
  for (size_t t = 0; t < (size_t)n * n; t++)
    absw[t] = cabs(w[t]);
  for (int k = 0; k < n; k++) {
    apply_m(n, md, mo, w + (size_t)k * n, mw, amw);
    for (int j = k; j < n; j++) {
      const double complex *wj = w + (size_t)j * n;
      const double *awj = absw + (size_t)j * n;
      double complex s = 0.0;
      double sa = 0.0;
      for (int i = 0; i < n; i++) {
        s += wj[i] * mw[i];
        sa += awj[i] * amw[i];
      }
      gram_worst e = entry(n, cplx, j, k, s, sa);
      worst = worst.j < 0 ? e : worse(worst, e);
    }
  }
out:
  free(mw);
  free(amw);
  free(absw);
  return worst;
}
