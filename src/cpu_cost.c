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

/*
 * The planner's rates per thread, measured on the 2-core AMD EPYC VM
 * (docs/performance.md): OpenBLAS's DGEMM ran the products of 2D 2047^2 at
 * 63 GFLOP/s per core (single precision twice that; complex products count
 * 8 flops per multiply-add, which ZGEMM runs at about the same rate), and
 * the reduction's passes moved 6.3-7.2 GB/s per thread (2D 2047^2, 3D
 * 127^3). With them the model chose as the measurements did on that VM at
 * 2D 127^2, 1023^2, 2047^2 and 3D 31^3, 63^3, 127^3 (2D 511^2: the
 * transform measured 25% faster, the model has it 40% slower).
 */
#define PSCR_CPU_PRODUCT_RATE 60e9
#define PSCR_CPU_BYTE_RATE 6.5e9
/* The sine transforms (sine.h) per thread, in the model's flops (5 N
   log2(2 N) per column): 46-48 GFLOP/s measured on the 2-core VM (2D
   1023^2 dimension 1, 3D 127^3 dimensions 1 and 2, one thread; float about
   twice), taken a little lower for hosts whose threads share the memory. */
#define PSCR_CPU_SINE_RATE 30e9

void pscr_cpu_cost_rules(const pscr_plan *p, pscr_cost_rules *rules)
{
  const double threads = p->nthreads > 0 ? p->nthreads : 1;
  *rules = (pscr_cost_rules){NULL,
                             cpu_items,
                             NULL,
                             cpu_level3,
                             cpu_other,
                             PSCR_CPU_PRODUCT_RATE * threads * (p->single ? 2 : 1),
                             PSCR_CPU_BYTE_RATE * threads,
                             0.0, /* the rows' chains interleave PSCR_LANES systems in cache */
                             0.0, /* a phase hands out items, no launch */
                             pscr_cpu_sine,
                             PSCR_CPU_SINE_RATE * threads * (p->single ? 2 : 1),
                             NULL};
}
