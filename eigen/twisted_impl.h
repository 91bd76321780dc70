/*
 * Eigenvectors from twisted factorizations (Dhillon and Parlett's dlar1v,
 * applied to the pencil): for an eigenvalue approximation sigma, the
 * symmetric tridiagonal K = A - sigma M (plain transpose when complex) is
 * factored top-down, K = L+ D+ L+^T, and bottom-up, K = U- D- U-^T. At
 * every row r the two meet in a twisted factorization whose last pivot
 *     gamma_r = D+_r + D-_r - K_rr
 * is 1 / (K^{-1})_rr; the row with the smallest |gamma_r| is where the
 * wanted eigenvector is large, and
 *     K z = gamma_r e_r,  z_r = 1,
 * is solved by products of the multipliers alone (no further division):
 * one step of inverse iteration from the best possible start, O(n) work,
 * no pivoting, no repeated solves. The Rayleigh quotient comes for free,
 * z^T K z = gamma_r, so
 *     rho = sigma + gamma_r / (z^T M z)
 * estimates the eigenvalue error sigma - lambda, and its size decides
 * whether z is accepted (the contamination of z by another eigenvector
 * k is about |sigma - lambda_j| / |lambda_k - lambda_j|, as for inverse
 * iteration). A vector that is not accepted is recomputed once from rho
 * (Rayleigh quotient iteration); what still fails goes to the pivoted
 * inverse iteration of invit_impl.h, as do tight clusters. Used for real
 * pencils (EIG_PIV_LANES 0 in eigen.c); the complex expansion compiles it
 * too.
 *
 * The recurrences of different eigenvalues are independent: EIG_TW_LANES
 * (16) of them run side by side, as EIG_TW_NV lane vectors of eight
 * doubles (lanes.h: GNU C vector extensions, one AVX-512 register, or two
 * AVX2 ones; complex: a vector of real and one of imaginary parts). The two
 * vectors' recurrences interleave and overlap their division latencies.
 * Every lane does exactly the arithmetic it would do alone, so a vector
 * does not depend on its batch neighbours. Pivots below
 * pert = eps ||A - sigma M|| in modulus are moved to at least pert (a
 * backward perturbation of that size), as in the pivoted factorization.
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

/* One lane vector of the scalar type and its operations. */
#if EIG_IS_REAL
typedef eig_vd EIG(v);
static inline EIG(v) EIG(v_splat)(EIG_T x) { return eig_vd_splat(x); }
static inline EIG(v) EIG(v_add)(EIG(v) a, EIG(v) b) { return a + b; }
static inline EIG(v) EIG(v_sub)(EIG(v) a, EIG(v) b) { return a - b; }
static inline EIG(v) EIG(v_mul)(EIG(v) a, EIG(v) b) { return a * b; }
static inline EIG(v) EIG(v_neg)(EIG(v) a) { return -a; }
/* acc + a b and acc - a b (real: two roundings, as written out). */
static inline EIG(v) EIG(v_mac)(EIG(v) acc, EIG(v) a, EIG(v) b) { return acc + a * b; }
static inline EIG(v) EIG(v_nmac)(EIG(v) acc, EIG(v) a, EIG(v) b) { return acc - a * b; }
static inline eig_vd EIG(v_abs1)(EIG(v) a) { return eig_vd_abs(a); }
/* a times the real lane factors r. */
static inline EIG(v) EIG(v_rscale)(EIG(v) a, eig_vd r) { return a * r; }
static inline EIG(v) EIG(v_sel)(eig_vm m, EIG(v) a, EIG(v) b) { return eig_vd_sel(m, a, b); }
static inline EIG_T EIG(v_get)(EIG(v) a, int l) { return a[l]; }
static inline void EIG(v_put)(EIG(v) * a, int l, EIG_T x) { (*a)[l] = x; }

/* 1 / p for a pivot p (|p| >= pert after v_floor). */
static inline EIG(v) EIG(v_recip)(EIG(v) p) { return 1.0 / p; }
static inline eig_vd EIG(v_norm2)(EIG(v) p) { return p * p; }
static inline EIG(v) EIG(v_conj)(EIG(v) p) { return p; }
static inline EIG(v) EIG(v_mulconj)(EIG(v) a, EIG(v) b) { return a * b; }
/* a - b r (r real, per lane) */
static inline EIG(v) EIG(v_subscaled)(EIG(v) a, EIG(v) b, eig_vd r)
{
  return eig_vd_fnma(b, r, a);
}

/* p raised to pert in modulus (keeping its sign) where below it. */
static inline EIG(v) EIG(v_floor)(EIG(v) p, eig_vd pt)
{
  eig_vd up = (eig_vd)((eig_vm)pt | (eig_vm)eig_vd_sign(p));
  return eig_vd_sel((eig_vm)(eig_vd_abs(p) < pt), up, p);
}
#else
typedef struct EIG(v) {
  eig_vd re, im;
} EIG(v);

static inline EIG(v) EIG(v_splat)(EIG_T x)
{
  return (EIG(v)){eig_vd_splat(creal(x)), eig_vd_splat(cimag(x))};
}

static inline EIG(v) EIG(v_add)(EIG(v) a, EIG(v) b) { return (EIG(v)){a.re + b.re, a.im + b.im}; }
static inline EIG(v) EIG(v_sub)(EIG(v) a, EIG(v) b) { return (EIG(v)){a.re - b.re, a.im - b.im}; }

/* Complex lane products with fused multiply-adds: four operations for a
 * product and four for a product added to an accumulator, where the
 * written-out forms take six and eight (the complex lane kernels are
 * bound by that count). */
static inline EIG(v) EIG(v_mul)(EIG(v) a, EIG(v) b)
{
  return (EIG(v)){eig_vd_fnma(a.im, b.im, a.re * b.re), eig_vd_fma(a.re, b.im, a.im * b.re)};
}

/* acc + a b */
static inline EIG(v) EIG(v_mac)(EIG(v) acc, EIG(v) a, EIG(v) b)
{
  return (EIG(v)){eig_vd_fma(a.re, b.re, eig_vd_fnma(a.im, b.im, acc.re)),
                  eig_vd_fma(a.re, b.im, eig_vd_fma(a.im, b.re, acc.im))};
}

/* acc - a b */
static inline EIG(v) EIG(v_nmac)(EIG(v) acc, EIG(v) a, EIG(v) b)
{
  return (EIG(v)){eig_vd_fnma(a.re, b.re, eig_vd_fma(a.im, b.im, acc.re)),
                  eig_vd_fnma(a.re, b.im, eig_vd_fnma(a.im, b.re, acc.im))};
}

static inline EIG(v) EIG(v_neg)(EIG(v) a) { return (EIG(v)){-a.re, -a.im}; }
static inline EIG(v) EIG(v_rscale)(EIG(v) a, eig_vd r) { return (EIG(v)){a.re * r, a.im * r}; }
static inline eig_vd EIG(v_abs1)(EIG(v) a) { return eig_vd_abs(a.re) + eig_vd_abs(a.im); }

static inline EIG(v) EIG(v_sel)(eig_vm m, EIG(v) a, EIG(v) b)
{
  return (EIG(v)){eig_vd_sel(m, a.re, b.re), eig_vd_sel(m, a.im, b.im)};
}

static inline EIG_T EIG(v_get)(EIG(v) a, int l) { return CMPLX(a.re[l], a.im[l]); }

static inline void EIG(v_put)(EIG(v) * a, int l, EIG_T x)
{
  a->re[l] = creal(x);
  a->im[l] = cimag(x);
}

/* 1 / p with one real division (|p| >= pert after v_floor: no scaling). */
static inline EIG(v) EIG(v_recip)(EIG(v) p)
{
  eig_vd r = 1.0 / (p.re * p.re + p.im * p.im);
  return (EIG(v)){p.re * r, -p.im * r};
}

/* |p|^2, conj(p), a conj(b), and a - b r (r real, per lane). */
static inline eig_vd EIG(v_norm2)(EIG(v) p) { return eig_vd_fma(p.im, p.im, p.re * p.re); }
static inline EIG(v) EIG(v_conj)(EIG(v) p) { return (EIG(v)){p.re, -p.im}; }
static inline EIG(v) EIG(v_mulconj)(EIG(v) a, EIG(v) b)
{
  return (EIG(v)){eig_vd_fma(a.im, b.im, a.re * b.re), eig_vd_fnma(a.re, b.im, a.im * b.re)};
}
static inline EIG(v) EIG(v_subscaled)(EIG(v) a, EIG(v) b, eig_vd r)
{
  return (EIG(v)){eig_vd_fnma(b.re, r, a.re), eig_vd_fnma(b.im, r, a.im)};
}

/* p moved by 2 pert along the sign of its real part where |p| (|re| + |im|)
 * is below pert: then |re| >= pert, a backward perturbation of 2 pert,
 * without the division of a rescaling. */
static inline EIG(v) EIG(v_floor)(EIG(v) p, eig_vd pt)
{
  eig_vm small = (eig_vm)(EIG(v_abs1)(p) < pt);
  eig_vd push = (eig_vd)(((eig_vm)(pt + pt) | (eig_vm)eig_vd_sign(p.re)) & small);
  return (EIG(v)){p.re + push, p.im};
}

/*
 * Sums of complex lane products with three real products each instead of
 * four (Gauss): rr = sum x.re y.re, ii = sum x.im y.im, ss = sum (x.re +
 * x.im)(y.re + y.im), then re = rr - ii and im = ss - rr - ii. The sums
 * x.re + x.im and y.re + y.im are formed once per factor and shared by
 * every product it enters; the adds run on the floating-point adders, not
 * on the multiply-add units that bound the sweep's kernels (block_orth,
 * run_finish). The error of the imaginary part is of order eps sum (|x.re|
 * + |x.im|)(|y.re| + |y.im|) <= 2 eps sum |x| |y|: normwise, as the
 * bounds of the Gram-Schmidt steps that use these sums are.
 */
typedef struct EIG(p3) {
  eig_vd re, im, s;
} EIG(p3);

typedef struct EIG(a3) {
  eig_vd rr, ii, ss;
} EIG(a3);

static inline EIG(p3) EIG(p3_of)(EIG(v) a) { return (EIG(p3)){a.re, a.im, a.re + a.im}; }

static inline EIG(p3) EIG(p3_splat)(EIG_T x)
{
  return EIG(p3_of)(EIG(v_splat)(x));
}

static inline EIG(a3) EIG(a3_zero)(void)
{
  const eig_vd z = eig_vd_splat(0.0);
  return (EIG(a3)){z, z, z};
}

/* acc + x y */
static inline EIG(a3) EIG(a3_mac)(EIG(a3) acc, EIG(p3) x, EIG(p3) y)
{
  return (EIG(a3)){eig_vd_fma(x.re, y.re, acc.rr), eig_vd_fma(x.im, y.im, acc.ii),
                   eig_vd_fma(x.s, y.s, acc.ss)};
}

static inline EIG(v) EIG(a3_val)(EIG(a3) a)
{
  return (EIG(v)){a.rr - a.ii, a.ss - (a.rr + a.ii)};
}
#endif

/* acc + a b and acc - a b of the twisted kernels: real, rounded once
 * (fused multiply-add); complex, the product of v_mul then the sum (as
 * before: v_mac and v_nmac would round differently). */
static inline EIG(v) EIG(tw_mac)(EIG(v) acc, EIG(v) a, EIG(v) b)
{
#if EIG_IS_REAL
  return eig_vd_fma(a, b, acc);
#else
  return EIG(v_add)(acc, EIG(v_mul)(a, b));
#endif
}

static inline EIG(v) EIG(tw_nmac)(EIG(v) acc, EIG(v) a, EIG(v) b)
{
#if EIG_IS_REAL
  return eig_vd_fnma(a, b, acc);
#else
  return EIG(v_sub)(acc, EIG(v_mul)(a, b));
#endif
}

/* Result of one lane: the pivot gamma_r, its row r, ||z||_inf, z^T M z. */
typedef struct EIG(twres) {
  EIG_T gamma, zmz;
  double zinf;
  int r;
} EIG(twres);

/* Entry i of lane l (0..EIG_TW_LANES-1) of a batch array (EIG_TW_NV lane
 * vectors per row), read as a double in memory (not extracted from a
 * vector register, which goes through the stack): tw_at(a, i, tw_off(l)),
 * the offset apart so that row loops compute it once. */
static inline int EIG(tw_off)(int l)
{
  return (l / EIG_VL) * (int)(sizeof(EIG(v)) / sizeof(double)) + l % EIG_VL;
}

static inline EIG_T EIG(tw_at)(const EIG(v) * a, int i, int off)
{
  const double *p = (const double *)(a + (size_t)i * EIG_TW_NV) + off;
#if EIG_IS_REAL
  return p[0];
#else
  return CMPLX(p[0], p[EIG_VL]); /* struct {re[8], im[8]} */
#endif
}

/* The factorizations of a batch, as twisted_solve needs them: multipliers
 * lp_i = K_{i,i+1} / D+_i and um_i = K_{i-1,i} / D-_i, reciprocal pivots
 * rp_i = 1 / D+_i and rm_i = 1 / D-_i (EIG_TW_NV n lane vectors each,
 * 64-byte aligned), and per lane the twist r, gamma_r and pert. */
typedef struct EIG(twf) {
  EIG(v) *lp, *um, *rp, *rm;
  EIG(v) gam[EIG_TW_NV];
  eig_vd r[EIG_TW_NV], pt[EIG_TW_NV];
} EIG(twf);

/*
 * Twisted vectors for the shifts sig[0..EIG_TW_LANES-1] (unused lanes may
 * repeat a shift) into z (EIG_TW_NV n lane vectors, 64-byte aligned),
 * unnormalized; res[l] their data; f the factorizations.
 */
static void EIG(twisted_batch)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                               const EIG_T *mo, const EIG_T *sig, const double *pert,
                               EIG(twf) * f, EIG(v) * z, EIG(twres) * res)
{
  EIG(v) *lp = f->lp, *um = f->um, *rp = f->rp, *rm = f->rm;
  enum { NV = EIG_TW_NV, VL = EIG_VL };
  EIG(v) s[NV];
  eig_vd pt[NV];
  for (int b = 0; b < NV; b++) {
    s[b] = EIG(v_splat)(0.0);
    pt[b] = eig_vd_splat(0.0);
    for (int l = 0; l < VL; l++) {
      EIG(v_put)(&s[b], l, sig[b * VL + l]);
      pt[b][l] = pert[b * VL + l];
    }
  }
  /* Entries of K = A - sigma M: diagonal i, off-diagonal (i, i+1). */
#define EIG_TW_DIAG(b, i) EIG(tw_nmac)(EIG(v_splat)(ad[i]), s[b], EIG(v_splat)(md[i]))
#define EIG_TW_OFF(b, i)                                                                      \
  (mo ? EIG(tw_nmac)(EIG(v_splat)(ao[i]), s[b], EIG(v_splat)(mo[i]))                         \
      : EIG(v_splat)(ao[i]))
  /* Top-down: lp_i = K_{i,i+1} / D+_i, D+_{i+1} = K_{i+1,i+1} - lp_i K_{i,i+1}
   * (as K_{i+1,i+1} - K_{i,i+1}^2 (1 / D+_i): the square is off the
   * recurrence's critical path). */
  EIG(v) dp[NV];
  for (int b = 0; b < NV; b++)
    dp[b] = EIG_TW_DIAG(b, 0);
  for (int i = 0; i < n - 1; i++) {
    for (int b = 0; b < NV; b++) {
      EIG(v) e = EIG_TW_OFF(b, i);
      EIG(v) r = EIG(v_recip)(EIG(v_floor)(dp[b], pt[b]));
      rp[(size_t)i * NV + b] = r;
      lp[(size_t)i * NV + b] = EIG(v_mul)(e, r);
      dp[b] = EIG(tw_nmac)(EIG_TW_DIAG(b, i + 1), EIG(v_mul)(e, e), r);
    }
  }
  /* Bottom-up: um_i = K_{i-1,i} / D-_i, D-_{i-1} = K_{i-1,i-1} - um_i
   * K_{i-1,i}; on the way gamma_i = D-_i - lp_{i-1} K_{i-1,i}. */
  EIG(v) dm[NV], gbest[NV];
  eig_vd abest[NV], rbest[NV];
  for (int b = 0; b < NV; b++) {
    dm[b] = gbest[b] = EIG_TW_DIAG(b, n - 1);
    abest[b] = eig_vd_splat(INFINITY);
    rbest[b] = eig_vd_splat(n - 1);
  }
  for (int i = n - 1; i > 0; i--) {
    for (int b = 0; b < NV; b++) {
      EIG(v) e = EIG_TW_OFF(b, i - 1);
      EIG(v) g = EIG(tw_nmac)(dm[b], lp[(size_t)(i - 1) * NV + b], e);
      eig_vd ag = EIG(v_abs1)(g);
      eig_vm better = (eig_vm)(ag < abest[b]);
      abest[b] = eig_vd_sel(better, ag, abest[b]);
      gbest[b] = EIG(v_sel)(better, g, gbest[b]);
      rbest[b] = eig_vd_sel(better, eig_vd_splat(i), rbest[b]);
      EIG(v) r = EIG(v_recip)(EIG(v_floor)(dm[b], pt[b]));
      rm[(size_t)i * NV + b] = r;
      um[(size_t)i * NV + b] = EIG(v_mul)(e, r);
      dm[b] = EIG(tw_nmac)(EIG_TW_DIAG(b, i - 1), EIG(v_mul)(e, e), r);
    }
  }
  for (int b = 0; b < NV; b++) { /* gamma_0 = D-_0 */
    eig_vm better = (eig_vm)(EIG(v_abs1)(dm[b]) < abest[b]);
    gbest[b] = EIG(v_sel)(better, dm[b], gbest[b]);
    rbest[b] = eig_vd_sel(better, eig_vd_splat(0.0), rbest[b]);
    /* Never read (no row above 0 or below n-1), but defined. */
    rp[(size_t)(n - 1) * NV + b] = rm[b] = EIG(v_splat)(0.0);
    f->gam[b] = gbest[b];
    f->r[b] = rbest[b];
    f->pt[b] = pt[b];
  }
#undef EIG_TW_DIAG
#undef EIG_TW_OFF
  /* z: 1 at r, z_i = -lp_i z_{i+1} above r, z_i = -um_i z_{i-1} below. */
  const EIG(v) zero = EIG(v_splat)(0.0), one = EIG(v_splat)(1.0);
  EIG(v) zc[NV];
  for (int b = 0; b < NV; b++)
    zc[b] = zero;
  for (int i = n - 1; i >= 0; i--) {
    eig_vd di = eig_vd_splat(i);
    for (int b = 0; b < NV; b++) {
      EIG(v) up = i < n - 1 ? EIG(v_neg)(EIG(v_mul)(lp[(size_t)i * NV + b], zc[b])) : zero;
      zc[b] = EIG(v_sel)((eig_vm)(di < rbest[b]), up,
                         EIG(v_sel)((eig_vm)(di == rbest[b]), one, zero));
      z[(size_t)i * NV + b] = zc[b];
    }
  }
  for (int b = 0; b < NV; b++)
    zc[b] = zero;
  for (int i = 0; i < n; i++) {
    eig_vd di = eig_vd_splat(i);
    for (int b = 0; b < NV; b++) {
      EIG(v) dn = i > 0 ? EIG(v_neg)(EIG(v_mul)(um[(size_t)i * NV + b], zc[b])) : zero;
      zc[b] = EIG(v_sel)((eig_vm)(di > rbest[b]), dn, z[(size_t)i * NV + b]);
      z[(size_t)i * NV + b] = zc[b];
    }
  }
  /* ||z||_inf (|re| + |im|; NaN-propagating through the sum) and z^T M z. */
  for (int b = 0; b < NV; b++) {
    EIG(v) zmz = zero;
    eig_vd zmax = eig_vd_splat(0.0), zsum = zmax;
    for (int i = 0; i < n; i++) {
      EIG(v) v = z[(size_t)i * NV + b];
      EIG(v) mv = EIG(v_mul)(EIG(v_splat)(md[i]), v);
      if (mo && i < n - 1)
        mv = EIG(tw_mac)(mv, EIG(v_splat)(2.0 * mo[i]), z[(size_t)(i + 1) * NV + b]);
      zmz = EIG(tw_mac)(zmz, v, mv);
      eig_vd a = EIG(v_abs1)(v);
      zmax = eig_vd_sel((eig_vm)(a > zmax), a, zmax);
      zsum += a;
    }
    for (int l = 0; l < VL; l++) {
      EIG(twres) *rl = &res[b * VL + l];
      rl->gamma = EIG(v_get)(gbest[b], l);
      rl->r = (int)rbest[b][l];
      rl->zmz = EIG(v_get)(zmz, l);
      rl->zinf = isnan(zsum[l]) ? zsum[l] : zmax[l];
    }
  }
}

/*
 * z = K^{-1} M z with the twisted factorizations f of a batch: one step of
 * inverse iteration from the twisted vectors, which damps their
 * components along other eigenvectors by a further factor (eigenvalue
 * error) / gap and leaves only the rounding errors of the solve, spread
 * over the vector. K = N D N^T with N unit lower bidiagonal (lp) above row
 * r and unit upper bidiagonal (um) below it, D = diag(D+_0.., gamma_r,
 * ..D-_{n-1}): N y = b from both ends towards r, then x = N^{-T} D^{-1} y
 * from r outwards. b = M z (row by row, as lane_mass_rows) is kept in bm
 * (EIG_TW_NV n lane vectors), and the passes are fused (three instead of
 * six; the same arithmetic): b with the top-down sweep of N y = b, the
 * bottom-up sweep with x = N^{-T} D^{-1} y above r, the rest below r.
 * bnrm, znrm (not NULL): per lane ||b||_inf and ||x||_inf (NaN where not finite).
 */
static void EIG(twisted_solve)(int n, const EIG(twf) * f, const EIG_T *md, const EIG_T *mo,
                               EIG(v) * z, EIG(v) * bm, eig_vd *bnrm, eig_vd *znrm)
{
  enum { NV = EIG_TW_NV };
  const EIG(v) *lp = f->lp, *um = f->um, *rp = f->rp, *rm = f->rm;
  const EIG(v) zero = EIG(v_splat)(0.0);
  EIG(v) c[NV], rg[NV], zc[NV], zp[NV], xn[NV];
  eig_vd m[NV], sum[NV];
  for (int q = 0; q < NV; q++) {
    rg[q] = EIG(v_recip)(EIG(v_floor)(f->gam[q], f->pt[q]));
    c[q] = zero;
    zp[q] = xn[q] = zero;
    zc[q] = z[q];
    m[q] = sum[q] = eig_vd_splat(0.0);
  }
  /* Rows i <= r top-down: t_i = b_i - lp_{i-1} t_{i-1} (x = z in place:
   * rows i-1 and i of z ride along in registers). */
  for (int i = 0; i < n; i++)
    for (int q = 0; q < NV; q++) {
      size_t k = (size_t)i * NV + q;
      EIG(v) zn = i < n - 1 ? z[k + NV] : zero;
      EIG(v) s = EIG(v_mul)(EIG(v_splat)(md[i]), zc[q]);
      if (mo && i > 0)
        s = EIG(v_mac)(s, EIG(v_splat)(mo[i - 1]), zp[q]);
      if (mo && i < n - 1)
        s = EIG(v_mac)(s, EIG(v_splat)(mo[i]), zn);
      bm[k] = s;
      if (bnrm) {
        eig_vd a = EIG(v_abs1)(s);
        m[q] = eig_vd_sel((eig_vm)(a > m[q]), a, m[q]);
        sum[q] += a;
      }
      zp[q] = zc[q];
      zc[q] = zn;
      c[q] = i > 0 ? EIG(tw_nmac)(s, lp[k - NV], c[q]) : s;
      z[k] = c[q];
    }
  for (int q = 0; bnrm && q < NV; q++) {
    bnrm[q] = eig_vd_sel((eig_vm)(sum[q] != sum[q]), sum[q], m[q]);
    m[q] = sum[q] = eig_vd_splat(0.0);
  }
  /* Rows i >= r bottom-up: u_i = b_i - um_{i+1} u_{i+1}; y_r = t_r + u_r
   * - b_r; then D^{-1}; above r at once x_i = w_i - lp_i x_{i+1} (x_{i+1}
   * final: rows up to r take no later step). */
  for (int i = n - 1; i >= 0; i--) {
    eig_vd di = eig_vd_splat(i);
    for (int q = 0; q < NV; q++) {
      size_t k = (size_t)i * NV + q;
      c[q] = i < n - 1 ? EIG(tw_nmac)(bm[k], um[k + NV], c[q]) : bm[k];
      eig_vm below = (eig_vm)(di > f->r[q]), at = (eig_vm)(di == f->r[q]);
      EIG(v) y = EIG(v_sel)(below, c[q], EIG(v_sel)(at, EIG(v_sub)(EIG(v_add)(z[k], c[q]), bm[k]), z[k]));
      EIG(v) d = EIG(v_sel)(below, rm[k], EIG(v_sel)(at, rg[q], rp[k]));
      EIG(v) xk = EIG(v_mul)(y, d);
      if (i < n - 1)
        xk = EIG(v_sel)((eig_vm)(di < f->r[q]), EIG(tw_nmac)(xk, lp[k], xn[q]), xk);
      z[k] = xn[q] = xk;
    }
  }
  /* x_i = w_i - um_i x_{i-1} below r (top-down). */
  for (int i = 0; i < n; i++) {
    eig_vd di = eig_vd_splat(i);
    for (int q = 0; q < NV; q++) {
      size_t k = (size_t)i * NV + q;
      EIG(v) xk = z[k];
      if (i > 0)
        xk = EIG(v_sel)((eig_vm)(di > f->r[q]), EIG(tw_nmac)(xk, um[k], xn[q]), xk);
      z[k] = xn[q] = xk;
      if (znrm) {
        eig_vd a = EIG(v_abs1)(xk);
        m[q] = eig_vd_sel((eig_vm)(a > m[q]), a, m[q]);
        sum[q] += a;
      }
    }
  }
  for (int q = 0; znrm && q < NV; q++)
    znrm[q] = eig_vd_sel((eig_vm)(sum[q] != sum[q]), sum[q], m[q]);
}
