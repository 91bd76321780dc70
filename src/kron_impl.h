/* Type-generic body of kron.c (see kron.h); included once per scalar type. */

/* Entry (i, i + s) of a tridiagonal matrix, s in {-1, 0, 1}, inside bounds. */
static inline PSCR_SCALAR PSCR_SUF(tri_at)(const PSCR_SUF(pscr_tri) * t, int i, int s)
{
  if (s == 0)
    return t->diag[i];
  if (!t->off)
    return 0;
  return t->off[s < 0 ? i - 1 : i];
}

void PSCR_SUF(pscr_kron_apply)(int nd, const PSCR_SUF(pscr_tri) * t, PSCR_SCALAR alpha,
                               const PSCR_SCALAR *u, PSCR_SCALAR *out, int accumulate, int nt)
{
  /* Pad to three axes with 1x1 identities so one loop nest serves 1D-3D. */
  PSCR_SCALAR one = 1;
  PSCR_SUF(pscr_tri) ax[3];
  for (int k = 0; k < 3; k++) {
    int d = k - (3 - nd);
    if (d < 0) {
      ax[k].n = 1;
      ax[k].diag = &one;
      ax[k].off = NULL;
    } else {
      ax[k] = t[d];
    }
  }
  const int n0 = ax[0].n, n1 = ax[1].n, n2 = ax[2].n;
  /* Parallel over the outermost index for the operator applied to a whole
     vector; inside a solve's parallel region this nests and runs serially. */
#pragma omp parallel for schedule(static) num_threads(nt > 0 ? nt : omp_get_max_threads()) \
    if ((size_t)n0 * n1 * n2 > PSCR_PAR_MIN)
  for (int i0 = 0; i0 < n0; i0++)
    for (int i1 = 0; i1 < n1; i1++) {
      /* c01[s0][s1] = T0(i0, i0+s0) T1(i1, i1+s1), zero outside the matrix. */
      PSCR_SCALAR c01[3][3];
      for (int s0 = -1; s0 <= 1; s0++)
        for (int s1 = -1; s1 <= 1; s1++) {
          int in = i0 + s0 >= 0 && i0 + s0 < n0 && i1 + s1 >= 0 && i1 + s1 < n1;
          c01[s0 + 1][s1 + 1] =
              in ? alpha * PSCR_SUF(tri_at)(&ax[0], i0, s0) * PSCR_SUF(tri_at)(&ax[1], i1, s1)
                 : 0;
        }
      PSCR_SCALAR *y = out + ((size_t)i0 * n1 + (size_t)i1) * n2;
      for (int i2 = 0; i2 < n2; i2++) {
        PSCR_SCALAR c2[3];
        for (int s2 = -1; s2 <= 1; s2++)
          c2[s2 + 1] = (i2 + s2 >= 0 && i2 + s2 < n2) ? PSCR_SUF(tri_at)(&ax[2], i2, s2) : 0;
        PSCR_SCALAR v = 0;
        for (int s0 = -1; s0 <= 1; s0++)
          for (int s1 = -1; s1 <= 1; s1++) {
            PSCR_SCALAR c = c01[s0 + 1][s1 + 1];
            if (c == 0)
              continue;
            const PSCR_SCALAR *x = u + ((size_t)(i0 + s0) * n1 + (size_t)(i1 + s1)) * n2;
            PSCR_SCALAR r = c2[1] * x[i2];
            if (i2 > 0)
              r += c2[0] * x[i2 - 1];
            if (i2 < n2 - 1)
              r += c2[2] * x[i2 + 1];
            v += c * r;
          }
        y[i2] = accumulate ? y[i2] + v : v;
      }
    }
}

/* Axis list for one Kronecker term: A on axis `axis` (-1: none), M elsewhere. */
static void PSCR_SUF(kron_term_axes)(int nd, const PSCR_SUF(pscr_factor) * f, int axis,
                                     PSCR_SUF(pscr_tri) * t)
{
  for (int d = 0; d < nd; d++)
    t[d] = d == axis ? f[d].a : f[d].m;
}

void PSCR_SUF(pscr_kron_mass_stiff)(int nd, const PSCR_SUF(pscr_factor) * f,
                                    const PSCR_SCALAR *u, PSCR_SCALAR *mass,
                                    PSCR_SCALAR *stiff)
{
  PSCR_SUF(pscr_tri) t[3] = {{0}};
  PSCR_SUF(kron_term_axes)(nd, f, -1, t);
  PSCR_SUF(pscr_kron_apply)(nd, t, 1, u, mass, 0, 0);
  for (int d = 0; d < nd; d++) {
    PSCR_SUF(kron_term_axes)(nd, f, d, t);
    PSCR_SUF(pscr_kron_apply)(nd, t, 1, u, stiff, d > 0, 0);
  }
}

void PSCR_SUF(pscr_kron_op)(int nd, const PSCR_SUF(pscr_factor) * f, PSCR_SCALAR shift,
                            const PSCR_SCALAR *u, PSCR_SCALAR *out, int nt)
{
  PSCR_SUF(pscr_tri) t[3] = {{0}};
  for (int d = 0; d < nd; d++) {
    PSCR_SUF(kron_term_axes)(nd, f, d, t);
    PSCR_SUF(pscr_kron_apply)(nd, t, 1, u, out, d > 0, nt);
  }
  if (shift != 0) {
    PSCR_SUF(kron_term_axes)(nd, f, -1, t);
    PSCR_SUF(pscr_kron_apply)(nd, t, shift, u, out, 1, nt);
  }
}

double PSCR_SUF(pscr_kron_norm_inf)(int nd, const PSCR_SUF(pscr_factor) * f, PSCR_SCALAR shift)
{
  /* Row (i0, i1, i2) of the operator has entries at offsets s in {-1,0,1}^nd:
     sum_d A_d(i_d, i_d+s_d) prod_{e != d} M_e(i_e, i_e+s_e) + c prod_e M_e(...).
     Exact: enumerate every row's 3^nd stencil entries (cost 3^nd per row). */
  int n[3] = {1, 1, 1};
  for (int d = 0; d < nd; d++)
    n[d] = f[d].a.n;
  double best = 0.0;
  int any_nan = 0;
#pragma omp parallel for schedule(static) reduction(max : best) reduction(| : any_nan) \
    if ((size_t)n[0] * n[1] * n[2] > PSCR_PAR_MIN)
  for (int i0 = 0; i0 < n[0]; i0++) {
    int idx[3];
    idx[0] = i0;
    for (idx[1] = 0; idx[1] < n[1]; idx[1]++)
      for (idx[2] = 0; idx[2] < n[2]; idx[2]++) {
        double row = 0.0;
        int stencil = 1;
        for (int d = 0; d < nd; d++)
          stencil *= 3;
        for (int code = 0; code < stencil; code++) {
          int s[3], c = code, inside = 1;
          for (int d = 0; d < nd; d++) {
            s[d] = c % 3 - 1;
            c /= 3;
            inside &= idx[d] + s[d] >= 0 && idx[d] + s[d] < n[d];
          }
          if (!inside)
            continue;
          PSCR_SCALAR mprod = 1, v = 0;
          for (int d = 0; d < nd; d++)
            mprod *= PSCR_SUF(tri_at)(&f[d].m, idx[d], s[d]);
          for (int d = 0; d < nd; d++) {
            PSCR_SCALAR term = PSCR_SUF(tri_at)(&f[d].a, idx[d], s[d]);
            for (int e = 0; e < nd; e++)
              if (e != d)
                term *= PSCR_SUF(tri_at)(&f[e].m, idx[e], s[e]);
            v += term;
          }
          row += PSCR_ABS(v + shift * mprod);
        }
        any_nan |= isnan(row);
        best = fmax(best, row);
      }
  }
  return any_nan ? NAN : best; /* a NaN row makes the norm NaN (max drops it) */
}
