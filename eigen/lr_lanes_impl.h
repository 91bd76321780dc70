/*
 * EIG_LR_NS LR steps (lr_impl.h) with different shifts in one pass over
 * the block, chased together in the lanes of one lane vector (twisted_impl.h's
 * EIG(v): a vector of real and one of imaginary parts), as pwk_lane_sweep
 * does for the real QL steps.
 *
 * Why: a single LR step is a recurrence through u_i that waits on one
 * division per row, so the scalar steps (even two pipelined, lr_step2) are
 * bound by division latency. Here lane a runs step a two rows behind lane
 * a-1: its row i needs d'_{i+1} and p'_i of step a-1, which lane a-1
 * produced one and two iterations earlier, so they pass from lane to lane
 * in registers (a shift by one lane). Lane 0 reads the block, the last
 * lane writes it back, and the eight divisions of an iteration are one
 * vector division.
 *
 * Shifts: the eigenvalues of the trailing block of order EIG_LR_NS (a
 * small problem for the scalar iteration), so one pass is a multishift
 * step T' = L^{-1} T L with L U = prod_a (T - sigma_a I) (the LR analogue
 * of the implicit Q theorem) that drives the block's last EIG_LR_NS - 1
 * products p_i towards zero together.
 *
 * Each lane does the arithmetic of lr_step with its growth test (|q_i|
 * <= EIG_LR_GROWTH ||T||), but not its tiny-pivot test: the shifts are
 * nearly exact, so where an earlier lane has nearly split off an
 * eigenvalue at the bottom, the next lane meets a pivot near zero over a
 * nearly zero p_i, a small multiplier and no instability (without this,
 * three passes in five failed at order 8191). Where any lane fails the
 * test, or |u_i|^2 leaves the range of eig_cdiv's direct formula, the
 * whole pass is undone and the caller takes its single-shift steps, which
 * handle those cases. Two lane vectors (sixteen shifts) per pass were no
 * faster and left about five times as many eigenvalues for inverse
 * iteration to refine (order 2000 Helmholtz: 338 against 69 off by more
 * than 100 eps ||T||; the scalar steps: 5), so a pass is one vector.
 *
 * Complex only: included by eigen.c in the complex expansion, after
 * twisted_impl.h (lane vectors) and before lr_impl.h (its caller).
 */

/* Shifts per pass (one per lane of one lane vector), the smallest block
 * that takes a pass, and the passes without a deflation after which
 * single-shift steps take over. */
#define EIG_LR_NS EIG_VL
#define EIG_LR_MULTI_MIN (8 * EIG_LR_NS)
#define EIG_LR_STALL 4

/* Lane a of x moved to lane a + 1; lane 0 gets x0. */
static inline EIG(v) EIG(lr_shift_in)(EIG(v) x, EIG_T x0)
{
  _Static_assert(EIG_VL == 8, "lr_shift_in lists eight lanes");
  const eig_vd re0 = eig_vd_splat(creal(x0)), im0 = eig_vd_splat(cimag(x0));
  return (EIG(v)){__builtin_shufflevector(x.re, re0, 8, 0, 1, 2, 3, 4, 5, 6),
                  __builtin_shufflevector(x.im, im0, 8, 0, 1, 2, 3, 4, 5, 6)};
}

/* The state a pass carries from one iteration to the next (lr_lane_pass). */
typedef struct EIG(lrl) {
  EIG(v) u, dout1, dout2, pout1, pout2;
  eig_vd adn; /* |d_{i+1}| of the last iteration: this one's |d_i| (steady) */
  eig_vm bad;
} EIG(lrl);

/* Iteration t of lr_lane_pass. steady (a constant where inlined): every
 * lane strictly inside lo..hi, so the masks for the first and last rows
 * and for the lanes not yet (or no longer) stepping are constant and the
 * clamps void. The values are those of the general iteration (the selects
 * then take the same sides), and the steady part is nearly all of a pass:
 * it runs without about fifteen of the general iteration's ninety vector
 * operations, which bound it (a pass is throughput bound, not latency
 * bound: two lane vectors per pass took twice as long). */
static inline __attribute__((always_inline)) void
EIG(lr_lane_iter)(int t, int steady, int lo, int hi, EIG_T *d, EIG_T *p, EIG(v) sv, eig_vd lag,
                  eig_vd vgrowth, eig_vd vabs, eig_vd veps2, EIG(lrl) * st)
{
  enum { K = EIG_LR_NS };
  const EIG(v) zero = EIG(v_splat)(0.0);
  const eig_vd dmin = eig_vd_splat(DBL_MIN), dmax = eig_vd_splat(DBL_MAX);
  /* Lane 0 is at row r0 (clamped reads: unused outside lo..hi). Lane a's
   * inputs are what lane a-1 left; lane 0's, the block's rows. */
  const int r0 = lo + t;
  const int rc = steady || r0 < hi ? r0 : hi, rn = steady || r0 + 1 < hi ? r0 + 1 : hi;
  const int rp = steady || r0 < hi - 1 ? r0 : hi - 1;
  const EIG(v) pin = EIG(lr_shift_in)(st->pout2, p[rp]);  /* p_i of the previous step */
  const EIG(v) dnx = EIG(lr_shift_in)(st->dout1, d[rn]);  /* its d_{i+1} */
  eig_vm init, fin, step;
  if (steady) {
    init = fin = (eig_vm)(lag != lag); /* all clear */
    step = (eig_vm)(lag == lag);       /* all set */
  } else {
    const eig_vd row = eig_vd_splat(r0) - lag;
    init = (eig_vm)(row == eig_vd_splat(lo));
    fin = (eig_vm)(row == eig_vd_splat(hi));
    step = (eig_vm)(row >= eig_vd_splat(lo)) & (eig_vm)(row < eig_vd_splat(hi));
  }
  /* lr_step's row: q = p_i / u_i (eig_cdiv's form), d'_i = u_i + q_i +
   * sigma, u_{i+1} = d_{i+1} - sigma - q_i, p'_i = u_{i+1} q_i. */
  EIG(v) uu;
  eig_vd adcur;
  if (steady) {
    uu = st->u;
    adcur = st->adn; /* d_i is the d_{i+1} of the last iteration */
  } else {
    const EIG(v) dcur = EIG(lr_shift_in)(st->dout2, d[rc]); /* its d_i (read at the start) */
    uu = EIG(v_sel)(init, EIG(v_sub)(dcur, sv), st->u);
    adcur = EIG(v_abs1)(dcur);
  }
  const eig_vd adnx = EIG(v_abs1)(dnx);
  const eig_vd den = uu.re * uu.re + uu.im * uu.im;
  const eig_vd rcp = 1.0 / den;
  const EIG(v) pc = {pin.re * uu.re + pin.im * uu.im, pin.im * uu.re - pin.re * uu.im};
  /* An earlier lane's shift may have split the block at row i (p_i
   * negligible, as lr_negligible judges it, and u_i then near zero): the
   * step ends the upper part there (q_i = 0, d'_i = u_i + sigma) and
   * starts the lower one afresh (u_{i+1} = d_{i+1} - sigma), as single
   * steps would after the deflation. */
  const eig_vd apin = EIG(v_abs1)(pin);
  const eig_vm split = (eig_vm)(apin <= vabs) | (eig_vm)(apin <= veps2 * adcur * adnx);
  const EIG(v) q = EIG(v_sel)(split, zero, EIG(v_rscale)(pc, rcp));
  const EIG(v) dnew = EIG(v_add)(EIG(v_add)(uu, q), sv);
  const EIG(v) un = EIG(v_sub)(EIG(v_sub)(dnx, sv), q);
  const EIG(v) pnew = EIG(v_mul)(un, q);
  /* Stability: the computed step is an exact step of a matrix within
   * about eps (|d_i - sigma| + |q_i|) of the input, so the multipliers
   * q_i must stay bounded; a pivot near zero with a small q_i (where a
   * nearly exact shift meets a nearly split block) is harmless. */
  const eig_vm good = split | ((eig_vm)(EIG(v_abs1)(q) <= vgrowth) & (eig_vm)(den > dmin) &
                               (eig_vm)(den < dmax));
  st->bad |= step & ~good;
  const EIG(v) dout = steady ? dnew : EIG(v_sel)(fin, EIG(v_add)(uu, sv), dnew);
  st->u = steady ? un : EIG(v_sel)(step, un, uu);
  st->adn = adnx;
  st->dout2 = st->dout1;
  st->dout1 = dout;
  st->pout2 = st->pout1;
  st->pout1 = pnew;
  /* The last lane leaves row r for good. */
  const int r = r0 - 2 * (K - 1);
  if (steady || r >= lo) {
    d[r] = EIG(v_get)(dout, K - 1);
    if (steady || r < hi)
      p[r] = EIG(v_get)(pnew, K - 1);
  }
}

/*
 * One pass: EIG_LR_NS LR steps on rows lo..hi (hi - lo + 1 >=
 * EIG_LR_MULTI_MIN) with the shifts sig, in place in d, p. Returns 0 where
 * a lane fails (see above; d and p are then partly stepped), else 1.
 *
 * pub, lead: a pass that follows another on a second thread
 * (lr_lane_double). Every EIG_LR_CHUNK iterations the leading pass
 * publishes how many it has done (pub); the following one waits (lead)
 * until the rows its next chunk reads are final: its lane 0 reads row
 * lo + t + 1 at iteration t, which the leader's last lane writes at its
 * iteration t + 2 EIG_LR_NS - 1. The follower writes rows far behind the
 * leader's reads, so neither sees the other's rows too early.
 */
#define EIG_LR_CHUNK 64
#define EIG_LR_SPINS 1000
static int EIG(lr_lane_pass)(int lo, int hi, EIG_T *d, EIG_T *p, const EIG_T *sig,
                             double growth, double abs_tol, double eps2, int *pub,
                             const int *lead)
{
  enum { K = EIG_LR_NS };
  const EIG(v) zero = EIG(v_splat)(0.0);
  /* Lane a: shift sig[a], two rows behind lane a - 1. (Built in arrays:
   * GCC 12 takes lane stores into a struct of vectors for reads of
   * uninitialized memory.) */
  double sre[K], sim[K], lags[K];
  for (int a = 0; a < K; a++) {
    sre[a] = creal(sig[a]);
    sim[a] = cimag(sig[a]);
    lags[a] = 2.0 * a;
  }
  EIG(v) sv;
  eig_vd lag;
  memcpy(&sv.re, sre, sizeof sv.re);
  memcpy(&sv.im, sim, sizeof sv.im);
  memcpy(&lag, lags, sizeof lag);
  const eig_vd vgrowth = eig_vd_splat(growth);
  const eig_vd vabs = eig_vd_splat(abs_tol), veps2 = eig_vd_splat(eps2);
  /* u: each lane's pivot; dout, pout: the rows the lanes left one (1) and
   * two (2) iterations ago. */
  EIG(lrl) st = {zero, zero, zero, zero, zero, eig_vd_splat(0.0), (eig_vm)(lag != lag)};
  /* Steady from the first iteration where the last lane is past row lo
   * (t - 2 (K - 1) > 0) to the last where lane 0 is before row hi
   * (t < hi - lo); the general iterations around it also carry adn. */
  const int iters = hi - lo + 1 + 2 * (K - 1);
  const int s0 = 2 * K - 1, s1 = hi - lo;
  for (int t = 0; t < iters;) {
    const int te = t + EIG_LR_CHUNK < iters ? t + EIG_LR_CHUNK : iters;
    if (pub)
      __atomic_store_n(pub, t, __ATOMIC_RELEASE);
    if (lead) {
      const int need = te + 2 * K - 1 < iters ? te + 2 * K - 1 : iters;
      /* Spin briefly, then yield: where other processes hold the cores,
       * the leader may be off its core, and a spinning follower would keep
       * it waiting for the scheduler's time slices. */
      for (int spins = 0; __atomic_load_n(lead, __ATOMIC_ACQUIRE) < need; spins++)
        if (spins >= EIG_LR_SPINS)
          sched_yield();
    }
    for (; t < (te < s0 ? te : s0); t++)
      EIG(lr_lane_iter)(t, 0, lo, hi, d, p, sv, lag, vgrowth, vabs, veps2, &st);
    for (; t < (te < s1 ? te : s1); t++)
      EIG(lr_lane_iter)(t, 1, lo, hi, d, p, sv, lag, vgrowth, vabs, veps2, &st);
    for (; t < te; t++)
      EIG(lr_lane_iter)(t, 0, lo, hi, d, p, sv, lag, vgrowth, vabs, veps2, &st);
  }
  if (pub)
    __atomic_store_n(pub, iters, __ATOMIC_RELEASE);
  return !eig_vm_bits(st.bad);
}

/* Blocks from this order on take lr_lane_double's passes on two threads
 * (shorter ones: one thread, the same bits; a parallel region costs a few
 * microseconds, a pass about 15 ns per row). */
#define EIG_LR_PAR_MIN 1024
/* The strike average (eig_lr_par) from which the rest of the call stays
 * on one thread. */
#define EIG_LR_STRIKES 0.5

/*
 * Whether lr_lane_double uses a second thread. Where other processes hold
 * the cores, the two passes wait on each other's time slices (order 8191
 * under a parallel build: 12 s instead of 0.7 s). So the first long double
 * pass runs on one thread and is timed (seq_rate, seconds per row), and
 * each parallel one that takes longer than 0.9 of that per row counts as a
 * strike. strikes is their moving average (weight 0.1 for the newest);
 * from EIG_LR_STRIKES on (about seven strikes in a row) the call goes on
 * with one thread. Lone strikes (3 to 6 of 1606 parallel passes at order
 * 8191 on an idle machine) do not get there. The bits are the same either
 * way.
 */
typedef struct eig_lr_par {
  int threads;     /* 2 or more: a second thread may be used */
  double seq_rate; /* the one-thread double pass's time per row (0: not yet timed) */
  double strikes;  /* moving average of the strikes */
} eig_lr_par;

/*
 * Two passes with the same shifts sig on rows lo..hi, in place in d, p;
 * bd, bp receive the old rows. Returns 0, with d and p as before, where a
 * lane of either pass fails, else 1.
 *
 * Why twice: the second pass with the same shifts squares what the first
 * did to the trailing products (as lr_step2 does for one shift). At order
 * 8191 (Helmholtz) 1606 double passes did what 2845 single ones did, over
 * 12% more rows in all; with two threads the second pass follows the first
 * a chunk of rows behind (lr_lane_pass), so LR takes the time of about
 * 1606 passes. The bits do not depend on the thread count.
 */
static int EIG(lr_lane_double)(int lo, int hi, EIG_T *d, EIG_T *p, const EIG_T *sig, EIG_T *bd,
                               EIG_T *bp, double growth, double abs_tol, double eps2,
                               eig_lr_par *par)
{
  memcpy(bd + lo, d + lo, (size_t)(hi - lo + 1) * sizeof *d);
  memcpy(bp + lo, p + lo, (size_t)(hi - lo) * sizeof *p);
  int ok0 = 1, ok1 = 1;
  (void)par;
#ifdef _OPENMP
  const int rows = hi - lo + 1;
  const int timed =
      par->threads >= 2 && rows >= EIG_LR_PAR_MIN && par->strikes < EIG_LR_STRIKES;
  const double t0 = timed ? omp_get_wtime() : 0.0;
  if (timed && par->seq_rate > 0.0) {
    int prog = 0;
#pragma omp parallel num_threads(2)
    {
      if (omp_get_num_threads() < 2) {
        ok0 = EIG(lr_lane_pass)(lo, hi, d, p, sig, growth, abs_tol, eps2, NULL, NULL);
        ok1 = ok0 && EIG(lr_lane_pass)(lo, hi, d, p, sig, growth, abs_tol, eps2, NULL, NULL);
      } else if (omp_get_thread_num() == 0) {
        ok0 = EIG(lr_lane_pass)(lo, hi, d, p, sig, growth, abs_tol, eps2, &prog, NULL);
      } else {
        ok1 = EIG(lr_lane_pass)(lo, hi, d, p, sig, growth, abs_tol, eps2, NULL, &prog);
      }
    }
    const int strike = omp_get_wtime() - t0 > 0.9 * par->seq_rate * rows;
    par->strikes = 0.9 * par->strikes + (strike ? 0.1 : 0.0);
  } else
#endif
  {
    ok0 = EIG(lr_lane_pass)(lo, hi, d, p, sig, growth, abs_tol, eps2, NULL, NULL);
    ok1 = ok0 && EIG(lr_lane_pass)(lo, hi, d, p, sig, growth, abs_tol, eps2, NULL, NULL);
#ifdef _OPENMP
    if (timed && ok1)
      par->seq_rate = (omp_get_wtime() - t0) / rows;
#endif
  }
  if (!ok0 || !ok1) {
    memcpy(d + lo, bd + lo, (size_t)(hi - lo + 1) * sizeof *d);
    memcpy(p + lo, bp + lo, (size_t)(hi - lo) * sizeof *p);
    return 0;
  }
  return 1;
}
