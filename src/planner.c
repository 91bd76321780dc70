/*
 * The planners (pscr_options.planner; docs/design.md, Per-dimension
 * methods): which method each PSCR_METHOD_AUTO dimension takes. ESTIMATE
 * asks the cost model, MEASURE times the candidates' solves; both drop a
 * transform whose eigenvectors fail the accuracy probe below, and both
 * record what they knew of every vector in the plan (pscr_info.candidate).
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "error.h"
#include "plan.h"
#include "team.h"

/* A transform is eligible while its probed defect stays within ten times
   the eigensolver's bound for the reduction's blocks, 10 n eps
   (test_eigen's orthogonality and residual bound): past that, a solve
   through it could be more than ten times less accurate than the
   reduction's. */
#define PSCR_DEFECT_FACTOR 100.0

/* MEASURE times only the candidates whose estimate is within this factor
   of the cheapest's: the model's estimates are within 2.2 times of the
   measured times on every vector measured (H100 and a 2-core VM, 3D 64^3
   to 511^3, 2D 63^2 to 4095^2; docs/performance.md), and a candidate
   beyond it would cost its plan and two solves for nothing (3D 255^3 on an
   H100: 0.1 s of plan creation, 28 ms of solves for R x R). */
#define PSCR_MEASURE_PRUNE 4.0

/* Whether the n x n eigenvectors of a transform of dimension d fit: at
   most a quarter of the host's physical memory (W is n^2 entries: 8191
   complex is 1 GiB). */
static int pscr_transform_fits(const pscr_plan *p, int d)
{
  const double bytes = (double)p->n[d] * (double)p->n[d] * (double)p->celem;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return bytes < 1e30;
  return bytes <= 0.25 * (double)pages * (double)page;
}

static void pscr_note(pscr_candidate *c, pscr_status st, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  c->status = st;
  vsnprintf(c->reason, sizeof c->reason, fmt, ap);
  va_end(ap);
}

/* "T", "R" (2D) or "TR" ... (3D). */
static const char *pscr_vector_name(const pscr_method m[2], int ndim, char buf[3])
{
  buf[0] = m[0] == PSCR_METHOD_TRANSFORM ? 'T' : 'R';
  buf[1] = ndim == 3 ? (m[1] == PSCR_METHOD_TRANSFORM ? 'T' : 'R') : 0;
  buf[2] = 0;
  return buf;
}

/*
 * With PSCR_PLANNER_ESTIMATE or _MEASURE each AUTO dimension takes the
 * reduction or the transform, whichever vector the cost model
 * (pscr_cost_seconds, the backend's rates) expects to solve fastest, among
 * the vectors the backend accepts and whose transforms fit in memory, and
 * every vector is recorded in p->cand; with PSCR_PLANNER_NONE AUTO is the
 * reduction. A dimension that becomes a transform loses its levels.
 */
pscr_status pscr_choose_methods(pscr_plan *p)
{
  int autos[2], na = 0;
  for (int d = 0; d < p->ndim - 1; d++)
    if (p->method[d] == PSCR_METHOD_AUTO) {
      if (p->opts.planner != PSCR_PLANNER_NONE)
        autos[na++] = d;
      else
        p->method[d] = PSCR_METHOD_REDUCTION;
    }
  const pscr_method given[2] = {p->method[0], p->method[1]};
  p->ncand = 0;
  p->chosen = -1;
  int pick = -1;
  double best_t = 0;
  pscr_candidate last = {{PSCR_METHOD_AUTO, PSCR_METHOD_AUTO}, PSCR_SUCCESS, "", 0, 0};
  for (int mask = 0; mask < (1 << na); mask++) {
    pscr_candidate *c = na ? &p->cand[p->ncand++] : &last;
    memset(c, 0, sizeof *c);
    c->method[0] = given[0];
    c->method[1] = given[1];
    int too_big = -1;
    for (int j = 0; j < na; j++) {
      const int d = autos[j];
      c->method[d] = (mask >> j & 1) ? PSCR_METHOD_TRANSFORM : PSCR_METHOD_REDUCTION;
      if (c->method[d] == PSCR_METHOD_TRANSFORM && !pscr_transform_fits(p, d))
        too_big = d;
    }
    p->method[0] = c->method[0];
    p->method[1] = c->method[1];
    char why[sizeof c->reason] = "";
    if (too_big >= 0) {
      const double n = (double)p->n[too_big];
      pscr_note(c, PSCR_ERROR_NOT_SUPPORTED,
                "the eigenvectors of dimension %d (%.3g GB) exceed a quarter of the host's "
                "memory",
                too_big + 1, n * n * (double)p->celem * 1e-9);
    } else if (p->ops->accepts && !p->ops->accepts(p, why, sizeof why)) {
      pscr_note(c, PSCR_ERROR_NOT_SUPPORTED, "%s", why);
    } else if (na) {
      pscr_cost_rules rules;
      p->ops->cost_rules(p, &rules);
      c->estimate_seconds = pscr_cost_seconds(p, &rules);
      if (pick < 0 || c->estimate_seconds < best_t) {
        best_t = c->estimate_seconds;
        pick = mask;
      }
    } else {
      pick = 0;
    }
  }
  if (pick < 0) {
    const pscr_candidate *c = na ? &p->cand[p->ncand - 1] : &last;
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "no method vector fits: %s", c->reason);
  }
  if (na) {
    p->chosen = pick;
    p->method[0] = p->cand[pick].method[0];
    p->method[1] = p->cand[pick].method[1];
  } else {
    p->method[0] = given[0];
    p->method[1] = given[1];
  }
  for (int d = 0; d < p->ndim - 1; d++)
    if (p->method[d] == PSCR_METHOD_TRANSFORM && p->lv[d].level) {
      p->host_bytes -= p->lv[d].bytes;
      pscr_levels_free(&p->lv[d]);
    }
  return PSCR_SUCCESS;
}

/* The probe of pscr_transform_defect (pscr.h, pscr_info.transform_defect)
   in type T: E = W^T row-major (p->w[d]), the balanced factors F. */
#define PSCR_DEFINE_DEFECT(name, T, F, ABS)                                                  \
  static double name(const pscr_plan *p, int d)                                            \
  {                                                                                        \
    const int n = p->n[d];                                                                 \
    const int big = p->nthreads > 1 && (size_t)n * n > PSCR_PAR_MIN; /* team.h */           \
    const T *E = p->w[d], *lam = p->lambda[d];                                             \
    const T *ad = p->F[d].a.diag, *ao = p->F[d].a.off, *md = p->F[d].m.diag,               \
            *mo = p->F[d].m.off;                                                           \
    T *buf = malloc(5 * (size_t)n * sizeof *buf);                                          \
    if (!buf)                                                                              \
      return INFINITY;                                                                     \
    T *z = buf, *v = buf + n, *t = buf + 2 * (size_t)n, *y = buf + 3 * (size_t)n,           \
      *g = buf + 4 * (size_t)n;                                                            \
    double anorm = 0, mnorm = 0, lmax = 0, zz = 0;                                         \
    for (int i = 0; i < n; i++) {                                                          \
      const double h = sin(12.9898 * (i + 1)) * 43758.5453;                                \
      z[i] = (T)(2.0 * (h - floor(h)) - 1.0);                                              \
      zz += ABS(z[i]) * ABS(z[i]);                                                         \
      double ra = ABS(ad[i]), rm = ABS(md[i]);                                             \
      if (i > 0) {                                                                         \
        ra += ABS(ao[i - 1]);                                                              \
        rm += ABS(mo[i - 1]);                                                              \
      }                                                                                    \
      if (i < n - 1) {                                                                     \
        ra += ABS(ao[i]);                                                                  \
        rm += ABS(mo[i]);                                                                  \
      }                                                                                    \
      anorm = fmax(anorm, ra);                                                             \
      mnorm = fmax(mnorm, rm);                                                             \
      lmax = fmax(lmax, ABS(lam[i]));                                                      \
    }                                                                                      \
    /* v = W z, t = W (Lambda z): row e of E scaled by z_e, lambda_e z_e. */               \
    _Pragma("omp parallel for num_threads(p->nthreads) schedule(static) if (big)")          \
        for (int i0 = 0;                                                                   \
                                                                               i0 < n;     \
                                                                               i0 += 256)  \
    {                                                                                      \
      const int i1 = i0 + 256 < n ? i0 + 256 : n;                                          \
      for (int i = i0; i < i1; i++)                                                        \
        v[i] = t[i] = 0;                                                                   \
      for (int e = 0; e < n; e++) {                                                        \
        const T *row = E + (size_t)e * n;                                                  \
        const T ze = z[e], lz = lam[e] * z[e];                                             \
        for (int i = i0; i < i1; i++) {                                                    \
          v[i] += row[i] * ze;                                                             \
          t[i] += row[i] * lz;                                                             \
        }                                                                                  \
      }                                                                                    \
    }                                                                                      \
    /* y = M v; the residual r = A v - M t into t (t is read before written). */          \
    double rr = 0, vv = 0;                                                                 \
    T prev_t = 0;                                                                          \
    for (int i = 0; i < n; i++) {                                                          \
      T mv = md[i] * v[i], av = ad[i] * v[i], mt = md[i] * t[i];                           \
      if (i > 0) {                                                                         \
        mv += mo[i - 1] * v[i - 1];                                                        \
        av += ao[i - 1] * v[i - 1];                                                        \
        mt += mo[i - 1] * prev_t;                                                          \
      }                                                                                    \
      if (i < n - 1) {                                                                     \
        mv += mo[i] * v[i + 1];                                                            \
        av += ao[i] * v[i + 1];                                                            \
        mt += mo[i] * t[i + 1];                                                            \
      }                                                                                    \
      prev_t = t[i];                                                                       \
      y[i] = mv;                                                                           \
      const double r = ABS(av - mt);                                                       \
      rr += r * r;                                                                         \
      vv += ABS(v[i]) * ABS(v[i]);                                                         \
    }                                                                                      \
    /* g = W^T M v: should give z back. */                                                 \
    double gg = 0;                                                                         \
    _Pragma("omp parallel for num_threads(p->nthreads) schedule(static) reduction(+ : gg) if (big)") \
        for (int e = 0; e < n; e++)                                                        \
    {                                                                                      \
      const T *row = E + (size_t)e * n;                                                    \
      T s = 0;                                                                             \
      for (int i = 0; i < n; i++)                                                          \
        s += row[i] * y[i];                                                                \
      g[e] = s;                                                                            \
      gg += ABS(s - z[e]) * ABS(s - z[e]);                                                 \
    }                                                                                      \
    free(buf);                                                                             \
    const double orth = sqrt(gg / zz);                                                     \
    const double scale = (anorm + lmax * mnorm) * sqrt(vv);                                \
    const double res = scale > 0 ? sqrt(rr) / scale : 0;                                   \
    return isfinite(orth) && isfinite(res) ? fmax(orth, res) : INFINITY;                   \
  }

PSCR_DEFINE_DEFECT(pscr_defect_real, double, fac_d, fabs)
PSCR_DEFINE_DEFECT(pscr_defect_complex, pscr_z, fac_z, cabs)

/*
 * How far dimension d's eigenvectors (in the compute type, before a float
 * plan rounds them) are from W^T M W = I and A W = M W Lambda, probed with
 * one fixed vector z: 3 n^2 multiply-adds, against the eigensolver's
 * O(n^2) with a larger constant. A solve through the transform inherits
 * this defect in its backward error; the reduction's eigen blocks meet 10
 * n eps in test_eigen.
 */
double pscr_transform_defect(const pscr_plan *p, int d)
{
  return p->cplx ? pscr_defect_complex(p, d) : pscr_defect_real(p, d);
}

/* Whether plan q's transforms of the AUTO dimensions of o pass the probe;
   if not, c says why. */
static int pscr_probe_passes(const pscr_plan *q, const pscr_options *o, pscr_candidate *c)
{
  for (int d = 0; d < q->ndim - 1; d++) {
    if (o->method[d] != PSCR_METHOD_AUTO || q->method[d] != PSCR_METHOD_TRANSFORM)
      continue;
    const double bound = PSCR_DEFECT_FACTOR * q->n[d] * DBL_EPSILON;
    if (o->flags & PSCR_FLAG_TEST_TRANSFORM_PROBE_FAILS) {
      pscr_note(c, PSCR_ERROR_EIGEN_FAILED,
                "the transform of dimension %d fails the accuracy probe (flag "
                "test-transform-probe-fails; defect %.2e)",
                d + 1, q->defect[d]);
      return 0;
    }
    if (!(q->defect[d] <= bound)) {
      pscr_note(c, PSCR_ERROR_EIGEN_FAILED,
                "the transform of dimension %d fails the accuracy probe (defect %.2e > %.2e)",
                d + 1, q->defect[d], bound);
      return 0;
    }
  }
  return 1;
}

/* The median of count values (sorted in place). */
static double pscr_median(double *x, int count)
{
  for (int i = 1; i < count; i++)
    for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
      const double t = x[j];
      x[j] = x[j - 1];
      x[j - 1] = t;
    }
  return count % 2 ? x[count / 2] : 0.5 * (x[count / 2 - 1] + x[count / 2]);
}

/*
 * MEASURE's rule for a candidate's solves, given the best median so far
 * (0: none yet). The first solve is untimed: first use costs far more than
 * a solve (page faults; on the GPU, loading cuBLAS's and the solver's
 * kernels: 0.1 s against 70 us at 2D 127^2 on an H100). A candidate whose
 * first timed solve took over 1.25 times the best takes no more; every
 * other takes three timed solves, and their median counts. So a clear
 * loser costs two solves, and a close race is timed properly.
 */
typedef struct pscr_timing {
  double best;
} pscr_timing;

static int pscr_timing_more(void *ctx, const double *t, int done)
{
  const double best = ((const pscr_timing *)ctx)->best;
  if (done == 2)
    return !(best > 0 && t[1] > 1.25 * best);
  return done < 4;
}

/* MEASURE: the seconds of one solve of plan q, or a status. */
static pscr_status pscr_time_candidate(pscr_plan *q, const pscr_options *o, double best,
                                       double *secs)
{
  if ((o->flags & PSCR_FLAG_TEST_MEASURE_TRANSFORM_FAILS) &&
      (q->method[0] == PSCR_METHOD_TRANSFORM || q->method[1] == PSCR_METHOD_TRANSFORM))
    return PSCR_ERROR(PSCR_ERROR_DEVICE,
                      "its timed solve failed (flag test-measure-transform-fails)");
  if (!q->ops->time_solves)
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "the %s backend cannot time solves",
                      q->ops->name);
  double t[4];
  int done = 0;
  pscr_timing ctx = {best};
  const pscr_status st = q->ops->time_solves(q, 4, t, &done, pscr_timing_more, &ctx);
  if (st)
    return st;
  if (done < 1)
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "the %s backend timed no solve", q->ops->name);
  if (done < 2)
    return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED, "the %s backend stopped after its untimed solve",
                      q->ops->name);
  /* One timed solve, or the median of three. */
  *secs = done == 2 ? t[1] : pscr_median(t + 1, done - 1);
  return PSCR_SUCCESS;
}

/*
 * ESTIMATE and MEASURE. A skeleton plan (no eigenproblem) lists the
 * candidates with their estimates; they are then built in the order of
 * their estimates, on the skeleton's backend. ESTIMATE keeps the first
 * that builds and passes the probe; MEASURE times each (pscr_timing_more)
 * and keeps the fastest, holding at most the best plan and the candidate
 * at a time.
 */
pscr_status pscr_plan_planned(pscr_plan **plan, const pscr_plan_args *a, const pscr_options *o)
{
  int na = 0;
  for (int d = 0; d < a->ndim - 1; d++)
    na += o->method[d] == PSCR_METHOD_AUTO;
  if (o->planner == PSCR_PLANNER_NONE || na == 0)
    return pscr_plan_build(plan, a, o, 0);

  pscr_plan *sk = NULL;
  pscr_status st = pscr_plan_build(&sk, a, o, 1);
  if (st)
    return st;
  pscr_candidate cand[4];
  const int ncand = sk->ncand;
  memcpy(cand, sk->cand, sizeof cand);
  pscr_options co = *o;
  co.backend = sk->backend;
  co.planner = PSCR_PLANNER_NONE;
  pscr_plan_destroy(sk);

  int order[4], nord = 0;
  for (int k = 0; k < ncand; k++)
    if (cand[k].status == PSCR_SUCCESS) {
      int j = nord++;
      for (; j > 0 && cand[order[j - 1]].estimate_seconds > cand[k].estimate_seconds; j--)
        order[j] = order[j - 1];
      order[j] = k;
    }
  pscr_plan *best = NULL;
  int best_k = -1;
  double best_t = 0;
  for (int j = 0; j < nord; j++) {
    pscr_candidate *c = &cand[order[j]];
    const double ratio = c->estimate_seconds / cand[order[0]].estimate_seconds;
    if (o->planner == PSCR_PLANNER_MEASURE && best && ratio > PSCR_MEASURE_PRUNE) {
      snprintf(c->reason, sizeof c->reason,
               "not timed: its estimate is %.1f times the cheapest's (over %g)", ratio,
               PSCR_MEASURE_PRUNE);
      continue;
    }
    co.method[0] = c->method[0];
    co.method[1] = c->method[1];
    pscr_plan *q = NULL;
    if ((st = pscr_plan_build(&q, a, &co, 0))) {
      pscr_note(c, st, "%s", pscr_last_error());
      continue;
    }
    if (!pscr_probe_passes(q, o, c)) {
      pscr_plan_destroy(q);
      continue;
    }
    if (o->planner == PSCR_PLANNER_ESTIMATE) {
      best = q;
      best_k = order[j];
      break;
    }
    double t = 0;
    if ((st = pscr_time_candidate(q, o, best ? best_t : 0.0, &t))) {
      pscr_note(c, st, "%s", pscr_last_error());
      pscr_plan_destroy(q);
      continue;
    }
    c->measured_seconds = t;
    if (!best || t < best_t) {
      pscr_plan_destroy(best);
      best = q;
      best_t = t;
      best_k = order[j];
    } else {
      pscr_plan_destroy(q);
    }
  }
  if (!best) {
    /* Every candidate failed: the first one's status leads, every one's
       reason follows. */
    char msg[800] = "", name[3];
    pscr_status first = PSCR_ERROR_NOT_SUPPORTED;
    size_t at = 0;
    for (int k = 0; k < ncand; k++) {
      if (k == 0 || (first == PSCR_ERROR_NOT_SUPPORTED && cand[k].status != first))
        first = cand[k].status;
      if (at < sizeof msg)
        at += (size_t)snprintf(msg + at, sizeof msg - at, "%s%s: %s", k ? "; " : "",
                               pscr_vector_name(cand[k].method, a->ndim, name), cand[k].reason);
    }
    return PSCR_ERROR(first, "no method vector could be planned: %s", msg);
  }
  best->ncand = ncand;
  memcpy(best->cand, cand, sizeof cand);
  best->chosen = best_k;
  pscr_error_clear();
  *plan = best;
  return PSCR_SUCCESS;
}
