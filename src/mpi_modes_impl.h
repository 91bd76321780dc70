/*
 * Type-generic body of the one-pass distributed solve (mpi_modes.c),
 * included once per scalar type (double for R64, double complex for C64):
 * the tridiagonal systems along dimension 1 of every transverse mode m,
 * J_m = A1 + (sigma_m + c) M1 restricted to this rank's interior rows,
 * over chunks of PSCR_MODE_CHUNK consecutive modes, so that the inner
 * loops run over contiguous modes (x[i pl + m]: row i of the slab, mode m).
 */

/* J_m's entries in the compute type: diagonal of row g, and the coupling
   of rows g and g + 1. */
static inline PSCR_SCALAR PSCR_SUF(mode_jd)(const pscr_mpi_plan *P, int g, PSCR_SCALAR t)
{
  return (PSCR_SCALAR)P->a1d[g] + t * (PSCR_SCALAR)P->m1d[g];
}
static inline PSCR_SCALAR PSCR_SUF(mode_jo)(const pscr_mpi_plan *P, int g, PSCR_SCALAR t)
{
  return (PSCR_SCALAR)P->a1o[g] + t * (PSCR_SCALAR)P->m1o[g];
}

/* sigma_m + c for the modes m0 .. m0 + w - 1. */
static void PSCR_SUF(mode_shifts)(const pscr_mpi_plan *P, size_t m0, int w, PSCR_SCALAR *tv)
{
  for (int k = 0; k < w; k++)
    tv[k] = (PSCR_SCALAR)(pscr_mpi_mode_sigma(P, m0 + (size_t)k) + P->c);
}

/*
 * One elimination over the interior rows of modes m0 .. m0 + w - 1, from
 * the top (down = 1: the last entry of J_II^-1 x_I, z / p at the last row)
 * or from the bottom (the first entry), into v. Returns the first mode + 1
 * whose pivot falls to the rounding level of its terms (the slab at
 * resonance for that mode), else 0.
 */
static size_t PSCR_SUF(mode_sweep)(const pscr_mpi_plan *P, const PSCR_SCALAR *x,
                                   const PSCR_SCALAR *tv, size_t m0, int w, int down,
                                   PSCR_SCALAR *v)
{
  const int ia = P->ia, nI = P->ib - P->ia;
  const size_t pl = P->plane;
  PSCR_SCALAR p[PSCR_MODE_CHUNK], z[PSCR_MODE_CHUNK];
  size_t bad = 0;
  const int r0 = down ? 0 : nI - 1;
  for (int k = 0; k < w; k++) {
    p[k] = PSCR_SUF(mode_jd)(P, ia + r0, tv[k]);
    z[k] = x[(size_t)r0 * pl + m0 + (size_t)k];
    if (!bad && !(PSCR_ABS1(p[k]) > 0))
      bad = m0 + (size_t)k + 1;
  }
  for (int step = 1; step < nI; step++) {
    /* Row r, coupled to the row eliminated before it through J(r, r -+ 1). */
    const int r = down ? step : nI - 1 - step, link = down ? ia + r - 1 : ia + r;
    const PSCR_SCALAR *xr = x + (size_t)r * pl + m0;
    for (int k = 0; k < w; k++) {
      const PSCR_SCALAR o = PSCR_SUF(mode_jo)(P, link, tv[k]),
                        d = PSCR_SUF(mode_jd)(P, ia + r, tv[k]);
      const PSCR_SCALAR l = o / p[k], lo = l * o, piv = d - lo;
      if (!bad && !(PSCR_ABS1(piv) > PSCR_EPS * (PSCR_ABS1(d) + PSCR_ABS1(lo))))
        bad = m0 + (size_t)k + 1;
      z[k] = xr[k] - l * z[k];
      p[k] = piv;
    }
  }
  for (int k = 0; k < w; k++)
    v[m0 + (size_t)k] = z[k] / p[k];
  return bad;
}

/*
 * Phase A: the first and last entries of J_II^-1 x_I per mode, without the
 * rest: an elimination from the top gives the last, one from the bottom
 * the first. x: the interior rows (nI >= 1). Returns the first failing
 * mode + 1, else 0.
 */
static size_t PSCR_SUF(mode_ends)(const pscr_mpi_plan *P, const PSCR_SCALAR *x, PSCR_SCALAR *vf,
                                  PSCR_SCALAR *vl, size_t m0, int w)
{
  PSCR_SCALAR tv[PSCR_MODE_CHUNK];
  PSCR_SUF(mode_shifts)(P, m0, w, tv);
  const size_t a = PSCR_SUF(mode_sweep)(P, x, tv, m0, w, 1, vl);
  const size_t b = PSCR_SUF(mode_sweep)(P, x, tv, m0, w, 0, vf);
  return a && b ? (a < b ? a : b) : a ? a : b;
}

/*
 * Phase B: x_I = J_II^-1 (x_I - J(ia, s_left) usl e_first - J(ib-1, s) us
 * e_last) per mode, in place (usl NULL on rank 0, us NULL on the last
 * rank): Thomas from the top, its inverse pivots in ip (nI w scalars), then
 * the back substitution.
 */
static void PSCR_SUF(mode_solve)(const pscr_mpi_plan *P, PSCR_SCALAR *x, const PSCR_SCALAR *usl,
                                 const PSCR_SCALAR *us, size_t m0, int w, PSCR_SCALAR *ip)
{
  const int ia = P->ia, nI = P->ib - P->ia;
  const size_t pl = P->plane;
  PSCR_SCALAR tv[PSCR_MODE_CHUNK];
  PSCR_SUF(mode_shifts)(P, m0, w, tv);
  PSCR_SCALAR *x0 = x + m0, *xl = x + (size_t)(nI - 1) * pl + m0;
  if (usl)
    for (int k = 0; k < w; k++)
      x0[k] -= PSCR_SUF(mode_jo)(P, ia - 1, tv[k]) * usl[m0 + (size_t)k];
  if (us)
    for (int k = 0; k < w; k++)
      xl[k] -= PSCR_SUF(mode_jo)(P, ia + nI - 1, tv[k]) * us[m0 + (size_t)k];
  for (int k = 0; k < w; k++)
    ip[k] = 1 / PSCR_SUF(mode_jd)(P, ia, tv[k]);
  for (int i = 1; i < nI; i++) {
    PSCR_SCALAR *xi = x + (size_t)i * pl + m0;
    const PSCR_SCALAR *xp = xi - pl, *ipp = ip + (size_t)(i - 1) * w;
    PSCR_SCALAR *ipi = ip + (size_t)i * w;
    for (int k = 0; k < w; k++) {
      const PSCR_SCALAR o = PSCR_SUF(mode_jo)(P, ia + i - 1, tv[k]), l = o * ipp[k];
      ipi[k] = 1 / (PSCR_SUF(mode_jd)(P, ia + i, tv[k]) - l * o);
      xi[k] -= l * xp[k];
    }
  }
  for (int k = 0; k < w; k++)
    xl[k] *= ip[(size_t)(nI - 1) * w + k];
  for (int i = nI - 2; i >= 0; i--) {
    PSCR_SCALAR *xi = x + (size_t)i * pl + m0;
    const PSCR_SCALAR *xn = xi + pl, *ipi = ip + (size_t)i * w;
    for (int k = 0; k < w; k++)
      xi[k] = (xi[k] - PSCR_SUF(mode_jo)(P, ia + i, tv[k]) * xn[k]) * ipi[k];
  }
}
