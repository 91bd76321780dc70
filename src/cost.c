/*
 * Cost model of one solve of one right-hand side (pscr_info.cost; a batch of
 * K does K times the flops and bytes, and on the CUDA backend the launches
 * of one solve per group of max_batch): floating-point operations and
 * global-memory bytes per stage kind, counted by walking the plan's level
 * structure in the order every backend runs it (forward reduction, then
 * back substitution; docs/design.md). What a backend's launches do with a
 * level (its reduction items, its level-3 kernel, its other work) comes
 * from its rules (cost.h), each of which names the kernel it models.
 *
 * Bytes: each kernel reads every distinct vector-sized element it needs once
 * and writes every element it produces once; O(n) tables are not counted.
 */
#include "cost.h"

#include <math.h>
#include <string.h>

#include "plan.h"

typedef struct cost_walk {
  const pscr_plan *p;
  const pscr_cost_rules *rules;
  pscr_op_costs op;
  double es;       /* bytes per element */
  pscr_cost *cost; /* PSCR_STAGE_COUNT entries */
  /* The dense transforms' products (flops, bytes), their Thomas pass
     (bytes, and the longest chain of dependent steps of one system)
     and the sine transforms' flops; NULL: not wanted. */
  double *product;
} cost_walk;

/* The counts of level L of dimension d (n entries), its items sized by the
   backend's rules. */
static pscr_level_stats stats_of(const cost_walk *w, const pscr_level *L, int d, int n)
{
  pscr_level_stats s;
  memset(&s, 0, sizeof s);
  s.nb = L->nblocks;
  s.nj = L->nj;
  s.direct = 1;
  s.acc_back = 3;
  int ne = 0;
  for (int b = 0; b < L->nblocks; b++)
    ne += L->blocks[b].last - L->blocks[b].first + 1;
  const int per = w->rules->items(w->rules->ctx, w->p, d, ne, &s.fused);
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

double pscr_thomas_flops(const pscr_op_costs *o, double nl)
{
  /* Row 0: diag (fma), reciprocal, y = r * iv, e (fma), c = e * iv. */
  double first = 2 * o->fma + o->inv + 2 * o->mul;
  /* Rows 1..: tt, diag, piv, pivot test, reciprocal, y = (r - e y) iv, e, c. */
  double row = o->mul + o->fma + o->add + (2 * o->abs1 + 2) + o->inv + (o->fma + o->mul) +
               o->fma + o->mul;
  /* Back substitution: y -= c y_next. */
  return first + (nl - 1) * (row + o->fma);
}

static void walk_dim(const cost_walk *w, int d, double B);

/*
 * The subproblems of one level: at the last-but-one dimension the level-3
 * launch (the backend's rules); above it the gather of the 2D subproblems'
 * right-hand sides and the batched solve of dimension d + 1.
 */
static void walk_level_solve(const cost_walk *w, int d, const pscr_level_stats *s, double B,
                             int back)
{
  const pscr_plan *p = w->p;
  const pscr_op_costs *o = &w->op;
  const double S = (double)pscr_plan_slab(p, d), es = w->es;
  /* Sources: F_{d_q} once per block; gL, gR once per block in the back pass. */
  const double src = B * (s->nd_sum + (back ? 2 * s->nb : 0)) * S;
  const double nsys = B * s->ne;
  if (d == p->ndim - 2) {
    const pscr_level3_pass pass = {o, s, B, p->n[d + 1], nsys, back};
    double flops = 0, elems = 0;
    w->rules->level3(w->rules->ctx, &pass, &flops, &elems);
    add(&w->cost[PSCR_STAGE_LEVEL3], flops, src + elems, es, 1);
    return;
  }
  /* Gather: r = sum_q w_q F_{d_q} (- w_first gL - w_last gR) per slab
     entry, and the shift per subproblem. */
  const double gflops = B * (s->nd_e_sum + (back ? 2 * s->ne : 0)) * S * o->fma + nsys * o->add;
  add(&w->cost[PSCR_STAGE_GATHER], gflops, src + nsys * S + nsys, es, 1);
  walk_dim(w, d + 1, nsys);
}

/* The weighted sums of a level: one pass where every block is one item,
   else partial sums per item and a second pass over the items. */
static void walk_level_reduce(const cost_walk *w, int d, const pscr_level_stats *s, double B,
                              int back)
{
  const pscr_op_costs *o = &w->op;
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
 * One coupling T(j, p) y per slab entry (eq. 27): alpha, the mass and
 * stiffness stencils of the remaining dimensions, alpha mass + beta stiff.
 * Returns the flops over a whole slab.
 */
static double coupling_flops(const cost_walk *w, int d)
{
  const pscr_plan *p = w->p;
  const pscr_op_costs *o = &w->op;
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

/*
 * A transformed dimension (PSCR_METHOD_TRANSFORM): two products E X and
 * E^T G of an n x n matrix with n x S ones, counted as weighted sums (n
 * multiply-adds per output entry; bytes: X, G and E once each), around the
 * n subproblems of the remaining dimensions: at the last dimension plain
 * Thomas solves of the rows (the CPU's solver), deeper B n solves of
 * dimension d + 1.
 */
static void walk_transform(const cost_walk *w, int d, double B)
{
  const pscr_plan *p = w->p;
  const pscr_op_costs *o = &w->op;
  const double n = p->n[d], S = (double)pscr_plan_slab(p, d), es = w->es;
  const int sine = w->rules->sine && w->rules->sine(p, d);
  for (int k = 0; k < 2 && sine; k++) {
    /* The fast sine transform (sine.h): one read and one write of the
       data; the flops of a complex FFT of 2 N points per two real
       columns (complex data: two real columns per entry). */
    const double N = n + 1, cols = B * S * (o->add == 2 ? 2 : 1);
    const double flops = cols * 5 * N * log2(2 * N);
    add(&w->cost[PSCR_STAGE_SUMS], flops, B * 2 * n * S, es, 1);
    if (w->product)
      w->product[4] += flops;
  }
  for (int k = 0; k < 2 && !sine; k++) {
    add(&w->cost[PSCR_STAGE_SUMS], B * n * n * S * o->fma, B * 2 * n * S + n * n, es, 1);
    if (w->product) {
      w->product[0] += B * n * n * S * o->fma;
      w->product[1] += (B * 2 * n * S + n * n) * es;
    }
  }
  if (d + 1 == p->ndim - 1) {
    const double nsys = B * n, nl = p->n[d + 1];
    /* The shift of each row's pencil, then Thomas; rows read and written. */
    const double flops = nsys * (nl * 2 * o->fma + pscr_thomas_flops(o, nl));
    add(&w->cost[PSCR_STAGE_LEVEL3], flops, 2 * nsys * nl, es, 1);
    if (w->product) {
      const double steps = w->rules->chain_steps ? w->rules->chain_steps(p, d, nl) : 2 * nl;
      w->product[2] += 2 * nsys * nl * es;
      if (steps > w->product[3])
        w->product[3] = steps;
    }
    return;
  }
  walk_dim(w, d + 1, B * n);
}

static void walk_dim(const cost_walk *w, int d, double B)
{
  const pscr_plan *p = w->p;
  if (p->method[d] == PSCR_METHOD_TRANSFORM) {
    walk_transform(w, d, B);
    return;
  }
  const pscr_levels *lv = &p->lv[d];
  const pscr_op_costs *o = &w->op;
  const double S = (double)pscr_plan_slab(p, d), es = w->es;
  pscr_cost *cpl = &w->cost[PSCR_STAGE_COUPLING];
  const double one = coupling_flops(w, d);

  for (int i = 1; i < lv->k; i++) {
    const pscr_level_stats s = stats_of(w, &lv->level[i - 1], d, p->n[d]);
    if (s.nb == 0)
      continue;
    walk_level_solve(w, d, &s, B, 0);
    walk_level_reduce(w, d, &s, B, 0);
    if (s.nj > 0) {
      /* Forward update: acc += couple (each existing side), x_j -= acc. */
      const double flops = B * (s.cpl_fwd * (one + S * o->add) + s.nj * S * o->add);
      add(cpl, flops, B * (s.cpl_fwd + 2 * s.nj) * S, es, 1);
    }
  }
  for (int i = lv->k; i >= 1; i--) {
    pscr_level_stats s = stats_of(w, &lv->level[i - 1], d, p->n[d]);
    if (s.nb == 0)
      continue;
    /* The items stay those of the forward sizing. */
    s.fused = s.fused && w->rules->fuse_back && w->rules->fuse_back(w->rules->ctx, s.acc_back);
    /* Back couplings: gL, gR of every block (zeros where no neighbour). */
    add(cpl, B * s.cpl_back * one, B * (s.cpl_back + 2 * s.nb) * S, es, 1);
    walk_level_solve(w, d, &s, B, 1);
    walk_level_reduce(w, d, &s, B, 1);
  }
}

static void walk_init(cost_walk *w, const pscr_plan *p, const pscr_cost_rules *rules,
                      pscr_cost *cost)
{
  memset(w, 0, sizeof *w);
  w->p = p;
  w->rules = rules;
  w->cost = cost;
  w->es = (double)p->elem;
  const int cplx = p->dtype == PSCR_C64 || p->dtype == PSCR_C32;
  w->op = cplx ? (pscr_op_costs){2, 6, 8, 9, 1} : (pscr_op_costs){1, 1, 2, 1, 0};
}

void pscr_cost_model(const pscr_plan *p, const pscr_cost_rules *rules, pscr_cost *cost,
                     pscr_cost *total, double *min_bytes)
{
  cost_walk w;
  memset(cost, 0, PSCR_STAGE_COUNT * sizeof *cost);
  walk_init(&w, p, rules, cost);
  const double N = (double)p->total;
  rules->other(rules->ctx, N, w.es, &cost[PSCR_STAGE_OTHER]);
  walk_dim(&w, 0, 1);
  memset(total, 0, sizeof *total);
  for (int k = 0; k < PSCR_STAGE_COUNT; k++) {
    total->flops += cost[k].flops;
    total->bytes += cost[k].bytes;
    total->launches += cost[k].launches;
  }
  *min_bytes = 2 * N * w.es;
}

double pscr_cost_seconds(const pscr_plan *p, const pscr_cost_rules *rules)
{
  pscr_cost cost[PSCR_STAGE_COUNT];
  cost_walk w;
  memset(cost, 0, sizeof cost);
  double product[5] = {0, 0, 0, 0, 0};
  walk_init(&w, p, rules, cost);
  w.product = product;
  rules->other(rules->ctx, (double)p->total, w.es, &cost[PSCR_STAGE_OTHER]);
  walk_dim(&w, 0, 1);
  double bytes = -product[1] - product[2], launches = 0;
  for (int k = 0; k < PSCR_STAGE_COUNT; k++) {
    bytes += cost[k].bytes;
    launches += cost[k].launches;
  }
  /* A transform's Thomas pass takes at least its chain of dependent steps:
     with few systems (2D: n1 of them) the latency, not the bytes, bounds
     it. */
  const double thomas = product[2] / rules->byte_rate, chain = product[3] * rules->step_seconds;
  const double sine = product[4] > 0 ? product[4] / rules->sine_rate : 0;
  return product[0] / rules->product_rate + bytes / rules->byte_rate + sine +
         (thomas > chain ? thomas : chain) + launches * rules->launch_seconds;
}

/* Counted by the forward reduction, which fuses whenever the back
   substitution does. */
int pscr_cost_fused_levels(const pscr_plan *p, const pscr_cost_rules *rules)
{
  pscr_cost scratch[PSCR_STAGE_COUNT];
  cost_walk w;
  walk_init(&w, p, rules, scratch);
  const int d = p->ndim - 2;
  int count = 0;
  for (int i = 0; i < p->lv[d].k; i++) {
    const pscr_level_stats s = stats_of(&w, &p->lv[d].level[i], d, p->n[d]);
    count += s.nb > 0 && s.fused;
  }
  return count;
}
