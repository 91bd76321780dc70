/*
 * The CPU backend's answers to the cost model (cost.h): what cpu_solve.c's
 * loops do with a level. The CPU runs the stages as OpenMP loops; its
 * "launches" count the same passes a device would make.
 */
#include "backend.h"

#include "plan.h"

/* Work items of PSCR_ITEM_EIGS eigenpairs (levels.h); level 3 never adds
   up the sums itself. */
static int cpu_items(const void *ctx, const pscr_plan *p, int d, int ne, int *fused)
{
  (void)ctx;
  (void)p;
  (void)d;
  (void)ne;
  *fused = 0;
  return PSCR_ITEM_EIGS;
}

/* group_run: v += w_q x_q for every source (F, and gL, gR where they
   exist), the shift per system, then Thomas (thomas in cpu_solve_impl.h). */
static void cpu_level3(const void *ctx, const pscr_level3_pass *t, double *flops, double *elems)
{
  (void)ctx;
  const pscr_op_costs *o = t->op;
  const pscr_level_stats *s = t->s;
  double rhs = t->B * (t->back ? s->src_back : s->nd_e_sum) * t->nl * o->fma;
  rhs += t->nsys * o->add; /* s = c_b + lambda_e */
  *flops = rhs + t->nsys * pscr_thomas_flops(o, t->nl);
  *elems = t->nsys * t->nl;
}

/* Copy f to u (a solve out of place), clear the pivot flag, test it. */
static void cpu_other(const void *ctx, double N, double es, pscr_cost *c)
{
  (void)ctx;
  c->bytes += 2 * N * es;
  c->launches += 3;
}

void pscr_cpu_cost_rules(const pscr_plan *p, pscr_cost_rules *rules)
{
  (void)p;
  *rules = (pscr_cost_rules){NULL, cpu_items, NULL, cpu_level3, cpu_other};
}
