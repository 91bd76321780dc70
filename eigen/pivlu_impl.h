/*
 * Tridiagonal LU with partial pivoting of A - sigma M (as LAPACK
 * dgttrf/dgttrs), whose zero or tiny pivots are raised to
 * eps ||A - sigma M||: for one shift (shifted_factor, shifted_solve: the
 * inverse iteration of invit_impl.h) and for sixteen shifts side by side
 * in lane vectors (lane_factor_fwd, lane_mass_fwd, lane_back: the
 * batches of produce_impl.h).
 *
 * Type-generic: included by eigen.c once per scalar type, after
 * vecops_impl.h.
 */

/* LU factors of A - sigma M with partial pivoting (as LAPACK dgttrf):
 * pivots d (only the last is used by the solve), reciprocal pivots dinv,
 * multipliers dl, U's first and second off-diagonals du, du2 divided by
 * their row's pivot (see shifted_solve), interchanges ip. */
typedef struct EIG(lu) {
  EIG_T *d, *du, *du2, *dl, *dinv;
  unsigned char *ip;
} EIG(lu);

/* Pivot raised to pert in modulus when below it (a singular column). */
static inline EIG_T EIG(pivot_fix)(EIG_T p0, double pert)
{
  double a = EIG_ABS1(p0);
  if (a < pert) /* rare */
    p0 = (a == 0.0) ? (EIG_T)pert : p0 * (pert / a);
  return p0;
}

/*
 * Elimination step i (0 <= i < n-1). Row i holds (dc, uc, 0) in columns
 * i..i+2, row i+1 (l, dn, un): the entries of A - sigma M, dc and uc
 * already updated by step i-1. Branch-free: the pivoting pattern is
 * irregular near an eigenvalue and mispredicted branches would dominate, so
 * the interchange is a select; the carried entries stay in registers.
 */
static inline void EIG(factor_step)(int i, int n, const EIG_T *ad, const EIG_T *ao,
                                    const EIG_T *md, const EIG_T *mo, EIG_T sigma,
                                    double pert, const EIG(lu) * f, EIG_T *dc, EIG_T *uc)
{
  EIG_T l = ao[i] - (mo ? sigma * mo[i] : 0.0);
  EIG_T dn = ad[i + 1] - sigma * md[i + 1];
  EIG_T un = (i < n - 2) ? ao[i + 1] - (mo ? sigma * mo[i + 1] : 0.0) : 0.0;
  EIG_T c = *dc, u = *uc;
  int sw = EIG_ABS1(c) < EIG_ABS1(l);
  EIG_T p0 = sw ? l : c, q0 = sw ? c : l;   /* column i */
  EIG_T p1 = sw ? dn : u, q1 = sw ? u : dn; /* column i+1 */
  EIG_T p2 = sw ? un : 0.0;                 /* column i+2 */
  EIG_T q2 = sw ? 0.0 : un;
  p0 = EIG(pivot_fix)(p0, pert);
  EIG_T r = EIG_RECIP(p0);
  EIG_T m = q0 * r;
  f->d[i] = p0;
  f->dinv[i] = r;
  f->dl[i] = m;
  f->du[i] = p1 * r;
  f->du2[i] = p2 * r;
  f->ip[i] = (unsigned char)sw;
  *dc = q1 - m * p1;
  *uc = q2 - m * p2;
}

static inline void EIG(factor_last)(int n, double pert, const EIG(lu) * f, EIG_T dc)
{
  dc = EIG(pivot_fix)(dc, pert);
  f->d[n - 1] = dc;
  f->dinv[n - 1] = EIG_RECIP(dc);
}

static inline void EIG(factor_first)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                     const EIG_T *mo, EIG_T sigma, EIG_T *dc, EIG_T *uc)
{
  *dc = ad[0] - sigma * md[0];
  *uc = n > 1 ? ao[0] - (mo ? sigma * mo[0] : 0.0) : 0.0;
}

/* Factor A - sigma M into f. */
static void EIG(shifted_factor)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                const EIG_T *mo, EIG_T sigma, double pert, const EIG(lu) * f)
{
  EIG_T dc, uc;
  EIG(factor_first)(n, ad, ao, md, mo, sigma, &dc, &uc);
  for (int i = 0; i < n - 1; i++)
    EIG(factor_step)(i, n, ad, ao, md, mo, sigma, pert, f, &dc, &uc);
  EIG(factor_last)(n, pert, f, dc);
}

/* Solve with the factors of shifted_factor, in place. */
static void EIG(shifted_solve)(int n, const EIG(lu) * f, EIG_T *x)
{
  const EIG_T *du = f->du, *du2 = f->du2, *dl = f->dl, *dinv = f->dinv;
  const unsigned char *ip = f->ip;
  EIG_T xi = x[0];
  for (int i = 0; i < n - 1; i++) { /* branch-free: the swap is a select */
    EIG_T xn = x[i + 1];
    int sw = ip[i];
    EIG_T piv = sw ? xn : xi, oth = sw ? xi : xn;
    x[i] = piv;
    xi = oth - dl[i] * piv;
  }
  x[n - 1] = xi;
  /* du, du2 hold U's off-diagonals already divided by the pivot, so that
   * the recurrence through x[i+1] is one fused multiply-add per row. */
  x[n - 1] *= dinv[n - 1];
  if (n > 1)
    x[n - 2] = x[n - 2] * dinv[n - 2] - du[n - 2] * x[n - 1];
  for (int i = n - 3; i >= 0; i--)
    x[i] = (x[i] * dinv[i] - du2[i] * x[i + 2]) - du[i] * x[i + 1];
}

/*
 * Pivoted inverse iteration for the EIG_TW_LANES eigenvalues of a batch
 * side by side (the producer of complex batches, EIG_PIV_LANES): the LU
 * factorization with partial pivoting of factor_step and the solve of
 * shifted_solve, written for lane vectors. The interchange is a select per
 * lane, as in the scalar code, so every lane runs its own pivoting
 * sequence; only the tiny-pivot guard differs (v_floor moves a pivot below
 * pert by 2 pert instead of scaling it to pert: the same size of backward
 * perturbation without a division). Where the scalar factorization and
 * solve wait on one division or product per row, sixteen recurrences now
 * share that latency.
 *
 * The batch streams through the cache hierarchy (some 10 MB at n = 8191),
 * so the steps are fused into as few passes as the recurrences allow:
 * lane_factor_fwd factors, forms b = M z and runs the forward solve in one
 * pass, lane_back the backward solve and ||x||_inf, lane_mass_fwd the next
 * M z (of the scaled x, formed on the fly) and its forward solve. The
 * arithmetic is that of the separate passes, operation for operation.
 *
 * f: reciprocal pivots dinv, multipliers dl, U's first off-diagonal du
 * divided by the pivot (EIG_TW_NV n lane vectors each) and the
 * interchanges ip (a byte of eig_vm_bits per lane vector and row). U's
 * second off-diagonal, nonzero only after an interchange, is formed again
 * by the backward solves from the pencil and ip (lane_du2): the backward
 * passes wait on memory, not on arithmetic.
 */
typedef struct EIG(plu) {
  EIG(v) *dinv, *dl, *du;
  unsigned char *ip;
} EIG(plu);

/* Entry (i, i+1) of A - sigma M for the shifts s. */
static inline EIG(v) EIG(lane_off)(const EIG_T *ao, const EIG_T *mo, EIG(v) s, int i)
{
  return mo ? EIG(v_nmac)(EIG(v_splat)(ao[i]), s, EIG(v_splat)(mo[i])) : EIG(v_splat)(ao[i]);
}

/* Row i < n-2 of U's second off-diagonal divided by the pivot (dinv):
 * entry (i+1, i+2) of A - sigma M where row i was interchanged, else 0. */
static inline EIG(v) EIG(lane_du2)(const EIG_T *ao, const EIG_T *mo, EIG(v) s, int i,
                                   unsigned char ip, EIG(v) dinv)
{
  EIG(v) p2 = EIG(v_sel)(eig_vm_unbits(ip), EIG(lane_off)(ao, mo, s, i + 1), EIG(v_splat)(0.0));
  return EIG(v_mul)(p2, dinv);
}

/* Row i, lane vector b of the random starts: the window seq[i + 8 b ..] of
 * the full batch's sequence (seq not NULL), else z0's row. */
static inline EIG(v) EIG(start_row)(const double *seq, const EIG(v) * z0, size_t i, int b)
{
  if (!seq)
    return z0[i * EIG_TW_NV + b];
  eig_vd re;
  memcpy(&re, seq + i + (size_t)b * EIG_VL, sizeof re);
#if EIG_IS_REAL
  return re;
#else
  return (EIG(v)){re, eig_vd_splat(0.0)};
#endif
}

/* Factor A - sigma M (shifts s, pivot floors pt) into f and, in the same
 * pass, x = L^{-1} P M z for the starts z (start_row of seq, z0). */
static void EIG(lane_factor_fwd)(int n, const EIG_T *ad, const EIG_T *ao, const EIG_T *md,
                                 const EIG_T *mo, const EIG(v) * s, const eig_vd *pt,
                                 const EIG(plu) * f, const double *seq, const EIG(v) * z0,
                                 EIG(v) * x)
{
  enum { NV = EIG_TW_NV };
  const EIG(v) zero = EIG(v_splat)(0.0);
  EIG(v) dc[NV], uc[NV], lc[NV], zc[NV], zn[NV], xi[NV];
  for (int b = 0; b < NV; b++) {
    dc[b] = EIG(v_nmac)(EIG(v_splat)(ad[0]), s[b], EIG(v_splat)(md[0]));
    lc[b] = uc[b] = n > 1 ? EIG(lane_off)(ao, mo, s[b], 0) : zero;
    zc[b] = EIG(start_row)(seq, z0, 0, b);
    zn[b] = n > 1 ? EIG(start_row)(seq, z0, 1, b) : zero;
    xi[b] = EIG(mass_row)(n, md, mo, 0, zero, zc[b], zn[b]);
  }
  for (int i = 0; i < n - 1; i++) {
    EIG_UNROLL_NV
    for (int b = 0; b < NV; b++) {
      EIG(v) l = lc[b]; /* entry (i+1, i): the previous row's un */
      EIG(v) dn = EIG(v_nmac)(EIG(v_splat)(ad[i + 1]), s[b], EIG(v_splat)(md[i + 1]));
      EIG(v) un = i < n - 2 ? EIG(lane_off)(ao, mo, s[b], i + 1) : zero;
      lc[b] = un;
      const eig_vd adc = EIG(v_abs1)(dc[b]), al = EIG(v_abs1)(l);
      eig_vm sw = (eig_vm)(adc < al);
      EIG(v) p0 = EIG(v_sel)(sw, l, dc[b]), q0 = EIG(v_sel)(sw, dc[b], l);
      EIG(v) p1 = EIG(v_sel)(sw, dn, uc[b]), q1 = EIG(v_sel)(sw, uc[b], dn);
      EIG(v) p2 = EIG(v_sel)(sw, un, zero), q2 = EIG(v_sel)(sw, zero, un);
      /* The pivot floor (rare) off the recurrence's path: |p0| is the
       * |l| or |dc| of the pivot test. */
      if (eig_vm_bits((eig_vm)(eig_vd_sel(sw, al, adc) < pt[b])))
        p0 = EIG(v_floor)(p0, pt[b]);
      /* One division, 1 / |p0|^2, with t = q0 conj(p0) and the products t
       * p1, t p2 formed while it runs: m = q0 / p0 = t / |p0|^2 and dc =
       * q1 - m p1 = q1 - (t p1) / |p0|^2 wait on the division and one
       * fused multiply-add, where r = 1 / p0, m = q0 r and dc = q1 - m p1
       * took a product, a complex product and a complex multiply-add after
       * it (at order 8191 the factorization took about 57 cycles a row,
       * nearly all of them this recurrence; the stores cost about 15). As
       * |p0|^2 (before), t p1 is formed unscaled: entries up to about
       * 1e100 in modulus. */
      const eig_vd inv = 1.0 / EIG(v_norm2)(p0);
      const EIG(v) t = EIG(v_mulconj)(q0, p0);
      const EIG(v) r = EIG(v_rscale)(EIG(v_conj)(p0), inv);
      const EIG(v) m = EIG(v_rscale)(t, inv);
      const size_t k = (size_t)i * NV + b;
      f->dinv[k] = r;
      f->dl[k] = m;
      f->du[k] = EIG(v_mul)(p1, r);
      f->ip[k] = eig_vm_bits(sw);
      dc[b] = EIG(v_subscaled)(q1, EIG(v_mul)(t, p1), inv);
      uc[b] = EIG(v_subscaled)(q2, EIG(v_mul)(t, p2), inv);
      /* Row i+1 of M z, then the forward step of row i. */
      EIG(v) z2 = i < n - 2 ? EIG(start_row)(seq, z0, (size_t)i + 2, b) : zero;
      EIG(v) bn = EIG(mass_row)(n, md, mo, i + 1, zc[b], zn[b], z2);
      zc[b] = zn[b];
      zn[b] = z2;
      EIG(v) piv = EIG(v_sel)(sw, bn, xi[b]), oth = EIG(v_sel)(sw, xi[b], bn);
      x[k] = piv;
      xi[b] = EIG(v_nmac)(oth, m, piv);
    }
  }
  for (int b = 0; b < NV; b++) {
    const size_t k = (size_t)(n - 1) * NV + b;
    f->dinv[k] = EIG(v_recip)(EIG(v_floor)(dc[b], pt[b]));
    x[k] = xi[b];
  }
}

/* Row i of z = x sc (zero past the last row). */
static inline EIG(v) EIG(xs_row)(int n, const EIG(v) * x, size_t i, int b, eig_vd sc)
{
  return (int)i < n ? EIG(v_rscale)(x[i * EIG_TW_NV + b], sc) : EIG(v_splat)(0.0);
}

/* b = M z for z = x sc (per lane vector scale, formed row by row), bn =
 * ||b||_inf (eig_vd_norm), and x = L^{-1} P b in place. */
static void EIG(lane_mass_fwd)(int n, const EIG_T *md, const EIG_T *mo, const EIG(plu) * f,
                               EIG(v) * x, const eig_vd *sc, eig_vd *bnrm)
{
  enum { NV = EIG_TW_NV };
  const EIG(v) zero = EIG(v_splat)(0.0);
  EIG(v) zc[NV], zn[NV], xi[NV];
  eig_vd m[NV], sum[NV];
  for (int b = 0; b < NV; b++) {
    zc[b] = EIG(xs_row)(n, x, 0, b, sc[b]);
    zn[b] = EIG(xs_row)(n, x, 1, b, sc[b]);
    xi[b] = EIG(mass_row)(n, md, mo, 0, zero, zc[b], zn[b]);
    sum[b] = m[b] = EIG(v_abs1)(xi[b]);
  }
  for (int i = 0; i < n - 1; i++)
    EIG_UNROLL_NV
    for (int b = 0; b < NV; b++) {
      const size_t k = (size_t)i * NV + b;
      EIG(v) z2 = EIG(xs_row)(n, x, (size_t)i + 2, b, sc[b]);
      EIG(v) bn = EIG(mass_row)(n, md, mo, i + 1, zc[b], zn[b], z2);
      zc[b] = zn[b];
      zn[b] = z2;
      eig_vd a = EIG(v_abs1)(bn);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
      eig_vm sw = eig_vm_unbits(f->ip[k]);
      EIG(v) piv = EIG(v_sel)(sw, bn, xi[b]), oth = EIG(v_sel)(sw, xi[b], bn);
      x[k] = piv;
      xi[b] = EIG(v_nmac)(oth, f->dl[k], piv);
    }
  for (int b = 0; b < NV; b++) {
    x[(size_t)(n - 1) * NV + b] = xi[b];
    bnrm[b] = eig_vd_norm(m[b], sum[b]);
  }
}

/* x = U^{-1} x in place (after lane_factor_fwd or lane_mass_fwd; ao, mo,
 * s for lane_du2), and xn = ||x||_inf (eig_vd_norm). */
static void EIG(lane_back)(int n, const EIG_T *ao, const EIG_T *mo, const EIG(v) * s,
                           const EIG(plu) * f, EIG(v) * x, eig_vd *xnrm)
{
  enum { NV = EIG_TW_NV };
  EIG(v) x1[NV], x2[NV]; /* rows i+1, i+2 */
  eig_vd m[NV], sum[NV];
  for (int b = 0; b < NV; b++) {
    const size_t k = (size_t)(n - 1) * NV + b;
    x1[b] = x[k] = EIG(v_mul)(x[k], f->dinv[k]);
    sum[b] = m[b] = EIG(v_abs1)(x1[b]);
    if (n > 1) {
      x2[b] = x1[b];
      x1[b] = x[k - NV] =
          EIG(v_nmac)(EIG(v_mul)(x[k - NV], f->dinv[k - NV]), f->du[k - NV], x2[b]);
      eig_vd a = EIG(v_abs1)(x1[b]);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
    }
  }
  for (int i = n - 3; i >= 0; i--)
    EIG_UNROLL_NV
    for (int b = 0; b < NV; b++) {
      const size_t k = (size_t)i * NV + b;
      EIG(v) du2 = EIG(lane_du2)(ao, mo, s[b], i, f->ip[k], f->dinv[k]);
      EIG(v) xk = EIG(v_nmac)(EIG(v_nmac)(EIG(v_mul)(x[k], f->dinv[k]), du2, x2[b]),
                              f->du[k], x1[b]);
      x[k] = xk;
      x2[b] = x1[b];
      x1[b] = xk;
      eig_vd a = EIG(v_abs1)(xk);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
    }
  for (int b = 0; b < NV; b++)
    xnrm[b] = eig_vd_norm(m[b], sum[b]);
}
