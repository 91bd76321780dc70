/*
 * Cost model of one solve of one right-hand side (pscr_info.cost; a batch of
 * K does K times the flops and bytes, and on the CUDA backend the launches
 * of one solve per group of max_batch): floating-point operations and
 * global-memory bytes per stage kind, counted by walking the plan's level
 * structure exactly as the CUDA driver (gpu/cuda_solve.cu, run_dim) walks
 * it. Every count below names the kernel line it models, so a change to a
 * kernel shows here as a change to one formula.
 *
 * Operation costs (pscr.h, pscr_cost): real +, -, *, reciprocal 1, FMA 2;
 * complex + 2, * 6, a*b + c 8, reciprocal 9 (the scaled formula of
 * cuda_scalar.cuh and pscr_inv_z: two scalings, |x|^2, one division, two
 * products), |.|_1 1 (one add; fabs is free). A pivot test
 * |piv| > eps (|a| + |b|) costs its |.|_1 terms plus two real operations.
 *
 * Bytes: each kernel reads every distinct vector-sized element it needs once
 * and writes every element it produces once; O(n) tables are not counted.
 * The serial CUDA Thomas path keeps its intermediates in global memory, and
 * that traffic is counted.
 */
#include <string.h>

#include "cuda_view.h"
#include "plan.h"

typedef struct op_costs {
  double add, mul, fma, inv, abs1;
} op_costs;

/* The plan's level-3 solver, as pscr_info reports it. */
typedef struct l3_shape {
  int rows;    /* M, 0: plain Thomas */
  int threads; /* P */
  int serial_global; /* CUDA serial path: intermediates in global memory */
  int mdiag;         /* M_l diagonal: no multiply-add for the off-diagonal */
} l3_shape;

typedef struct cost_walk {
  const pscr_plan *p;
  op_costs op;
  l3_shape l3;
  double es;       /* bytes per element */
  pscr_cost *cost; /* PSCR_STAGE_COUNT entries */
} cost_walk;

/* Per-level counts the formulas need. */
typedef struct level_stats {
  double nb, ne, nj;
  double cpl_fwd;   /* couplings of the forward update: J_i entries' left + right blocks */
  double cpl_back;  /* gL, gR that exist: blocks with first > 0, blocks with last < n-1 */
  double nd_sum;    /* sum over blocks of |D(B)| */
  double nd_e_sum;  /* sum over eigenpairs of their block's |D(B)| */
  double items;     /* CUDA reduction items (32 eigenpairs, or pscr_cuda_fused_eigs) */
  double src_back;  /* CPU back substitution: sources per eigenpair, nd + (gL) + (gR) */
  int acc_back;     /* back accumulators per entry: 3, or 4 with |D(B)| = 4 (levels.h) */
  int direct;       /* every block is one item: one reduction pass */
  int fused;        /* CUDA: level 3 adds up the sums (gpu/part_sum.cuh: k_part_sum) */
} level_stats;

/* fuse_slots, fuse_min: the plan's rule for fusing a level's sums into
   level 3 (gpu/part_sum.cuh, pscr_cuda_fused_eigs), which also sizes its
   items; 0: no fusion, 32 eigenpairs per item. */
static level_stats stats_of(const pscr_level *L, int n, int fuse_slots, int fuse_min)
{
  level_stats s;
  memset(&s, 0, sizeof s);
  s.nb = L->nblocks;
  s.nj = L->nj;
  s.direct = 1;
  s.acc_back = 3;
  int ne = 0;
  for (int b = 0; b < L->nblocks; b++)
    ne += L->blocks[b].last - L->blocks[b].first + 1;
  const int fe = pscr_cuda_fused_eigs(ne, fuse_slots, fuse_min);
  const int per = fe > 0 ? fe : PSCR_CUDA_ITEM_EIGS;
  s.fused = fe > 0;
  for (int b = 0; b < L->nblocks; b++) {
    const pscr_block *B = &L->blocks[b];
    const double m = B->last - B->first + 1;
    const int has_l = B->first > 0, has_r = B->last < n - 1;
    const double items = (double)((B->last - B->first + per) / per);
    s.ne += m;
    s.nd_sum += B->nd;
    if (B->nd > s.acc_back)
      s.acc_back = B->nd;
    s.nd_e_sum += m * B->nd;
    s.cpl_back += has_l + has_r;
    s.src_back += m * (B->nd + has_l + has_r);
    s.items += items;
    s.direct &= items == 1;
  }
  for (int q = 0; q < L->nj; q++)
    s.cpl_fwd += (L->jleft[q] >= 0) + (L->jright[q] >= 0);
  return s;
}

static void add(pscr_cost *c, double flops, double elems, double es, double launches)
{
  c->flops += flops;
  c->bytes += elems * es;
  c->launches += launches;
}

/* Flops of one plain Thomas solve of nl rows (k_thomas, cpu_solve_impl.h thomas). */
static double thomas_flops(const op_costs *o, double nl)
{
  /* Row 0: diag (fma), reciprocal, y = r * iv, e (fma), c = e * iv. */
  double first = 2 * o->fma + o->inv + 2 * o->mul;
  /* Rows 1..: tt, diag, piv, pivot test, reciprocal, y = (r - e y) iv, e, c. */
  double row = o->mul + o->fma + o->add + (2 * o->abs1 + 2) + o->inv + (o->fma + o->mul) +
               o->fma + o->mul;
  /* Back substitution: y -= c y_next. */
  return first + (nl - 1) * (row + o->fma);
}

/* Flops of one system in k_part (gpu/partition.cuh), P threads of M rows. */
static double partition_flops(const op_costs *o, int M, int P, int mdiag)
{
  /* c = a_off + s m_off per row: a load only when M_l is diagonal. */
  const double cf = mdiag ? 0 : o->fma;
  const double inner = M > 2 ? M - 2 : 0; /* interior rows k >= 1 */
  double log2p = 0;
  for (int q = 1; q < P; q <<= 1)
    log2p++;
  const double test2 = 2 * o->abs1 + 2, test3 = 3 * o->abs1 + 3;
  /* Interior row 0: bd, c (fma), piv, test, reciprocal, cp, ya, yb (mul). */
  double t = o->fma + cf + o->add + test2 + o->inv + 3 * o->mul;
  /* Interior rows k >= 1: bd, c, tt, piv, test, reciprocal, cp, ya (fma + mul), yb (2 mul). */
  t += inner * (2 * o->fma + cf + 5 * o->mul + o->add + test2 + o->inv);
  /* Back sweep for alpha0, beta0, gamma0. */
  t += inner * (2 * o->fma + o->mul);
  /* Boundary row bde, ce; Schur row Lr, t1, t2, Dr, test, Ur, Rr. */
  t += o->fma + cf + 4 * o->mul + 2 * o->add + test3 + 2 * o->fma;
  /* PCR steps: reciprocal, k1, k2, u1, u2, Dn, test, L, U, R. */
  t += log2p * (o->inv + 6 * o->mul + 2 * o->add + test3 + 2 * o->fma);
  /* X = R / D, then the interior rows back: M - 1 of them, 2 fma each. */
  t += o->inv + o->mul + (M - 1) * 2 * o->fma;
  /* P threads, and the coupling a of every thread but the first. */
  return P * t + (P - 1) * cf;
}

static void walk_dim(const cost_walk *w, int d, double B);

/*
 * The subproblems of one level (level_solve): at the last-but-one dimension
 * the level-3 launch; above it k_gather and the batched solve of dimension
 * d + 1.
 */
static void walk_level_solve(const cost_walk *w, int d, const level_stats *s, double B, int back)
{
  const pscr_plan *p = w->p;
  const op_costs *o = &w->op;
  const double S = (double)pscr_plan_slab(p, d), es = w->es;
  /* Sources: F_{d_q} once per block; gL, gR once per block in the back pass. */
  const double src = B * (s->nd_sum + (back ? 2 * s->nb : 0)) * S;
  const double nsys = B * s->ne;
  if (d == p->ndim - 2) {
    const double nl = p->n[d + 1];
    double rhs, solve, extra = 0;
    if (p->backend == PSCR_BACKEND_CPU) {
      /* group_run: v += w_q x_q for every source (F, gL, gR that exist). */
      rhs = B * (back ? s->src_back : s->nd_e_sum) * nl * o->fma;
    } else {
      /* k_part / k_thomas: r = w0 F0 (+ w1 F1 + w2 F2) (- wf gL - wl gR). */
      rhs = B * ((s->nd_e_sum - s->ne) * o->fma + s->ne * o->mul +
                 (back ? 2 * s->ne * o->fma : 0)) * nl;
      if (w->l3.rows == 0)
        rhs += nsys * nl * o->add; /* k_thomas accumulates from zero */
    }
    rhs += nsys * o->add; /* s = c_b + lambda_e */
    if (w->l3.rows > 0)
      solve = nsys * partition_flops(o, w->l3.rows, w->l3.threads, w->l3.mdiag);
    else
      solve = nsys * thomas_flops(o, nl);
    if (w->l3.serial_global)
      extra = nsys * nl * 4; /* v, cp written, read back; v rewritten (+ the write below) */
    if (s->fused) {
      /* k_part_sum: 2 (forward) or 3-4 (back) accumulations per row, and
         instead of the solutions the sums (direct) or the items' partial
         sums. */
      const double acc = back ? s->acc_back : 2, out = back ? s->nd_sum : 2 * s->nb;
      add(&w->cost[PSCR_STAGE_LEVEL3], rhs + solve + nsys * nl * acc * o->fma,
          src + B * (s->direct ? out : acc * s->items) * nl, es, 1);
      return;
    }
    add(&w->cost[PSCR_STAGE_LEVEL3], rhs + solve, src + nsys * nl + extra, es, 1);
    return;
  }
  /* k_gather: r = sum_q w_q F_{d_q} (- w_first gL - w_last gR) per slab
     entry, and the shift per subproblem. */
  const double gflops = B * (s->nd_e_sum + (back ? 2 * s->ne : 0)) * S * o->fma + nsys * o->add;
  add(&w->cost[PSCR_STAGE_GATHER], gflops, src + nsys * S + nsys, es, 1);
  walk_dim(w, d + 1, nsys);
}

/* The weighted sums of a level (level_reduce: k_reduce_items, k_reduce_sum). */
static void walk_level_reduce(const cost_walk *w, int d, const level_stats *s, double B, int back)
{
  const op_costs *o = &w->op;
  const double S = (double)pscr_plan_slab(w->p, d), es = w->es;
  const double out = back ? s->nd_sum : 2 * s->nb; /* u on D(B), or L_B | R_B */
  pscr_cost *c = &w->cost[PSCR_STAGE_SUMS];
  /* Per eigenpair and slab entry: 2 (forward) or 3-4 (back) accumulations. */
  const double acc = back ? s->acc_back : 2;
  const double f1 = B * s->ne * S * acc * o->fma;
  if (s->fused) { /* the first pass was level 3's */
    if (!s->direct)
      add(c, B * s->items * S * acc * o->add, B * (acc * s->items + out) * S, es, 1);
    return;
  }
  if (s->direct) {
    add(c, f1, B * (s->ne + out) * S, es, 1);
    return;
  }
  /* Partial sums per item: the accumulators. */
  add(c, f1, B * (s->ne + acc * s->items) * S, es, 1);
  /* Second pass: the sums of the block's items. */
  add(c, B * s->items * S * acc * o->add, B * (acc * s->items + out) * S, es, 1);
}

/*
 * One coupling T(j, p) y per slab entry (stencil.cuh couple): alpha, the
 * mass and stiffness stencils of the remaining dimensions, alpha mass +
 * beta stiff. Returns the flops over a whole slab.
 */
static double coupling_flops(const cost_walk *w, int d)
{
  const pscr_plan *p = w->p;
  const op_costs *o = &w->op;
  const double S = (double)pscr_plan_slab(p, d);
  double terms;
  double per_term;
  if (p->ndim - d - 1 == 1) {
    terms = 3.0 * p->n[d + 1] - 2; /* tridiagonal: mass and stiff, one fma each */
    per_term = 2 * o->fma;
  } else {
    terms = (3.0 * p->n[d + 1] - 2) * (3.0 * p->n[d + 2] - 2);
    per_term = 2 * o->mul + 3 * o->fma; /* (m2 m3) y; (a2 m3 + m2 a3) y */
  }
  return S * (o->fma + o->mul + o->fma) + terms * per_term;
}

static void walk_dim(const cost_walk *w, int d, double B)
{
  const pscr_plan *p = w->p;
  const pscr_levels *lv = &p->lv[d];
  const op_costs *o = &w->op;
  const double S = (double)pscr_plan_slab(p, d), es = w->es;
  pscr_cost *cpl = &w->cost[PSCR_STAGE_COUPLING];
  const double one = coupling_flops(w, d);
  const int fuse = p->backend == PSCR_BACKEND_CUDA && d == p->ndim - 2 && w->l3.rows > 0
                       ? p->level3_fuse_slots
                       : 0;

  for (int i = 1; i < lv->k; i++) {
    const level_stats s = stats_of(&lv->level[i - 1], p->n[d], fuse, p->level3_fuse_min);
    if (s.nb == 0)
      continue;
    walk_level_solve(w, d, &s, B, 0);
    walk_level_reduce(w, d, &s, B, 0);
    if (s.nj > 0) {
      /* k_couple_fwd: acc += couple (each existing side), x_j -= acc. */
      const double flops = B * (s.cpl_fwd * (one + S * o->add) + s.nj * S * o->add);
      add(cpl, flops, B * (s.cpl_fwd + 2 * s.nj) * S, es, 1);
    }
  }
  for (int i = lv->k; i >= 1; i--) {
    level_stats s = stats_of(&lv->level[i - 1], p->n[d], fuse, p->level3_fuse_min);
    if (s.nb == 0)
      continue;
    /* The items stay those of the fused sizing. */
    s.fused = s.fused && p->level3_fuse_back >= (s.acc_back > 3 ? 2 : 1);
    /* k_couple_back: gL, gR of every block (zeros where no neighbour). */
    add(cpl, B * s.cpl_back * one, B * (s.cpl_back + 2 * s.nb) * S, es, 1);
    walk_level_solve(w, d, &s, B, 1);
    walk_level_reduce(w, d, &s, B, 1);
  }
}

void pscr_cost_model(const pscr_plan *p, pscr_cost *cost, pscr_cost *total, double *min_bytes)
{
  cost_walk w;
  memset(&w, 0, sizeof w);
  memset(cost, 0, PSCR_STAGE_COUNT * sizeof *cost);
  w.p = p;
  w.cost = cost;
  w.es = (double)p->elem;
  const int cplx = p->dtype == PSCR_C64 || p->dtype == PSCR_C32;
  w.op = cplx ? (op_costs){2, 6, 8, 9, 1} : (op_costs){1, 1, 2, 1, 0};
  w.l3.rows = p->level3_rows;
  w.l3.threads = p->level3_threads;
  w.l3.mdiag = p->level3_mdiag;
  w.l3.serial_global = p->backend == PSCR_BACKEND_CUDA && p->level3_rows == 0;
  const double N = (double)p->total;
  /* CPU: copy f to u (a solve out of place), clear the pivot flag, test
     it. CUDA: none of these (the first level reads f; the flag is the
     plan's, probed at setup), but the NaN fill of a plan whose pivots
     fail. */
  if (p->backend == PSCR_BACKEND_CPU)
    add(&cost[PSCR_STAGE_OTHER], 0, 2 * N, w.es, 3);
  else if (p->cuda_nan_fill)
    add(&cost[PSCR_STAGE_OTHER], 0, 2 * N, w.es, 1);
  walk_dim(&w, 0, 1);
  memset(total, 0, sizeof *total);
  for (int k = 0; k < PSCR_STAGE_COUNT; k++) {
    total->flops += cost[k].flops;
    total->bytes += cost[k].bytes;
    total->launches += cost[k].launches;
  }
  *min_bytes = 2 * N * w.es;
}

/* Counted by the forward reduction, which fuses whenever the back
   substitution does (level3_fuse_back says whether it does). */
int pscr_cost_fused_levels(const pscr_plan *p)
{
  if (p->backend != PSCR_BACKEND_CUDA || p->level3_rows == 0 || p->ndim < 2)
    return 0;
  const int d = p->ndim - 2;
  int count = 0;
  for (int i = 0; i < p->lv[d].k; i++) {
    const level_stats s =
        stats_of(&p->lv[d].level[i], p->n[d], p->level3_fuse_slots, p->level3_fuse_min);
    count += s.nb > 0 && s.fused;
  }
  return count;
}
