/*
 * The producers of batches for the sweep (pipeline_impl.h): sixteen
 * eigenvectors at a time, each independent of the others and of the sweep,
 * so that every thread may produce while the sweep runs. Real pencils:
 * twisted factorizations (tw_produce, twisted_impl.h). Complex pencils
 * (EIG_PIV_LANES): pivoted inverse iteration in lanes (piv_produce, with
 * the lane LU of pivlu_impl.h), and one step of Rayleigh quotient
 * iteration for lanes whose LR eigenvalue is off (piv_refine). Lanes that
 * are not accepted, and those in tight clusters, are left to the sweep's
 * inverse iteration (invit_impl.h).
 *
 * Type-generic: included by eigen.c once per scalar type.
 */

/* Distance from lambda_j to the nearest other eigenvalue (sorted by real
 * part; INFINITY when alone). */
static double EIG(gap)(const EIG_T *lambda, int n, int j)
{
  double best = INFINITY;
  for (int k = j - 1; k >= 0 && creal(lambda[j]) - creal(lambda[k]) < best; k--)
    best = fmin(best, EIG_ABS(lambda[j] - lambda[k]));
  for (int k = j + 1; k < n && creal(lambda[k]) - creal(lambda[j]) < best; k++)
    best = fmin(best, EIG_ABS(lambda[j] - lambda[k]));
  return best;
}

/* An earlier eigenvalue (from g0 on) within the tight-cluster distance of
 * lambda_j. */
static int EIG(in_tight)(const EIG_T *lambda, int g0, int j, double tight)
{
  for (int k = j - 1; k >= g0 && creal(lambda[j]) - creal(lambda[k]) <= tight; k--)
    if (EIG(abs2)(lambda[j] - lambda[k]) <= tight * tight)
      return 1;
  return 0;
}

/* Twisted vector of shift sigma accepted (1): Rayleigh correction
 * |rho - sigma| = |gamma| / |z^T M z| below EIG_TW_TOL eps ||T|| and the
 * residual |gamma| / ||z||_inf below EIG_TW_RESID n eps ||A - sigma M||.
 * 0: finite but not accepted, -1: not finite. */
static int EIG(tw_accept)(const EIG(ictx) * cx, const EIG(twres) * r, EIG_T sigma)
{
  const double eps = DBL_EPSILON;
  double ag = EIG_ABS(r->gamma), az = EIG_ABS(r->zmz);
  if (!(r->zinf > 0.0) || !isfinite(r->zinf) || !isfinite(ag) || !(az > 0.0) ||
      !isfinite(az))
    return -1; /* not finite */
  double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, sigma);
  return ag <= EIG_TW_TOL * eps * cx->tnorm * az &&
         ag <= EIG_TW_RESID * cx->n * eps * nrm * r->zinf;
}

/*
 * Produce batch tb (j0, cnt set) from the input eigenvalues lambda0; f:
 * the factorizations' scratch, bm: EIG_TW_NV n lane vectors of scratch.
 * A lane that is not accepted is recomputed once from its Rayleigh
 * quotient rho (Rayleigh quotient iteration) and then accepted only when
 * rho stayed within a quarter of the gap to the neighbouring eigenvalues
 * (a quotient drawn towards a neighbour has found the neighbour's vector);
 * complex: the eigenvalue is then refined to rho. The accepted vectors
 * then take two steps of inverse iteration with the same factorizations
 * (twisted_solve): the twisted vector alone leaves components along
 * eigenvectors just outside the window of up to (eigenvalue error) / tau,
 * amplified where those are larger than it at the twist row (|W^T M W - I|
 * measured 22.8 n eps on glued clusters at n = 1000; 8.4 after one step,
 * 1.9 after two, as inverse iteration's 0.8); the last step must pass the
 * later-solve bound of inverse iteration. Each vector is scaled to ||z||_inf = 1. Lanes in
 * tight clusters are left to inverse iteration (not computed when all are).
 */
static void EIG(tw_produce)(const EIG(ictx) * cx, EIG(tbatch) * tb, EIG(twf) * f, EIG(v) * bm)
{
  enum { L = EIG_TW_LANES, NV = EIG_TW_NV, VL = EIG_VL };
  const int n = cx->n, j0 = tb->j0, cnt = tb->cnt;
  const double eps = DBL_EPSILON;
  const EIG_T *lam0 = cx->lambda0;
  EIG_T sig[L];
  double pert[L];
  EIG(twres) res[L];
  int any = 0;
  for (int l = 0; l < L; l++) {
    sig[l] = tb->lam[l] = lam0[j0 + (l < cnt ? l : cnt - 1)];
    pert[l] = eps * EIG(shift_norm)(cx->anorm, cx->mnorm, sig[l]);
    tb->ok[l] = 0;
    if (l < cnt && !EIG(in_tight)(lam0, 0, j0 + l, cx->tight))
      any = 1;
  }
  if (!any)
    return;
  EIG(twisted_batch)(n, cx->ad, cx->ao, cx->md, cx->mo, sig, pert, f, tb->z, res);
  int again = 0, redo[L];
  for (int l = 0; l < L; l++) {
    /* Real: the eigenvalues are final, and the two steps of inverse
     * iteration below converge from any twisted vector whose Rayleigh
     * correction is well inside the gap; the later-solve bound then
     * decides. Complex: the correction must be small, or it refines the
     * eigenvalue. */
    if (EIG_REFINE)
      tb->ok[l] = l < cnt && EIG(tw_accept)(cx, &res[l], sig[l]) > 0;
    else
      tb->ok[l] = l < cnt && EIG(tw_accept)(cx, &res[l], sig[l]) >= 0 &&
                  EIG_ABS(res[l].gamma) <=
                      0.25 * EIG(gap)(lam0, n, j0 + l) * EIG_ABS(res[l].zmz);
    redo[l] = 0;
    if (l < cnt && !tb->ok[l] && EIG_ISFINITE(res[l].gamma) && EIG_ISFINITE(res[l].zmz) &&
        EIG_ABS(res[l].zmz) > 0.0) {
      EIG_T rho = sig[l] + res[l].gamma * EIG_RECIP(res[l].zmz);
      if (EIG_ISFINITE(rho)) {
        sig[l] = rho;
        pert[l] = eps * EIG(shift_norm)(cx->anorm, cx->mnorm, rho);
        redo[l] = again = 1;
      }
    }
  }
  if (again) {
    /* Lanes already accepted repeat their arithmetic bit for bit. */
    EIG(twisted_batch)(n, cx->ad, cx->ao, cx->md, cx->mo, sig, pert, f, tb->z, res);
    for (int l = 0; l < cnt; l++) {
      if (!redo[l])
        continue;
      int j = j0 + l;
      tb->ok[l] = EIG(tw_accept)(cx, &res[l], sig[l]) > 0 &&
                  EIG_ABS(sig[l] - lam0[j]) <= 0.25 * EIG(gap)(lam0, n, j);
      if (EIG_REFINE && tb->ok[l])
        tb->lam[l] = sig[l];
    }
  }
  /* Two steps of inverse iteration: b = M z, z = K^{-1} b. */
  eig_vd bn[NV], zn[NV];
  EIG(twisted_solve)(n, f, cx->md, cx->mo, tb->z, bm, NULL, NULL);
  EIG(twisted_solve)(n, f, cx->md, cx->mo, tb->z, bm, bn, zn);
  EIG(v) sc[NV];
  for (int b = 0; b < NV; b++) {
    sc[b] = EIG(v_splat)(1.0);
    for (int q = 0; q < VL; q++) {
      int l = b * VL + q;
      double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, sig[l]);
      double tol1 = EIG(late_tol)(n, nrm);
      tb->ok[l] =
          tb->ok[l] && zn[b][q] > 0.0 && isfinite(zn[b][q]) && bn[b][q] <= tol1 * zn[b][q];
      if (tb->ok[l]) /* ||z||_inf = 1 (unaccepted lanes: any finite scale) */
        EIG(v_put)(&sc[b], q, 1.0 / zn[b][q]);
    }
  }
  for (size_t i = 0; i < (size_t)n; i++)
    for (int b = 0; b < NV; b++)
      tb->z[i * NV + b] = EIG(v_mul)(tb->z[i * NV + b], sc[b]);
}

/*
 * Lanes of batch tb that piv_produce did not accept (complex: mostly LR
 * eigenvalues off by more than the residual test allows, EIG_REFINE): one
 * step of Rayleigh quotient iteration from the lane's vector, as
 * invit_one's refinement, but here on a producer's thread instead of in
 * the sequential sweep, and from the batch's iterate instead of a random
 * start. The quotient is taken only within a quarter of the gap to the
 * neighbouring eigenvalues: an iterate that leans towards a close
 * neighbour would converge to it, and invit_one, which orthogonalizes
 * against the window first, takes such lanes. Accepted lanes get the new
 * vector (||z||_inf = 1) and the refined eigenvalue in tb->lam.
 *
 * Every lane at once: one pass forms each lane's bilinear Rayleigh
 * quotient rho = z^T A z / z^T M z and ||M z||_inf, then the lanes to
 * refine take one lane solve (A - rho M) x = M z together (the others
 * solve with their old shift and their results are dropped). At the
 * bottom of a Helmholtz spectrum about a third of the LR values need it
 * (order 8191: 327 lanes of the lowest 1024); refined one lane at a time
 * (scalar factor and solve, about 0.34 ms each), that eighth's batches
 * took 2.8 times as long to produce as the others. f, x: piv_produce's
 * factors and x (free by now).
 */
static void EIG(piv_refine)(const EIG(ictx) * cx, EIG(tbatch) * tb, const EIG(plu) * f,
                            EIG(v) * x)
{
  enum { L = EIG_TW_LANES, NV = EIG_TW_NV, VL = EIG_VL };
  const int n = cx->n, j0 = tb->j0;
  /* Candidates: lanes not accepted and not in a tight cluster (most
   * batches have none, and skip the pass). */
  int cand[L], need = 0;
  for (int l = 0; l < L; l++) {
    cand[l] = l < tb->cnt && !tb->ok[l] && !EIG(in_tight)(cx->lambda0, 0, j0 + l, cx->tight);
    need |= cand[l];
  }
  if (!need)
    return;
  const double eps = DBL_EPSILON;
  const EIG_T *ad = cx->ad, *ao = cx->ao, *md = cx->md, *mo = cx->mo;
  EIG(v) *z = tb->z;
  const EIG(v) zero = EIG(v_splat)(0.0);
  EIG(v) num[NV], den[NV];
  eig_vd bm[NV], bs[NV], zm[NV], zs[NV];
  for (int b = 0; b < NV; b++) {
    num[b] = den[b] = zero;
    bm[b] = bs[b] = zm[b] = zs[b] = eig_vd_splat(0.0);
  }
  for (int i = 0; i < n; i++)
    for (int b = 0; b < NV; b++) {
      const EIG(v) zi = z[(size_t)i * NV + b];
      const EIG(v) zl = i > 0 ? z[(size_t)(i - 1) * NV + b] : zero;
      const EIG(v) zr = i < n - 1 ? z[(size_t)(i + 1) * NV + b] : zero;
      const EIG(v) az = EIG(mass_row)(n, ad, ao, i, zl, zi, zr);
      const EIG(v) mz = EIG(mass_row)(n, md, mo, i, zl, zi, zr);
      num[b] = EIG(v_mac)(num[b], zi, az);
      den[b] = EIG(v_mac)(den[b], zi, mz);
      eig_vd a = EIG(v_abs1)(mz);
      bm[b] = eig_vd_sel((eig_vm)(a > bm[b]), a, bm[b]);
      bs[b] += a;
      a = EIG(v_abs1)(zi);
      zm[b] = eig_vd_sel((eig_vm)(a > zm[b]), a, zm[b]);
      zs[b] += a;
    }
  /* The lanes to refine: the tests above. */
  EIG(v) s[NV];
  eig_vd pt[NV];
  double tol1[L], bnorm[L];
  int take[L], any = 0;
  for (int l = 0; l < L; l++) {
    const int b = l / VL, q = l % VL, j = j0 + l;
    EIG(v_put)(&s[b], q, tb->lam[l]);
    pt[b][q] = eps * EIG(shift_norm)(cx->anorm, cx->mnorm, tb->lam[l]);
    take[l] = 0;
    if (!cand[l] || !(eig_vd_norm(zm[b], zs[b])[q] > 0.0))
      continue;
    const EIG_T d = EIG(v_get)(den[b], q);
    if (!(EIG_ABS(d) > eps * cx->mnorm))
      continue;
    const EIG_T rho = EIG(v_get)(num[b], q) * EIG_RECIP(d);
    if (!(EIG_ABS(rho - tb->lam[l]) <= 0.25 * EIG(gap)(cx->lambda0, n, j)))
      continue;
    const double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, rho);
    EIG(v_put)(&s[b], q, rho);
    pt[b][q] = eps * nrm;
    tol1[l] = EIG(late_tol)(n, nrm);
    bnorm[l] = eig_vd_norm(bm[b], bs[b])[q];
    take[l] = any = 1;
  }
  if (!any)
    return;
  eig_vd xn[NV];
  EIG(lane_factor_fwd)(n, ad, ao, md, mo, s, pt, f, NULL, z, x);
  EIG(lane_back)(n, ao, mo, s, f, x, xn);
  eig_vm acc[NV];
  int upd = 0;
  for (int b = 0; b < NV; b++) {
    acc[b] = (eig_vm)(xn[b] != xn[b]); /* all clear */
    for (int q = 0; q < VL; q++) {
      const int l = b * VL + q;
      const double x1 = xn[b][q];
      if (take[l] && x1 > 0.0 && isfinite(x1) && bnorm[l] <= tol1[l] * x1) {
        acc[b][q] = -1;
        tb->lam[l] = EIG(v_get)(s[b], q);
        tb->ok[l] = 1;
        upd = 1;
      }
    }
  }
  if (!upd)
    return;
  eig_vd rx[NV];
  for (int b = 0; b < NV; b++)
    rx[b] = 1.0 / xn[b];
  for (size_t i = 0; i < (size_t)n; i++)
    for (int b = 0; b < NV; b++)
      z[i * NV + b] = EIG(v_sel)(acc[b], EIG(v_rscale)(x[i * NV + b], rx[b]), z[i * NV + b]);
}

/*
 * Produce batch tb (j0, cnt set) by pivoted inverse iteration in lanes:
 * from the random start of invit_one (seeded by the index), two solves
 * with the shift lambda0_j; a lane is accepted when the second solve's
 * ||b|| / ||x|| meets the later-solve bound tol1 of invit_one (the first
 * solve damped the start's other components by (eigenvalue error) / gap,
 * as there). Lanes not accepted (complex: an eigenvalue the Rayleigh
 * quotient must refine) get one step of Rayleigh quotient iteration here
 * (piv_refine); lanes in tight clusters, and those still not accepted,
 * are left to invit_one in the sweep. Accepted vectors are scaled to
 * ||z||_inf = 1.
 * scr: 5 EIG_TW_NV n lane vectors (factors, x).
 */
static void EIG(piv_produce)(const EIG(ictx) * cx, EIG(tbatch) * tb, EIG(v) * scr)
{
  enum { L = EIG_TW_LANES, NV = EIG_TW_NV, VL = EIG_VL };
  const int n = cx->n, j0 = tb->j0, cnt = tb->cnt;
  const double eps = DBL_EPSILON;
  const size_t nl = (size_t)NV * n;
  const EIG_T *lam0 = cx->lambda0;
  EIG(plu) f = {scr, scr + nl, scr + 2 * nl, (unsigned char *)(scr + 3 * nl)};
  EIG(v) *x = scr + 4 * nl, *z = tb->z;
  EIG(v) s[NV];
  eig_vd pt[NV];
  double tol1[L];
  int any = 0;
  for (int b = 0; b < NV; b++) {
    s[b] = EIG(v_splat)(0.0);
    pt[b] = eig_vd_splat(0.0);
  }
  for (int l = 0; l < L; l++) {
    EIG_T sig = tb->lam[l] = lam0[j0 + (l < cnt ? l : cnt - 1)];
    double nrm = EIG(shift_norm)(cx->anorm, cx->mnorm, sig);
    EIG(v_put)(&s[l / VL], l % VL, sig);
    pt[l / VL][l % VL] = eps * nrm;
    tol1[l] = EIG(late_tol)(n, nrm);
    tb->ok[l] = 0;
    if (l < cnt && !EIG(in_tight)(lam0, 0, j0 + l, cx->tight))
      any = 1;
  }
  if (!any)
    return;
  /* Starts (in z until the end): lane l gets invit_one's random start of
   * index j0 + l. Row i of a full batch is the window seq[i .. i + L-1] of
   * the sequence seq[k] = eig_splitmix_unit(k + j0 + 2) (random_start);
   * the last batch (lanes past cnt repeat lane cnt-1) is built lane by
   * lane. */
  double *seq = NULL;
  if (cnt == L) {
    seq = (double *)z;
    for (int k = 0; k < n + L - 1; k++)
      seq[k] = eig_splitmix_unit((uint64_t)k + (uint64_t)j0 + 2u);
  } else {
    EIG_T *tmp = (EIG_T *)x;
    for (int l = 0; l < L; l++) {
      EIG(random_start)(n, j0 + (l < cnt ? l : cnt - 1), tmp);
      EIG(v) *zb = z + l / VL;
      for (int i = 0; i < n; i++)
        EIG(v_put)(&zb[(size_t)i * NV], l % VL, tmp[i]);
    }
  }
  /* Two solves: b = M z, x = (A - sigma M)^{-1} b, z = x / ||x||_inf. */
  eig_vd bn[NV], zn[NV], sc[NV];
  /* sc is set at the end of pass 0 before pass 1 reads it; GCC 13 cannot
   * see that (-Werror=maybe-uninitialized on the H100 machine), so clear it. */
  for (int b = 0; b < NV; b++)
    sc[b] = eig_vd_splat(0.0);
  for (int it = 0; it < 2; it++) {
    if (it == 0)
      EIG(lane_factor_fwd)(n, cx->ad, cx->ao, cx->md, cx->mo, s, pt, &f, seq, z, x);
    else
      EIG(lane_mass_fwd)(n, cx->md, cx->mo, &f, x, sc, bn);
    EIG(lane_back)(n, cx->ao, cx->mo, s, &f, x, zn);
    for (int b = 0; b < NV; b++) { /* 1 / ||x||_inf, 0 where not finite */
      eig_vd r = 1.0 / zn[b];
      sc[b] = eig_vd_sel((eig_vm)(eig_vd_abs(r) <= eig_vd_splat(DBL_MAX)), r, eig_vd_splat(0.0));
    }
  }
  for (size_t i = 0; i < (size_t)n; i++)
    for (int b = 0; b < NV; b++)
      z[i * NV + b] = EIG(v_rscale)(x[i * NV + b], sc[b]);
  for (int l = 0; l < cnt; l++) {
    double b1 = bn[l / VL][l % VL], z1 = zn[l / VL][l % VL];
    tb->ok[l] = !EIG(in_tight)(lam0, 0, j0 + l, cx->tight) && z1 > 0.0 && isfinite(z1) &&
                b1 <= tol1[l] * z1;
  }
  if (EIG_REFINE)
    EIG(piv_refine)(cx, tb, &f, x);
}

/* Produce the batches first..first+nb-1 (below nbatch) of a chunk of the
 * part g0..g1-1 into tb[0..nb-1], claimed one at a time through *claim by
 * every thread that calls it. scr: the thread's scratch (NULL-safe
 * through mine_ok). */
static void EIG(produce_chunk)(const EIG(ictx) * cx, int g0, int g1, EIG(tbatch) * tb,
                               int *claim, int first, int nb, int nbatch, int mine_ok,
                               EIG(v) * scr, EIG(twf) * f)
{
  for (;;) {
    int q;
#ifdef _OPENMP
#pragma omp atomic capture
#endif
    q = (*claim)++;
    const int bi = first + q;
    if (q >= nb || bi >= nbatch)
      return;
    EIG(tbatch) *t = &tb[q];
    t->j0 = g0 + bi * EIG_TW_LANES;
    t->cnt = g1 - t->j0 < EIG_TW_LANES ? g1 - t->j0 : EIG_TW_LANES;
    if (mine_ok && EIG_PIV_LANES)
      EIG(piv_produce)(cx, t, scr);
    else if (mine_ok)
      EIG(tw_produce)(cx, t, f, scr + 4 * (size_t)EIG_TW_NV * cx->n);
    else
      for (int l = 0; l < EIG_TW_LANES; l++)
        t->ok[l] = 0; /* inverse iteration instead */
  }
}
