/*
 * Blocked Gram-Schmidt of a batch in the M bilinear form x^T M y (plain
 * transpose also when complex): the accepted lanes against the earlier
 * vectors of their windows (block_orth, block_stage: two passes over the
 * batch in blocks of rows that stay in the first-level cache), then among
 * themselves in coefficient space (run_finish: V = Z T from the Gram
 * matrix Z^T M Z), with the normalization w^T M w = 1 and the sign
 * convention. Sums over the rows are formed per fixed row segment and
 * added in segment order, so that the bits do not depend on the number of
 * threads that sweep.
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

/* block_orth's kernels over the rows i0..i1-1 for nq <= EIG_ORTH_Q
 * vectors vk and the lane vectors b0..b1-1 of each row (inlined with
 * constant nq and bounds: lane vectors whose lanes all have a zero
 * coefficient are skipped, which changes no result beyond the sign of a
 * zero). Complex: three real products per complex one (p3, a3), three
 * vectors at a time so that the sums stay in the 32 vector registers. */
#undef EIG_ORTH_Q /* (defined per expansion) */
#if EIG_IS_REAL
#define EIG_ORTH_Q 4
#else
#define EIG_ORTH_Q 3
#endif

/* acc[q][b] += sum over the rows of vk[q][i] (M z)_i, M z of the rows
 * in mzb (row i at (i - i0) NV). */
static inline __attribute__((always_inline)) void
EIG(orth_coef)(int i0, int i1, int nq, const EIG_T *const *vk, const EIG(v) * mzb, int b0,
               int b1, EIG(v) (*acc)[EIG_TW_NV])
{
  enum { NV = EIG_TW_NV, Q = EIG_ORTH_Q };
#if EIG_IS_REAL
  EIG(v) a[Q][NV];
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      a[q][b] = EIG(v_splat)(0.0);
  for (int i = i0; i < i1; i++)
    for (int q = 0; q < nq; q++) {
      EIG(v) w = EIG(v_splat)(vk[q][i]);
      for (int b = b0; b < b1; b++)
        a[q][b] = EIG(v_mac)(a[q][b], w, mzb[(size_t)(i - i0) * NV + b]);
    }
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      acc[q][b] = EIG(v_add)(acc[q][b], a[q][b]);
#else
  EIG(a3) a[Q][NV];
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      a[q][b] = EIG(a3_zero)();
  for (int i = i0; i < i1; i++) {
    EIG(p3) m[NV];
    for (int b = b0; b < b1; b++)
      m[b] = EIG(p3_of)(mzb[(size_t)(i - i0) * NV + b]);
    for (int q = 0; q < nq; q++) {
      EIG(p3) w = EIG(p3_splat)(vk[q][i]);
      for (int b = b0; b < b1; b++)
        a[q][b] = EIG(a3_mac)(a[q][b], w, m[b]);
    }
  }
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      acc[q][b] = EIG(v_add)(acc[q][b], EIG(a3_val)(a[q][b]));
#endif
}

/* z_i -= sum_q c[q] vk[q][i] over the rows. */
static inline __attribute__((always_inline)) void
EIG(orth_update)(int i0, int i1, int nq, const EIG_T *const *vk, EIG(v) (*c)[EIG_TW_NV], int b0,
                 int b1, EIG(v) * z)
{
  enum { NV = EIG_TW_NV, Q = EIG_ORTH_Q };
#if EIG_IS_REAL
  for (int i = i0; i < i1; i++)
    for (int b = b0; b < b1; b++) {
      EIG(v) s = EIG(v_mul)(c[0][b], EIG(v_splat)(vk[0][i]));
      for (int q = 1; q < nq; q++)
        s = EIG(v_mac)(s, c[q][b], EIG(v_splat)(vk[q][i]));
      z[(size_t)i * NV + b] = EIG(v_sub)(z[(size_t)i * NV + b], s);
    }
#else
  EIG(p3) cp[Q][NV];
  for (int q = 0; q < nq; q++)
    for (int b = b0; b < b1; b++)
      cp[q][b] = EIG(p3_of)(c[q][b]);
  for (int i = i0; i < i1; i++) {
    EIG(a3) s[NV];
    for (int b = b0; b < b1; b++)
      s[b] = EIG(a3_zero)();
    for (int q = 0; q < nq; q++) {
      EIG(p3) w = EIG(p3_splat)(vk[q][i]);
      for (int b = b0; b < b1; b++)
        s[b] = EIG(a3_mac)(s[b], w, cp[q][b]);
    }
    for (int b = b0; b < b1; b++)
      z[(size_t)i * NV + b] = EIG(v_sub)(z[(size_t)i * NV + b], EIG(a3_val)(s[b]));
  }
#endif
}

/* The kernels above for the lane vectors act says (bit b: lane vector b),
 * nq constant (always_inline from orth_group's switch). */
static inline __attribute__((always_inline)) void
EIG(orth_kernel)(int upd, int i0, int i1, int nq, int act, const EIG_T *const *vk,
                 const EIG(v) * mzb, EIG(v) (*c)[EIG_TW_NV], EIG(v) * z)
{
  /* Constant lane-vector bounds in each call: the sums stay in registers. */
  if (upd && act == 3)
    EIG(orth_update)(i0, i1, nq, vk, c, 0, 2, z);
  else if (upd && act == 1)
    EIG(orth_update)(i0, i1, nq, vk, c, 0, 1, z);
  else if (upd && act == 2)
    EIG(orth_update)(i0, i1, nq, vk, c, 1, 2, z);
  else if (act == 3)
    EIG(orth_coef)(i0, i1, nq, vk, mzb, 0, 2, c);
  else if (act == 1)
    EIG(orth_coef)(i0, i1, nq, vk, mzb, 0, 1, c);
  else if (act == 2)
    EIG(orth_coef)(i0, i1, nq, vk, mzb, 1, 2, c);
}

static void EIG(orth_group)(int upd, int i0, int i1, int nq, int act, const EIG_T *const *vk,
                            const EIG(v) * mzb, EIG(v) (*c)[EIG_TW_NV], EIG(v) * z)
{
  _Static_assert(EIG_ORTH_Q <= 4, "orth_group lists up to four vectors");
  switch (nq) {
#if EIG_ORTH_Q == 4
  case 4: EIG(orth_kernel)(upd, i0, i1, 4, act, vk, mzb, c, z); break;
#endif
  case 3: EIG(orth_kernel)(upd, i0, i1, 3, act, vk, mzb, c, z); break;
  case 2: EIG(orth_kernel)(upd, i0, i1, 2, act, vk, mzb, c, z); break;
  default: EIG(orth_kernel)(upd, i0, i1, 1, act, vk, mzb, c, z); break;
  }
}

/* Lane vectors (bits) with a lane whose window holds one of the vectors
 * t..t+nq-1. */
static int EIG(orth_active)(const eig_vm *member, int t, int nq)
{
  int act = 0;
  for (int q = 0; q < nq; q++)
    for (int b = 0; b < EIG_TW_NV; b++)
      for (int l = 0; l < EIG_VL; l++)
        act |= (member[(size_t)(t + q) * EIG_TW_NV + b][l] != 0) << b;
  return act;
}

/* Per lane max |z_i| (|re| + |im|) and sum over rows i0..i1-1, into m and
 * sum (eig_vd_norm makes the norm of them). */
static inline void EIG(norm_rows)(int i0, int i1, const EIG(v) * z, eig_vd *m, eig_vd *sum)
{
  for (int i = i0; i < i1; i++)
    for (int b = 0; b < EIG_TW_NV; b++) {
      eig_vd a = EIG(v_abs1)(z[(size_t)i * EIG_TW_NV + b]);
      m[b] = eig_vd_sel((eig_vm)(a > m[b]), a, m[b]);
      sum[b] += a;
    }
}

/* orth_group over the vectors k0..k0+nk-1 of the ring, EIG_ORTH_Q at a
 * time (act: their groups' active lane vectors), for rows i0..i1-1:
 * coefficients into coef (upd 0, M z of the rows in mzb) or the update
 * of z with them (upd 1). */
static void EIG(orth_rows)(int upd, eig_ring *r, int n, int k0, int nk, const int *act, int i0,
                           int i1, const EIG(v) * mzb, EIG(v) * coef, EIG(v) * z)
{
  enum { Q = EIG_ORTH_Q };
  for (int t = 0; t < nk; t += Q) {
    const int nq = nk - t < Q ? nk - t : Q;
    const EIG_T *vk[Q];
    for (int q = 0; q < nq; q++)
      vk[q] = EIG(ring_at)(r, n, k0 + t + q);
    EIG(orth_group)(upd, i0, i1, nq, act[t / Q], vk, mzb,
                    (EIG(v)(*)[EIG_TW_NV])(coef + (size_t)t * EIG_TW_NV), z);
  }
}

/* Entry k of the segments' partial sums (segment sg's at base + sg
 * stride), added in segment order. */
static inline EIG(v) EIG(seg_sum)(const EIG(v) * base, size_t stride, size_t k)
{
  EIG(v) c = base[k];
  for (int sg = 1; sg < EIG_SWEEP_SEGS; sg++)
    c = EIG(v_add)(c, base[sg * stride + k]);
  return c;
}

/* ||z_l||_inf from the segments' slots sm (max) and ss (sum), into nrm. */
static void EIG(seg_norms)(const EIG(sweep) * sw, int sm, int ss, eig_vd *nrm)
{
  enum { NV = EIG_TW_NV, SN = EIG_SN_N };
  for (int b = 0; b < NV; b++) {
    eig_vd m = eig_vd_splat(0.0), sum = eig_vd_splat(0.0);
    for (int sg = 0; sg < EIG_SWEEP_SEGS; sg++) {
      eig_vd a = sw->segn[(size_t)sg * SN * NV + sm * NV + b];
      m = eig_vd_sel((eig_vm)(a > m), a, m);
      sum += sw->segn[(size_t)sg * SN * NV + ss * NV + b];
    }
    nrm[b] = eig_vd_norm(m, sum);
  }
}

/*
 * One block pass of classical Gram-Schmidt of the batch's lanes against
 * the earlier vectors k0..k0+nk-1 (in the ring, M-normalized), in the
 * bilinear form x^T M y: z_l -= sum_k (v_k^T M z_l) v_k, the coefficient
 * kept where sw->member[k * EIG_TW_NV + b] is set for lane (b, l) and zero
 * elsewhere (sw->gact: the groups' active lane vectors, orth_active);
 * ||z_l||_inf before and after into before and after. Every thread of tm
 * calls it (its segments' rows; member and gact ready before a barrier).
 * Two passes over z in blocks of rows that stay in the first-level cache:
 * the first forms M z of a block and its products with every v_k (and the
 * norms before), the second subtracts every v_k's share from the block
 * (and takes the norms after). The batch is 2 MB at n = 8191, past the
 * second-level cache: the six to eight passes over it that this replaces
 * took 0.34 s of block stages there, the two passes 0.32 s, and with the
 * three-product sums 0.27 s (complex Helmholtz pencil, one thread, 2-core
 * VM, 2026-11-24; docs/performance.md).
 */
static void EIG(block_orth)(const eig_team *tm, int n, const EIG_T *md, const EIG_T *mo,
                            EIG(sweep) * sw, int k0, int nk, EIG(v) * z, eig_vd *before,
                            eig_vd *after)
{
  enum { NV = EIG_TW_NV, RB = 32, SN = EIG_SN_N };
  _Static_assert(EIG_TW_NV == 2, "block_orth's kernels list two lane vectors");
  eig_ring *r = &sw->ring;
  const eig_vm *member = sw->member;
  const int *act = sw->gact;
  const EIG(v) zero = EIG(v_splat)(0.0);
  const size_t cstride = (size_t)sw->segc_cap * NV;
  EIG(v) mzb[RB * NV];
  int s0, s1;
  eig_team_segs(tm, &s0, &s1);
  for (int sg = s0; sg < s1; sg++) {
    EIG(v) *coef = sw->segc + sg * cstride;
    eig_vd *nrm = sw->segn + (size_t)sg * SN * NV;
    for (size_t k = 0; k < (size_t)nk * NV; k++)
      coef[k] = zero;
    for (int b = 0; b < NV; b++)
      nrm[EIG_SN_MB * NV + b] = nrm[EIG_SN_SB * NV + b] = eig_vd_splat(0.0);
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += RB) {
      const int i1 = ie - i0 < RB ? ie : i0 + RB;
      EIG(lane_mass_rows)(n, md, mo, z, i0, i1, mzb);
      EIG(norm_rows)(i0, i1, z, nrm + EIG_SN_MB * NV, nrm + EIG_SN_SB * NV);
      EIG(orth_rows)(0, r, n, k0, nk, act, i0, i1, mzb, coef, NULL);
    }
  }
  eig_team_sync(tm);
  /* The coefficients, summed over the segments in order (the thread's
   * share of them), and the norms before (every thread). */
  int c0, c1;
  eig_team_share(tm, nk * NV, &c0, &c1);
  for (int k = c0; k < c1; k++)
    sw->bcoef[k] = EIG(v_sel)(member[k], EIG(seg_sum)(sw->segc, cstride, k), zero);
  EIG(seg_norms)(sw, EIG_SN_MB, EIG_SN_SB, before);
  eig_team_sync(tm);
  for (int sg = s0; sg < s1; sg++) {
    eig_vd *nrm = sw->segn + (size_t)sg * SN * NV;
    for (int b = 0; b < NV; b++)
      nrm[EIG_SN_MA * NV + b] = nrm[EIG_SN_SA * NV + b] = eig_vd_splat(0.0);
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += RB) {
      const int i1 = ie - i0 < RB ? ie : i0 + RB;
      EIG(orth_rows)(1, r, n, k0, nk, act, i0, i1, NULL, sw->bcoef, z);
      EIG(norm_rows)(i0, i1, z, nrm + EIG_SN_MA * NV, nrm + EIG_SN_SA * NV);
    }
  }
  eig_team_sync(tm);
  EIG(seg_norms)(sw, EIG_SN_MA, EIG_SN_SA, after);
}

/* Thread 0: the active lane vectors of block_orth's groups of vectors
 * from sw->member (nk vectors). */
static void EIG(block_groups)(EIG(sweep) * sw, int nk)
{
  for (int t = 0; t < nk; t += EIG_ORTH_Q)
    sw->gact[t / EIG_ORTH_Q] =
        EIG(orth_active)(sw->member, t, nk - t < EIG_ORTH_Q ? nk - t : EIG_ORTH_Q);
}

/*
 * Block stage: the accepted lanes of tb (ok) against the finished vectors
 * kb..ke-1 of their windows (block_orth), once more for lanes that
 * cancelled heavily (the norm halved; "twice is enough"); lanes still
 * cancelling heavily after that lay mostly in the window's span and are
 * left to inverse iteration (ok cleared). Every thread of tm calls it,
 * with the same ok.
 */
static void EIG(block_stage)(const eig_team *tm, const EIG(ictx) * cx, EIG(sweep) * sw,
                             EIG(tbatch) * tb, int *ok, int kb, int ke)
{
  enum { NV = EIG_TW_NV, VL = EIG_VL, L = EIG_TW_LANES };
  const int n = cx->n, nk = ke - kb;
  const double tau2 = cx->tau * cx->tau;
  eig_vm *member = sw->member;
  int any = 0, heavy[L];
  for (int k = 0; k < nk; k++)
    for (int b = 0; b < NV; b++) {
      eig_vm m = (eig_vm)(eig_vd_splat(0.0) != eig_vd_splat(0.0)); /* all clear */
      for (int l = 0; l < VL; l++) {
        int lane = b * VL + l;
        int in = ok[lane] && EIG(abs2)(cx->lambda[kb + k] - cx->lambda[tb->j0 + lane]) <= tau2;
        m[l] = in ? -1 : 0;
        any |= in;
      }
      if (tm->tid == 0)
        member[(size_t)k * NV + b] = m;
    }
  if (!any)
    return;
  if (tm->tid == 0)
    EIG(block_groups)(sw, nk);
  eig_team_sync(tm);
  eig_vd before[NV], after[NV], unused[NV];
  EIG(block_orth)(tm, n, cx->md, cx->mo, sw, kb, nk, tb->z, before, after);
  int again = 0;
  for (int lane = 0; lane < L; lane++) {
    heavy[lane] = ok[lane] && !(after[lane / VL][lane % VL] >= 0.5 * before[lane / VL][lane % VL]);
    again |= heavy[lane];
  }
  if (!again)
    return;
  if (tm->tid == 0) {
    for (int k = 0; k < nk; k++)
      for (int b = 0; b < NV; b++)
        for (int l = 0; l < VL; l++)
          member[(size_t)k * NV + b][l] &= heavy[b * VL + l] ? -1 : 0;
    EIG(block_groups)(sw, nk);
  }
  eig_team_sync(tm);
  for (int b = 0; b < NV; b++)
    before[b] = after[b];
  EIG(block_orth)(tm, n, cx->md, cx->mo, sw, kb, nk, tb->z, unused, after);
  for (int lane = 0; lane < L; lane++)
    if (heavy[lane] && !(after[lane / VL][lane % VL] >= 0.5 * before[lane / VL][lane % VL]))
      ok[lane] = 0;
}

/* run_finish's Gram rows: g[q][b] += z_k^T (M z)_b over the ib rows of a
 * block from i0 (k the partner at offset poff[q], q < kn <= EIG_ORTH_Q),
 * for the lane vectors b >= b0 (inlined with b0 constant; complex: three
 * real products per complex one, as block_orth). */
static inline __attribute__((always_inline)) void
EIG(gram_rows)(int ib, int i0, const EIG(v) * z, const int *poff, int kn,
               const EIG(v) (*mzb)[EIG_TW_NV], int b0, EIG(v) (*g)[EIG_TW_NV])
{
#if EIG_IS_REAL
  for (int ii = 0; ii < ib; ii++)
    for (int q = 0; q < kn; q++) {
      EIG(v) sv = EIG(v_splat)(EIG(tw_at)(z, i0 + ii, poff[q]));
      for (int b = b0; b < EIG_TW_NV; b++)
        g[q][b] = EIG(v_mac)(g[q][b], sv, mzb[ii][b]);
    }
#else
  EIG(a3) a[EIG_ORTH_Q][EIG_TW_NV];
  for (int q = 0; q < kn; q++)
    for (int b = b0; b < EIG_TW_NV; b++)
      a[q][b] = EIG(a3_zero)();
  for (int ii = 0; ii < ib; ii++) {
    EIG(p3) m[EIG_TW_NV];
    for (int b = b0; b < EIG_TW_NV; b++)
      m[b] = EIG(p3_of)(mzb[ii][b]);
    for (int q = 0; q < kn; q++) {
      EIG(p3) sv = EIG(p3_splat)(EIG(tw_at)(z, i0 + ii, poff[q]));
      for (int b = b0; b < EIG_TW_NV; b++)
        a[q][b] = EIG(a3_mac)(a[q][b], sv, m[b]);
    }
  }
  for (int q = 0; q < kn; q++)
    for (int b = b0; b < EIG_TW_NV; b++)
      g[q][b] = EIG(v_add)(g[q][b], EIG(a3_val)(a[q][b]));
#endif
}

/* gram_rows with constant kn and b0 (the sums stay in registers). */
static void EIG(gram_group)(int ib, int i0, const EIG(v) * z, const int *poff, int kn,
                            const EIG(v) (*mzb)[EIG_TW_NV], int b0, EIG(v) (*g)[EIG_TW_NV])
{
#define EIG_GRAM_CASE(K)                                                                      \
  case K:                                                                                     \
    if (b0 == 0)                                                                              \
      EIG(gram_rows)(ib, i0, z, poff, K, mzb, 0, g);                                          \
    else                                                                                      \
      EIG(gram_rows)(ib, i0, z, poff, K, mzb, 1, g);                                          \
    break;
  switch (kn) {
#if EIG_ORTH_Q == 4
    EIG_GRAM_CASE(4)
#endif
    EIG_GRAM_CASE(3)
    EIG_GRAM_CASE(2)
  default:
    EIG_GRAM_CASE(1)
  }
#undef EIG_GRAM_CASE
}

/*
 * Finish the run of lanes a..e-1 of tb (accepted, already orthogonal to
 * every earlier vector of their windows): Gram-Schmidt among themselves
 * in coefficient space (V = Z T, T upper triangular, from the Gram
 * matrices G = Z^T M Z, bilinear, and H = Z^H Z for the norms), the
 * normalization w^T M w = 1 with the sign convention, into the ring and
 * the selected components of w. A lane that cancels heavily (its norm
 * halves) ends the run: it is left to inverse iteration. Returns the
 * first lane not finished, or -1 on an isotropic vector (*fail, from
 * thread 0). Every thread of tm calls it; the sums over the rows are
 * formed per segment (its own), the small problems in between by every
 * thread alike.
 */
static int EIG(run_finish)(const eig_team *tm, const EIG(ictx) * cx, EIG(sweep) * sw,
                           EIG(tbatch) * tb, int a, int e, EIG(ifail) * fail)
{
  enum { NV = EIG_TW_NV, VL = EIG_VL, L = EIG_TW_LANES, S = EIG_SWEEP_SEGS, SN = EIG_SN_N };
  const int n = cx->n, j0 = tb->j0;
  const double eps = DBL_EPSILON, tau2 = cx->tau * cx->tau;
  const EIG_T *md = cx->md, *mo = cx->mo, *lambda = cx->lambda;
  const EIG(v) *z = tb->z;
  const EIG(v) zero = EIG(v_splat)(0.0);
  /* Partners: lanes in the window of a later lane of the run. Only their
   * rows of the Gram matrix G = Z^T M Z and of T leave the diagonal.
   * (G and V by diagonals instead, with lane rotations, saved work where
   * the windows are sparse but cost more at the bottom of the spectrum,
   * the part that bounds the call: complex order 8191 on two threads took
   * 0.77-0.81 s against 0.71-0.76 s (once 0.90), five medians of 7 calls
   * each on the 2-core VM, 2026-11-26; not kept.) */
  int part[L] = {0}, np = 0;
  for (int k = a; k < e; k++)
    for (int l = k + 1; l < e; l++)
      if (EIG(abs2)(lambda[j0 + k] - lambda[j0 + l]) <= tau2) {
        part[np++] = k;
        break;
      }
  int poff[L]; /* partner k's entry in a row of z (tw_at), hoisted out of the row loops */
  for (int q = 0; q < np; q++)
    poff[q] = EIG(tw_off)(part[q]);
  /* G[k][b] (k a partner): rows of G as lane vectors, gd its diagonal,
   * summed over blocks of GB rows (M z of the block in mzb) and
   * EIG_ORTH_Q rows k at a time, so that the sums stay in registers; per
   * segment (gd as the segment's row L), then added in segment order. */
  enum { GB = 32 };
  EIG(v) G[L][NV], gd[NV], mzb[GB][NV];
  int s0, s1;
  eig_team_segs(tm, &s0, &s1);
  for (int sg = s0; sg < s1; sg++) {
    EIG(v)(*Gs)[NV] = (EIG(v)(*)[NV])(sw->segg + (size_t)sg * (L + 1) * NV);
    for (int k = 0; k <= L; k++)
      for (int b = 0; b < NV; b++)
        Gs[k][b] = zero;
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += GB) {
      const int ib = ie - i0 < GB ? ie - i0 : GB;
      EIG(lane_mass_rows)(n, md, mo, z, i0, i0 + ib, &mzb[0][0]);
      for (int ii = 0; ii < ib; ii++)
        for (int b = 0; b < NV; b++)
          Gs[L][b] = EIG(v_mac)(Gs[L][b], z[(size_t)(i0 + ii) * NV + b], mzb[ii][b]);
      for (int p0 = 0; p0 < np; p0 += EIG_ORTH_Q) {
        const int kn = np - p0 < EIG_ORTH_Q ? np - p0 : EIG_ORTH_Q;
        EIG(v) g[4][NV];
        for (int q = 0; q < 4; q++)
          for (int b = 0; b < NV; b++)
            g[q][b] = zero;
        /* Only G's entries above the diagonal are read (EIG_G): a group of
         * partners from lane vector 1 on skips lane vector 0. */
        EIG(gram_group)(ib, i0, z, poff + p0, kn, mzb, part[p0] < VL ? 0 : 1, g);
        for (int q = 0; q < kn; q++)
          for (int b = 0; b < NV; b++)
            Gs[part[p0 + q]][b] = EIG(v_add)(Gs[part[p0 + q]][b], g[q][b]);
      }
    }
  }
  eig_team_sync(tm);
  for (int k = 0; k <= L; k++)
    for (int b = 0; b < NV; b++) {
      const EIG(v) acc = EIG(seg_sum)(sw->segg, (size_t)(L + 1) * NV, (size_t)k * NV + b);
      if (k < L)
        G[k][b] = acc;
      else
        gd[b] = acc;
    }
  /* G_kl for k, l in the run: the diagonal, or the row of the smaller
   * index (G is symmetric), which is a partner wherever T and t below
   * reach it. */
#define EIG_G(k, l)                                                                           \
  ((k) == (l)  ? EIG(v_get)(gd[(l) / VL], (l) % VL)                                         \
   : (k) < (l) ? EIG(v_get)(G[k][(l) / VL], (l) % VL)                                        \
               : EIG(v_get)(G[l][(k) / VL], (k) % VL))
  /* Classical Gram-Schmidt in coefficient space: column l of T holds the
   * M-normalized v_l = sum_k T[k][l] z_k. Heavy cancellation, real: the
   * M-norm (G is an inner product) drops below half; complex (G is only
   * bilinear): the subtracted part sum_m |c_m| sum_k |T_km| may reach half
   * of ||z_l||_inf (about 1; the z_k are scaled to ||z_k||_inf = 1 before
   * the block stage). */
  EIG_T T[L][L];
  memset(T, 0, sizeof T);
  int stop = e;
  for (int l = a; l < e && stop == e; l++) {
    EIG_T t[L] = {0};
    t[l] = 1.0;
    double proj = 0.0;
    for (int m = a; m < l; m++) {
      if (!(EIG(abs2)(lambda[j0 + m] - lambda[j0 + l]) <= tau2))
        continue;
      EIG_T c = 0.0; /* v_m^T M z_l */
      double col = 0.0;
      for (int k = a; k <= m; k++) {
        c += T[k][m] * EIG_G(k, l);
        col += EIG_ABS1(T[k][m]);
      }
      for (int k = a; k <= m; k++)
        t[k] -= c * T[k][m];
      proj += EIG_ABS1(c) * col;
    }
    EIG_T s = 0.0; /* t^T G t */
    for (int k = a; k <= l; k++)
      for (int m = a; m <= l; m++)
        s += t[k] * t[m] * EIG_G(k, m);
    int heavy = EIG_IS_REAL ? !(creal(s) >= 0.25 * creal(EIG_G(l, l)))
                            : !(proj < 0.5) || !(EIG_ABS(s) > 0.0);
    if (heavy || !EIG_ISFINITE(s)) {
      stop = l;
      break;
    }
    EIG_T r = EIG_RECIP(EIG_SQRT(s));
    for (int k = a; k <= l; k++)
      T[k][l] = t[k] * r;
  }
  if (stop == a) {
    eig_team_sync(tm); /* (segg read by all before the next run's sums) */
    return a;
  }
  /* V = Z T, with each lane's largest entry (first index). */
  eig_vd vmax[NV], imax[NV];
  /* V = Z diag(T) + sum over partners k of z_k T[k][.] (off the
   * diagonal). */
  EIG(v) Trow[L][NV], Td[NV];
  for (int b = 0; b < NV; b++) {
    Td[b] = zero;
    for (int l = 0; l < VL; l++)
      if (b * VL + l >= a && b * VL + l < stop)
        EIG(v_put)(&Td[b], l, T[b * VL + l][b * VL + l]);
  }
  _Static_assert(EIG_TW_NV == 2, "run_finish's partner loops list two lane vectors");
  int npv = 0, npv0 = 0;
  while (npv < np && part[npv] < stop)
    npv++;
  while (npv0 < npv && part[npv0] < VL)
    npv0++;
  for (int q = 0; q < npv; q++) {
    const int k = part[q];
    for (int b = 0; b < NV; b++) {
      Trow[q][b] = zero;
      for (int l = 0; l < VL; l++) {
        const int c = b * VL + l;
        if (c > k && c < stop && k >= 0)
          EIG(v_put)(&Trow[q][b], l, T[k][c]);
      }
    }
  }
  EIG_T *vl[L];
  for (int l = a; l < stop; l++)
    vl[l] = EIG(ring_at)(&sw->ring, n, j0 + l);
  /* Rows of V in blocks of RB (real: eight rows; complex: four, whose
   * real and imaginary parts make eight), which leave the lane layout by
   * 8 x 8 transposes in registers: eight doubles of each lane's ring
   * vector per store. The ring keeps the vectors before the sign
   * convention (Gram-Schmidt against them does not see the sign); it is
   * applied to the returned components. */
#if !EIG_IS_REAL
  EIG(p3) Trow3[L][NV], Td3[NV]; /* as Trow and Td, for the three-product sums */
  for (int b = 0; b < NV; b++) {
    Td3[b] = EIG(p3_of)(Td[b]);
    for (int q = 0; q < npv; q++)
      Trow3[q][b] = EIG(p3_of)(Trow[q][b]);
  }
#endif
  enum { RB = EIG_IS_REAL ? VL : VL / 2 };
  for (int sg = s0; sg < s1; sg++) {
    for (int b = 0; b < NV; b++) {
      vmax[b] = eig_vd_splat(-1.0);
      imax[b] = eig_vd_splat(0.0);
    }
    for (int i0 = eig_seg_row(n, sg), ie = eig_seg_row(n, sg + 1); i0 < ie; i0 += RB) {
      const int rb = ie - i0 < RB ? ie - i0 : RB;
      EIG(v) blk[RB][NV];
      for (int k = 0; k < rb; k++) {
        const int i = i0 + k;
        EIG(v) acc[NV];
        /* T is upper triangular: a partner from lane vector 1 on has no
         * entry in lane vector 0. */
  #if EIG_IS_REAL
        for (int b = 0; b < NV; b++)
          acc[b] = EIG(v_mul)(z[(size_t)i * NV + b], Td[b]);
        for (int q = 0; q < npv0; q++) {
          EIG(v) s = EIG(v_splat)(EIG(tw_at)(z, i, poff[q]));
          for (int b = 0; b < NV; b++)
            acc[b] = EIG(v_mac)(acc[b], s, Trow[q][b]);
        }
        for (int q = npv0; q < npv; q++)
          acc[1] = EIG(v_mac)(acc[1], EIG(v_splat)(EIG(tw_at)(z, i, poff[q])), Trow[q][1]);
  #else
        EIG(a3) s3[NV];
        for (int b = 0; b < NV; b++)
          s3[b] = EIG(a3_mac)(EIG(a3_zero)(), EIG(p3_of)(z[(size_t)i * NV + b]), Td3[b]);
        for (int q = 0; q < npv0; q++) {
          EIG(p3) sv = EIG(p3_splat)(EIG(tw_at)(z, i, poff[q]));
          for (int b = 0; b < NV; b++)
            s3[b] = EIG(a3_mac)(s3[b], sv, Trow3[q][b]);
        }
        for (int q = npv0; q < npv; q++)
          s3[1] = EIG(a3_mac)(s3[1], EIG(p3_splat)(EIG(tw_at)(z, i, poff[q])), Trow3[q][1]);
        for (int b = 0; b < NV; b++)
          acc[b] = EIG(a3_val)(s3[b]);
  #endif
        eig_vd di = eig_vd_splat(i);
        for (int b = 0; b < NV; b++) {
          blk[k][b] = acc[b];
          eig_vd m = EIG(v_abs1)(acc[b]);
          eig_vm gt = (eig_vm)(m > vmax[b]);
          vmax[b] = eig_vd_sel(gt, m, vmax[b]);
          imax[b] = eig_vd_sel(gt, di, imax[b]);
        }
      }
      for (int b = 0; b < NV; b++) {
        if (b * VL + VL <= a || b * VL >= stop)
          continue;
        if (rb < RB) { /* the last rows */
          for (int l = b * VL; l < b * VL + VL; l++)
            for (int k = 0; l >= a && l < stop && k < rb; k++)
              vl[l][i0 + k] = EIG(v_get)(blk[k][b], l % VL);
          continue;
        }
        eig_vd r[VL];
        for (int k = 0; k < RB; k++) {
  #if EIG_IS_REAL
          r[k] = blk[k][b];
  #else
          r[2 * k] = blk[k][b].re;
          r[2 * k + 1] = blk[k][b].im;
  #endif
        }
        eig_transpose8(r);
        for (int q = 0; q < VL; q++) {
          const int l = b * VL + q;
          if (l >= a && l < stop)
            memcpy(vl[l] + i0, &r[q], sizeof r[q]);
        }
      }
    }
    for (int b = 0; b < NV; b++) {
      sw->segn[((size_t)sg * SN + EIG_SN_VMAX) * NV + b] = vmax[b];
      sw->segn[((size_t)sg * SN + EIG_SN_IMAX) * NV + b] = imax[b];
    }
  }
  eig_team_sync(tm);
  /* The largest entries over the segments in order (first index). */
  for (int b = 0; b < NV; b++) {
    vmax[b] = eig_vd_splat(-1.0);
    imax[b] = eig_vd_splat(0.0);
    for (int sg = 0; sg < S; sg++) {
      eig_vd m = sw->segn[((size_t)sg * SN + EIG_SN_VMAX) * NV + b];
      eig_vm gt = (eig_vm)(m > vmax[b]);
      vmax[b] = eig_vd_sel(gt, m, vmax[b]);
      imax[b] = eig_vd_sel(gt, sw->segn[((size_t)sg * SN + EIG_SN_IMAX) * NV + b], imax[b]);
    }
  }
  /* Sign convention: the first entry of largest magnitude gets a positive
   * real part. Complex: reject a (numerically) isotropic vector,
   * |w^T M w| <= eps ||M|| ||w||_inf^2 before the scaling. */
  for (int l = a; l < stop; l++) {
    int b = l / VL, q = l % VL;
    EIG_T top = vl[l][(int)imax[b][q]];
    double vm = vmax[b][q];
    if (!EIG_IS_REAL && !(1.0 > eps * cx->mnorm * vm * vm)) {
      if (tm->tid == 0) {
        fail->kind = 3;
        fail->j = j0 + l;
        fail->s = 1.0 / (vm * vm);
      }
      return -1;
    }
    const double sgn = creal(top) < 0.0 ? -1.0 : 1.0;
    for (int t = 0; tm->tid == 0 && cx->w && t < cx->nsel; t++)
      cx->w[(size_t)(j0 + l) * cx->nsel + t] = vl[l][cx->sel ? cx->sel[t] : t] * sgn;
  }
  return stop;
#undef EIG_G
}
