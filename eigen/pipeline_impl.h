/*
 * Schedule and driver of the eigenvector stage (inverse_iteration): the
 * spectrum is cut into batches of sixteen eigenvalues, produced in
 * parallel (produce_impl.h) and swept in order (sweep_batch: blocked
 * Gram-Schmidt against the window, blockgs_impl.h; inverse iteration
 * where a lane was not accepted, invit_impl.h; normalization), by thread
 * 0 alone or by a team (pipeline_part); where the spectrum has a gap wider
 * than the window, in two independent parts (split_point,
 * vectors_pipeline).
 *
 * Real pencils: most vectors come from twisted factorizations
 * (twisted_impl.h, sixteen at a time, then two steps of inverse iteration
 * with the same factors), re-orthogonalized against the same window;
 * the inverse iteration of invit_impl.h computes only the vectors of tight
 * clusters and those the twisted path does not accept. Complex pencils
 * (EIG_PIV_LANES) take the same pipeline, but their batches come from
 * pivoted inverse iteration run sixteen eigenvalues at a time
 * (piv_produce): twisted factorizations are not pivoted, and on
 * near-degenerate complex symmetric pairs, as the Helmholtz pencils at low
 * omega have, their vectors lost orthogonality growing with n (8 n eps at
 * n = 300 against 0.25). (Inverse iteration one vector at a time, in
 * parallel over groups of the spectrum split by gaps wider than tau, was
 * 1.4 times slower on one thread at n = 8191; it was removed once nothing
 * called it.)
 *
 * Type-generic: included by eigen.c once per scalar type, last of the
 * eigenvector stage's files.
 */

/*
 * The sweep over the vectors of batch tb, in order. The accepted lanes
 * are first orthogonalized together against the earlier vectors of their
 * windows (block_stage), then finished in runs (run_finish); vectors in
 * tight clusters, and those the twisted path did not accept, come from
 * inverse iteration, after which the remaining lanes are orthogonalized
 * against them. Every thread of tm calls it: the block stages and runs
 * split the rows, the rest runs on thread 0 (its results reach the others
 * through sw after a barrier). Returns 0 or a failure kind, the same on
 * every thread (details in *fail, from thread 0).
 */
static int EIG(sweep_batch)(const eig_team *tm, const EIG(ictx) * cx, EIG(sweep) * sw,
                            EIG(tbatch) * tb, EIG(ifail) * fail)
{
  enum { L = EIG_TW_LANES, S = EIG_SWEEP_SEGS };
  /* The barrier first: tb's producer is done with it, and every thread
   * with the previous batch. (Nothing of tb is read before it; a team of
   * one has the pipeline's barrier per chunk instead.) */
  eig_team_sync(tm);
  const int n = cx->n, j0 = tb->j0, cnt = tb->cnt;
  EIG_T *lambda = cx->lambda;
  const double tau = cx->tau;
  eig_ring *ring = &sw->ring;
  EIG_T *y = sw->work + 6 * (size_t)n;
  int ok[L];
  if (tm->tid == 0) {
    for (int l = 0; l < cnt; l++) {
      sw->okb[l] = tb->ok[l] && !EIG(in_tight)(lambda, sw->g0, j0 + l, cx->tight);
      if (sw->okb[l] && EIG_REFINE && lambda[j0 + l] != tb->lam[l]) {
        lambda[j0 + l] = tb->lam[l];
        sw->refined = 1;
      }
    }
    for (int l = cnt; l < L; l++)
      sw->okb[l] = 0;
    /* The ring keeps every earlier vector within tau (real parts) of the
     * batch: from kf on; the block stages' sums up to j0 + cnt - kf
     * vectors per segment. */
    int kf = j0;
    while (kf > sw->g0 && creal(lambda[j0]) - creal(lambda[kf - 1]) <= tau)
      kf--;
    sw->kf = kf;
    sw->bad = !eig_ring_reserve(ring, (size_t)n * sizeof(EIG_T), kf, j0 + cnt - 1);
    const int need = j0 + cnt - kf;
    if (!sw->bad && need > sw->segc_cap) {
      int cap = sw->segc_cap;
      while (cap < need)
        cap *= 2;
      EIG(v) *c = aligned_alloc(64, (size_t)S * cap * EIG_TW_NV * sizeof(EIG(v)));
      sw->bad = c == NULL;
      if (c) {
        free(sw->segc);
        sw->segc = c;
        sw->segc_cap = cap;
      }
    }
    if (sw->bad) {
      fail->kind = 4;
      fail->j = need;
    }
  }
  eig_team_sync(tm);
  if (sw->bad)
    return 4;
  const int kf = sw->kf;
  memcpy(ok, sw->okb, sizeof ok);
  EIG(block_stage)(tm, cx, sw, tb, ok, kf, j0);
  int applied = j0; /* lanes still open are orthogonal to the vectors before */
  for (int pos = 0; pos < cnt;) {
    if (ok[pos] && applied < j0 + pos) {
      EIG(block_stage)(tm, cx, sw, tb, ok, applied, j0 + pos);
      applied = j0 + pos;
    }
    if (ok[pos]) {
      int e = pos;
      while (e < cnt && ok[e])
        e++;
      int stop = EIG(run_finish)(tm, cx, sw, tb, pos, e, fail);
      if (stop < 0)
        return 3; /* isotropic */
      if (stop < e)
        ok[stop] = 0;
      if (stop > pos)
        pos = stop;
      continue;
    }
    /* Inverse iteration for lane pos, on thread 0. */
    const int j = j0 + pos;
    if (tm->tid == 0) {
      int nwin, intight;
      double spread;
      EIG(window)(cx, sw->g0, j, sw->win, &nwin, &intight, &spread);
      EIG_T sigma =
          EIG(shift_of)(lambda, sw->g0, j, tau, cx->tight, cx->pertol, sw->sigma_prev);
      sw->sigma_prev = sigma;
      EIG_T *v = EIG(ring_at)(ring, n, j);
      int kind = EIG(invit_one)(cx, sw, j, sw->win, nwin, intight, spread, sigma, v, fail);
      if (!kind)
        kind = EIG(finish)(cx, j, v, y, fail);
      sw->lkind[pos] = kind;
    }
    eig_team_sync(tm);
    if (sw->lkind[pos])
      return sw->lkind[pos];
    pos++;
  }
  return 0;
}

/*
 * Pipeline over the part g0..g1-1 of the spectrum (vectors_pipeline), on
 * nt threads: batches of EIG_TW_LANES twisted vectors are produced in
 * parallel (OpenMP: every thread, in chunks of nb batches) and swept in
 * order (Gram-Schmidt against the window, inverse iteration where needed,
 * normalization). Every batch depends only on the input eigenvalues and
 * the sweep's sums go over fixed row segments in order, so the result
 * does not depend on the number of threads nor on who sweeps:
 * - team (from EIG_TEAM_MIN threads, eig_team_on): every thread
 *   produces chunk s, then every thread sweeps it, each on its rows. On
 *   the 16-core H100 host, n = 8191: complex 0.81 s against 1.39 s with
 *   thread 0 alone, real 0.56 s against 0.97 s (16 threads; with 4, 0.99
 *   against 1.21 s; 2026-11-24, docs/performance.md).
 * - alone (fewer threads): thread 0 sweeps chunk s-1 while the others
 *   produce chunk s, one barrier per chunk. With two threads the team
 *   gained nothing measurable (the work is the same, production and sweep
 *   already overlap), and its barriers (about eight per batch) wait a
 *   scheduler time slice each where other processes hold the cores: on
 *   the 2-core VM under load, 200 calls at n = 100 took 23 s against 0.3 s.
 * Returns 0 when out of memory; failures in *fail.
 */
static int EIG(pipeline_part)(const EIG(ictx) * cx, int g0, int g1, int nt, EIG(ifail) * fail,
                              int *refined)
{
  const int n = cx->n;
  const int nbatch = (g1 - g0 + EIG_TW_LANES - 1) / EIG_TW_LANES;
  const eig_chunks ch = pscr_eig_chunks(nbatch, nt, cx->team);
  const int nb = ch.nb, team = ch.team, nbuf = ch.nbuf, nchunk = ch.nchunk;
  /* Two chunks of batches (produced, swept; one where nt is 1). */
  EIG(tbatch) *tb = calloc((size_t)nbuf * nb, sizeof(EIG(tbatch)));
  int *claim = calloc((size_t)nchunk + 1, sizeof(int));
  int ok = tb && claim;
  for (int t = 0; ok && t < nbuf * nb; t++)
    ok = (tb[t].z = aligned_alloc(64, (size_t)EIG_TW_NV * n * sizeof(EIG(v)))) != NULL;
  EIG(sweep) sw;
  memset(&sw, 0, sizeof sw);
  sw.g0 = g0;
  ok = ok && EIG(sweep_init)(&sw, n);
  int allocfail = 0;

  if (ok) {
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1) reduction(| : allocfail)
#endif
    {
#ifdef _OPENMP
      const int tid = omp_get_thread_num();
#else
      const int tid = 0;
#endif
      /* Factorizations and M z of one batch: 5 EIG_TW_NV n lane vectors. */
      const size_t nl = (size_t)EIG_TW_NV * n;
      EIG(v) *scr = aligned_alloc(64, 6 * nl * sizeof(EIG(v)));
      EIG(twf) f;
      f.lp = scr;
      f.um = scr + nl;
      f.rp = scr + 2 * nl;
      f.rm = scr + 3 * nl;
      int mine_ok = scr != NULL; /* else: the call fails (after the sweep) */
      allocfail |= !mine_ok;
#ifdef _OPENMP
      const int nthr = omp_get_num_threads();
#else
      const int nthr = 1;
#endif
      /* The sweep's team: every thread, or thread 0 alone (the same bits). */
      const eig_team tm = team ? (eig_team){tid, nthr} : (eig_team){0, 1};
      int failed = 0; /* team: the same on every thread; else thread 0's */
      for (int s = 0; s <= nchunk; s++) {
        /* Alone: thread 0 sweeps chunk s-1 while the others produce chunk s. */
        if (!team && tid == 0 && s > 0)
          for (int q = 0; q < nb && !failed; q++)
            if ((s - 1) * nb + q < nbatch)
              failed = EIG(sweep_batch)(&tm, cx, &sw, &tb[((s - 1) % 2) * nb + q], fail) != 0;
        if (s == nchunk || (team && failed))
          break;
        EIG(produce_chunk)(cx, g0, g1, tb + (s % nbuf) * nb, claim + s, s * nb, nb, nbatch,
                           mine_ok, scr, &f);
        if (team) { /* every thread sweeps chunk s (sweep_batch's first
                       barrier waits for the producers) */
          for (int q = 0; q < nb && !failed; q++)
            if (s * nb + q < nbatch)
              failed = EIG(sweep_batch)(&tm, cx, &sw, &tb[(s % nbuf) * nb + q], fail) != 0;
        } else {
#ifdef _OPENMP
#pragma omp barrier
#endif
        }
      }
      free(scr);
    }
  }
  *refined = ok ? sw.refined : 0;
  EIG(sweep_free)(&sw);
  for (int t = 0; tb && t < nbuf * nb; t++)
    free(tb[t].z);
  free(tb);
  free(claim);
  return ok && !allocfail;
}

/* Where the spectrum splits in two for the pipeline (stage.c,
 * pscr_eig_split_point, says how): 0 for no split. */
static int EIG(split_point)(const EIG(ictx) * cx)
{
  /* Its real parts: every (sizeof(EIG_T) / sizeof(double))th double. */
  return pscr_eig_split_point(cx->n, (const double *)cx->lambda, sizeof(EIG_T) / sizeof(double),
                              cx->tau, cx->split);
}

/*
 * All the vectors through pipeline_part. Where the spectrum splits
 * (split_point), the two parts share no window and each is a pipeline of
 * its own, whose batches start at the part's first index whatever the
 * number of threads (the same bits):
 * - two or three threads (the sweep not a team): the parts run side by
 *   side, each on one thread that produces and sweeps its batches in
 *   turn, with no barrier between them. With thread 0 sweeping
 *   everything, the sweep was the critical path (order 8191, complex:
 *   0.69 s of sweep against 0.5 s of production on the other thread);
 *   the split halves the sum of both.
 * - one thread, or a team: the parts one after the other.
 * Returns 0 when out of memory; failures in *fail (the lower part's
 * first).
 */
static int EIG(vectors_pipeline)(const EIG(ictx) * cx, EIG(ifail) * fail, int *refined)
{
  const int n = cx->n;
  const int nt = pscr_eig_sweep_threads(n);
  const int m = EIG(split_point)(cx);
  if (m == 0)
    return EIG(pipeline_part)(cx, 0, n, nt, fail, refined);
  const int g[3] = {0, m, n};
  EIG(ifail) pf[2];
  int pok[2] = {1, 1}, pref[2] = {0, 0};
  memset(pf, 0, sizeof pf);
  if (nt > 1 && !eig_team_on(cx->team, nt)) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(2) schedule(static, 1)
#endif
    for (int p = 0; p < 2; p++)
      pok[p] = EIG(pipeline_part)(cx, g[p], g[p + 1], 1, &pf[p], &pref[p]);
  } else {
    for (int p = 0; p < 2 && pok[0] && !pf[0].kind; p++)
      pok[p] = EIG(pipeline_part)(cx, g[p], g[p + 1], nt, &pf[p], &pref[p]);
  }
  *refined = pref[0] | pref[1];
  if (pf[0].kind)
    *fail = pf[0];
  else if (pf[1].kind)
    *fail = pf[1];
  return pok[0] && pok[1];
}

/*
 * All eigenvectors for the sorted eigenvalues lambda (n of them); writes the
 * sel components to w (w NULL: none). tnorm: ||T|| of the reduced problem
 * (cluster scale). With EIG_REFINE, lambda is refined (and re-sorted, with
 * the rows of w) where the residual shows it was inaccurate. The vectors
 * come from vectors_pipeline (batches from twisted factorizations, or with
 * EIG_PIV_LANES from pivoted inverse iteration).
 */
static pscr_status EIG(inverse_iteration)(int n, const EIG_T *ad, const EIG_T *ao,
                                          const EIG_T *md, const EIG_T *mo, EIG_T *lambda,
                                          double anorm, double mnorm, double tnorm, int nsel,
                                          const int *sel, EIG_T *w, const pscr_eigen_config *cfg)
{
  const double eps = DBL_EPSILON, tsafe = tnorm > 0.0 ? tnorm : 1.0;
  EIG_T *lambda0 = malloc((size_t)n * sizeof(EIG_T));
  if (!lambda0)
    return EIG_ERROR(PSCR_ERROR_HOST_ALLOC,
                     "cannot allocate inverse iteration's workspace (n = %d)", n);
  memcpy(lambda0, lambda, (size_t)n * sizeof(EIG_T));
  EIG(ictx) cx = {n, nsel, ad, ao, md, mo, lambda, w, lambda0, sel, anorm, mnorm, tnorm,
                  EIG_CLUSTER_TOL * tnorm / n,
                  /* Tight cluster: eigenvalues this close to lambda_j are
                   * numerically indistinguishable; any vector of their
                   * invariant subspace is an acceptable eigenvector, with a
                   * residual of up to their spread. */
                  EIG_TIGHT_TOL * n * eps * tsafe, 10.0 * eps * tsafe, cfg->team, cfg->split};
  EIG(ifail) fail = {0, 0, 0.0, 0.0, 0.0};
  int refined = 0;
  int ok = EIG(vectors_pipeline)(&cx, &fail, &refined);
  free(lambda0);
  if (!ok)
    return EIG_ERROR(PSCR_ERROR_HOST_ALLOC,
                     "cannot allocate inverse iteration's workspace (n = %d)", n);
  switch (fail.kind) {
  case 0:
    break;
  case 1:
    return EIG_ERROR(PSCR_ERROR_EIGEN_FAILED,
                     "inverse iteration broke down for eigenvalue %d (%g%+gi)", fail.j,
                     creal(fail.lam), cimag(fail.lam));
  case 2:
    return EIG_ERROR(PSCR_ERROR_EIGEN_FAILED,
                     "inverse iteration did not converge for eigenvalue %d (%g%+gi): "
                     "relative residual %g",
                     fail.j, creal(fail.lam), cimag(fail.lam), fail.val);
  case 3:
    return EIG_ERROR(PSCR_ERROR_NOT_DEFINITE,
                     "eigenvector %d has w^T M w = %g%+gi: cannot be normalized", fail.j,
                     creal(fail.s), cimag(fail.s));
  default:
    return EIG_ERROR(PSCR_ERROR_HOST_ALLOC,
                     "cannot allocate inverse iteration's workspace (n = %d, window %d)", n,
                     fail.j);
  }

  /* Refined eigenvalues may have swapped places: restore the documented
   * order (insertion sort, the array is nearly sorted). */
  for (int j = 1; refined && j < n; j++) {
    for (int k = j; k > 0 && EIG(compare)(&lambda[k - 1], &lambda[k]) > 0; k--) {
      EIG_T t = lambda[k];
      lambda[k] = lambda[k - 1];
      lambda[k - 1] = t;
      for (int s = 0; w && s < nsel; s++) {
        EIG_T *a = &w[(size_t)k * nsel + s], *b = &w[(size_t)(k - 1) * nsel + s];
        t = *a;
        *a = *b;
        *b = t;
      }
    }
  }
  return PSCR_SUCCESS;
}
