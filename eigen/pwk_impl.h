/*
 * Eigenvalues of a REAL symmetric tridiagonal matrix: the root-free
 * Pal-Walker-Kahan QL iteration with Wilkinson's shift (as LAPACK dsterf),
 * on the diagonal d and the squared off-diagonals p = e^2.
 *
 * Why not the paper's LR algorithm here (lr_impl.h, used for the complex
 * case): with Wilkinson's shift inside the spectrum, T - sigma I is
 * indefinite and the LR step (an unpivoted LU) suffers element growth. On
 * the test pencils (random, Poisson on non-uniform meshes, Wilkinson W+)
 * real LR lost up to 1e3 n eps ||T|| of accuracy and let inverse iteration
 * stall, while the orthogonal PWK step is backward stable and meets
 * C n eps ||T|| everywhere. It has the same interface and the same cost
 * class (root-free, one division per row and step).
 *
 * Real only: included by eigen.c in the real expansion.
 */
/* Number of shifts of a combined QL step (pwk_lane_sweep), the smallest
 * block that takes one, and the combined steps without a deflation at the
 * top after which the single-shift sweep takes over. */
#define EIG_PWK_NS 4
#define EIG_PWK_MULTI_MIN 32
#define EIG_PWK_STALL 5

/*
 * EIG_PWK_NS root-free QL sweeps over rows l..m (dsterf's step, as in
 * pwk_eigenvalues) with the shifts sig[0..EIG_PWK_NS-1], chased together
 * in the lanes of one vector (GNU C vector extensions), so that their
 * division chains overlap and their divisions are one vector division.
 * Lane q runs sweep q two rows behind lane q-1 (its row i needs the
 * entries that sweep q-1 wrote at row i-1), so that what lane q-1 writes
 * at a row is what lane q reads one iteration later; it is passed along
 * the lanes in registers (a shift by one lane), lane 0 reads the matrix
 * and the last lane writes it back. Each lane passes row m (its start:
 * c = 1, s = 0, gamma = d_m - sigma), rows m-1..l (the sweep) and row l-1
 * (its end: p_l = s pp, d_l = sigma + gamma). Every
 * sweep does exactly the arithmetic of a plain sweep on the matrix its
 * predecessor left (the results are those of the four sweeps in turn,
 * bit for bit).
 *
 * An earlier sweep may split the block (its exact shift leaves e_i = 0);
 * where this sweep's bulge is zero too (rr = 0), it ends the lower part
 * there (p_{i+1} = s pp = 0, d_{i+1} = sigma + gamma) and starts afresh
 * above, as at row m.
 */
typedef double eig_pwk_v __attribute__((vector_size(EIG_PWK_NS * sizeof(double))));
typedef long long eig_pwk_m __attribute__((vector_size(EIG_PWK_NS * sizeof(long long))));

static inline eig_pwk_v EIG(pwk_sel)(eig_pwk_m m, eig_pwk_v a, eig_pwk_v b)
{
  return (eig_pwk_v)(((eig_pwk_m)a & m) | ((eig_pwk_m)b & ~m));
}

static void EIG(pwk_lane_sweep)(int l, int m, double *d, double *p, const double *sig)
{
  enum { K = EIG_PWK_NS };
  _Static_assert(EIG_PWK_NS == 4, "pwk_lane_sweep lists four lanes");
  const eig_pwk_v zero = {0.0, 0.0, 0.0, 0.0}, one = {1.0, 1.0, 1.0, 1.0};
  const eig_pwk_v sv = {sig[0], sig[1], sig[2], sig[3]};
  const eig_pwk_v lag = {0.0, 2.0, 4.0, 6.0};
  const eig_pwk_v vm = {m, m, m, m}, vl = {l, l, l, l};
  const eig_pwk_v dmin = {DBL_MIN, DBL_MIN, DBL_MIN, DBL_MIN};
  eig_pwk_v c = one, s = zero, gamma = zero, pp = one, pout = zero, dout = zero;
  const int iters = (m - l + 2) + 2 * (K - 1);
  for (int t = 0; t < iters; t++) {
    /* Lane 0 reads row m - t (clamped: unused outside l..m). */
    int r0 = m - t;
    int rd = r0 < l ? l : r0, rp = r0 > m - 1 ? m - 1 : (r0 < l ? l : r0);
    eig_pwk_v mem = {p[rp], d[rd], 0.0, 0.0};
    eig_pwk_v bb = __builtin_shufflevector(pout, mem, 4, 0, 1, 2);
    eig_pwk_v alpha = __builtin_shufflevector(dout, mem, 5, 0, 1, 2);
    eig_pwk_v row = (eig_pwk_v){r0, r0, r0, r0} + lag;
    eig_pwk_m init = (eig_pwk_m)(row == vm);
    eig_pwk_m step = (eig_pwk_m)(row < vm) & (eig_pwk_m)(row >= vl);
    eig_pwk_m fin = (eig_pwk_m)(row == vl - one);
    /* The sweep's row. */
    eig_pwk_v rr = pp + bb;
    eig_pwk_v rinv = one / rr, ipp = one / pp;
    eig_pwk_v cn = pp * rinv, sn = bb * rinv;
    eig_pwk_v g = pp * (alpha - sv) - bb * gamma;
    eig_pwk_v gn = g * rinv;
    eig_pwk_v po = s * rr, dox = gamma + (alpha - gn);
    eig_pwk_v ppn = EIG(pwk_sel)((eig_pwk_m)(cn != zero), (g * g) * (rinv * ipp), c * bb);
    /* Restart (rr = 0) and start (row m): c = 1, s = 0, gamma = alpha - sigma. */
    eig_pwk_m rz = step & ~(eig_pwk_m)(rr >= dmin);
    eig_pwk_m fresh = init | rz;
    eig_pwk_v g0 = alpha - sv;
    po = EIG(pwk_sel)(rz, zero, po);
    dox = EIG(pwk_sel)(rz, gamma + sv, dox);
    eig_pwk_v nc = EIG(pwk_sel)(fresh, one, cn), ns = EIG(pwk_sel)(fresh, zero, sn);
    eig_pwk_v ng = EIG(pwk_sel)(fresh, g0, gn), npp = EIG(pwk_sel)(fresh, g0 * g0, ppn);
    /* End (row l-1): p_l = s pp, d_l = sigma + gamma. */
    pout = EIG(pwk_sel)(fin, s * pp, po);
    dout = EIG(pwk_sel)(fin, sv + gamma, dox);
    eig_pwk_m upd = step | init;
    c = EIG(pwk_sel)(upd, nc, c);
    s = EIG(pwk_sel)(upd, ns, s);
    gamma = EIG(pwk_sel)(upd, ng, gamma);
    pp = EIG(pwk_sel)(upd, npp, pp);
    /* The last lane writes rows r+1 (d) and r+1 <= m-1 (p). */
    const int r = r0 + 2 * (K - 1);
    if (r >= l - 1 && r <= m - 1) {
      d[r + 1] = dout[K - 1];
      if (r <= m - 2)
        p[r + 1] = pout[K - 1];
    }
  }
}

static pscr_status EIG(pwk_eigenvalues)(int n, double *d, double *p, double tnorm)
{
  const double eps2 = DBL_EPSILON * DBL_EPSILON;
  const double abs_tol = eps2 * tnorm * tnorm; /* |e| <= eps ||T|| */
  const long maxit = 30L * n;
  long it = 0;
  int l = 0, stall = 0, lprev = -1;
  const int lend = n - 1;
  while (l < lend) {
    /* First negligible e^2 at or below l: the unreduced block is l..m. */
    int m = l;
    while (m < lend && !(p[m] <= abs_tol || p[m] <= eps2 * fabs(d[m] * d[m + 1])))
      m++;
    if (m < lend)
      p[m] = 0.0;
    if (m == l) { /* d[l] converged */
      l++;
      continue;
    }
    if (m == l + 1) { /* 2x2 block: both eigenvalues directly */
      double mu = EIG(wilkinson)(d[l], d[l + 1], p[l]);
      d[l] = d[l] + d[l + 1] - mu;
      d[l + 1] = mu;
      p[l] = 0.0;
      l += 2;
      continue;
    }
    if (it++ >= maxit)
      return EIG_ERROR(PSCR_ERROR_EIGEN_FAILED,
                       "QL iteration did not converge within %ld steps (order %d)", maxit, n);
    if (l != lprev) {
      lprev = l;
      stall = 0;
    }
    if (m - l + 1 >= EIG_PWK_MULTI_MIN && stall++ < EIG_PWK_STALL) {
      /* EIG_PWK_NS shifts: the eigenvalues of the leading block of that
       * order (a small single-shift problem). */
      double sd[EIG_PWK_NS], sp[EIG_PWK_NS];
      memcpy(sd, d + l, sizeof sd);
      memcpy(sp, p + l, (EIG_PWK_NS - 1) * sizeof(double));
      if (EIG(pwk_eigenvalues)(EIG_PWK_NS, sd, sp, EIG(tri_sq_norm)(EIG_PWK_NS, sd, sp)) ==
          PSCR_SUCCESS) {
        it += EIG_PWK_NS - 1;
        EIG(pwk_lane_sweep)(l, m, d, p, sd);
        continue;
      }
    }
    /* Wilkinson's shift from the leading 2x2 of the block. */
    double rte = sqrt(p[l]);
    double sg = (d[l + 1] - d[l]) / (2.0 * rte);
    double r = hypot(sg, 1.0);
    double sigma = d[l] - rte / (sg + copysign(r, sg));
    /* Root-free QL sweep from m up to l (dsterf). */
    double c = 1.0, s = 0.0, gamma = d[m] - sigma, pp = gamma * gamma;
    /* gamma = c (alpha - sigma) - s oldgam with c = pp / rr, s = bb / rr
     * is computed as g / rr, g = pp (alpha - sigma) - bb oldgam, and
     * gamma^2 / c as g^2 (1 / rr) (1 / pp): the two reciprocals are
     * independent of each other and of g, so the recurrence through pp
     * carries one division and two multiplications per row (was: a
     * division, then three dependent operations). Entries beyond ~1e100
     * would overflow g (as gamma^2 beyond 1e154 before; no scaling). */
    for (int i = m - 1; i >= l; i--) {
      double bb = p[i];
      double rr = pp + bb;
      double rinv = 1.0 / rr, ipp = 1.0 / pp;
      if (i != m - 1)
        p[i + 1] = s * rr;
      double oldc = c;
      c = pp * rinv;
      s = bb * rinv;
      double oldgam = gamma, alpha = d[i];
      double g = pp * (alpha - sigma) - bb * oldgam;
      gamma = g * rinv;
      d[i + 1] = oldgam + (alpha - gamma);
      pp = (c != 0.0) ? (g * g) * (rinv * ipp) : oldc * bb;
    }
    p[l] = s * pp;
    d[l] = sigma + gamma;
  }
  return PSCR_SUCCESS;
}
