/*
 * The cost model of one solve (pscr_info.cost): cost.c walks the plan's
 * level structure, which every backend shares; the backend answers, through
 * the rules below, what its launches do with a level (how it groups
 * eigenpairs into reduction items, what its level-3 kernel computes and
 * writes). The operation costs and the counts of a level are shared here so
 * that a backend's rules can use them.
 */
#ifndef PSCR_COST_H
#define PSCR_COST_H

#include "levels.h"
#include "pscr.h"

struct pscr_plan;

/* Flops of one operation (pscr.h, pscr_cost): real +, -, *, reciprocal 1,
   FMA 2; complex + 2, * 6, a*b + c 8, reciprocal 9 (the scaled formula:
   two scalings, |x|^2, one division, two products), |.|_1 1 (one add; fabs
   is free). A pivot test |piv| > eps (|a| + |b|) costs its |.|_1 terms plus
   two real operations. */
typedef struct pscr_op_costs {
  double add, mul, fma, inv, abs1;
} pscr_op_costs;

/* Counts of one level that the formulas need. */
typedef struct pscr_level_stats {
  double nb, ne, nj;
  double cpl_fwd;  /* couplings of the forward update: J_i entries' left + right blocks */
  double cpl_back; /* gL, gR that exist: blocks with first > 0, blocks with last < n-1 */
  double nd_sum;   /* sum over blocks of |D(B)| */
  double nd_e_sum; /* sum over eigenpairs of their block's |D(B)| */
  double items;    /* reduction items (the backend's rules size them) */
  double src_back; /* back substitution: sources per eigenpair, nd + (gL) + (gR) */
  int acc_back;    /* back accumulators per entry: 3, or 4 with |D(B)| = 4 (levels.h) */
  int direct;      /* every block is one item: one reduction pass */
  int fused;       /* level 3 adds up the sums of this pass itself */
} pscr_level_stats;

/* One level-3 launch, as the walk hands it to the backend: nsys systems of
   nl rows (the last dimension), B outer subproblems of the level's blocks. */
typedef struct pscr_level3_pass {
  const pscr_op_costs *op;
  const pscr_level_stats *s;
  double B, nl, nsys;
  int back; /* back substitution (sources include gL, gR) or forward reduction */
} pscr_level3_pass;

typedef struct pscr_cost_rules {
  const void *ctx; /* the backend's data, passed back to every rule */
  /* Eigenpairs per reduction item at a level of ne eigenpairs of dimension
     d, and (*fused) whether its level-3 launch adds up the forward sums. */
  int (*items)(const void *ctx, const struct pscr_plan *p, int d, int ne, int *fused);
  /* Whether a fused level also fuses its back substitution, whose blocks
     keep acc_back sums per entry. NULL: never. */
  int (*fuse_back)(const void *ctx, int acc_back);
  /* Flops of the level-3 launch and the elements it writes or keeps in
     global memory besides reading its sources (which the walk counts). */
  void (*level3)(const void *ctx, const pscr_level3_pass *pass, double *flops, double *elems);
  /* PSCR_STAGE_OTHER of one solve of N elements of es bytes. */
  void (*other)(const void *ctx, double N, double es, pscr_cost *other);
  /* The planner's rates (pscr_cost_seconds): flops per second of a dense
     transform's products, bytes per second of every other stage, and the
     seconds of one dependent step of a transform's Thomas chain (the
     latency of a load and an update), and the seconds each launch (a
     kernel, a product, a pass of the CPU's team) adds beyond its bytes.
     Measured per device kind (docs/performance.md). */
  double product_rate, byte_rate, step_seconds, launch_seconds;
  /* Whether the backend applies dimension d's transform by the fast sine
     transform (sine.h) instead of the products, and the flops per second of
     its passes (counted as 5 N log2(2 N) per real column of order n, N = n
     + 1: a complex FFT of 2 N points per two columns). NULL: never. */
  int (*sine)(const struct pscr_plan *p, int d);
  double sine_rate;
  /* The dependent steps of one system's chain in the Thomas pass of nl
     rows that follows transformed dimension d (the pass is timed at the
     byte rate or at step_seconds per step, whichever is longer). NULL:
     plain Thomas, 2 nl. */
  double (*chain_steps)(const struct pscr_plan *p, int d, double nl);
} pscr_cost_rules;

/* The cost of one solve per stage kind, their sum, and the least traffic of
   any solve (read f, write u). */
void pscr_cost_model(const struct pscr_plan *p, const pscr_cost_rules *rules, pscr_cost *cost,
                     pscr_cost *total, double *min_bytes);

/* The planner's estimate of one solve in seconds: the dense transforms'
   products at rules->product_rate, every other byte of the model at
   rules->byte_rate (the reduction is memory-bound), a transform's Thomas
   pass at the byte rate or its chain (rules->chain_steps, else 2 n_last
   steps) at rules->step_seconds, whichever is longer, and
   rules->launch_seconds per launch. */
double pscr_cost_seconds(const struct pscr_plan *p, const pscr_cost_rules *rules);

/* Levels of dimension ndim-2 whose forward sums level 3 adds up. */
int pscr_cost_fused_levels(const struct pscr_plan *p, const pscr_cost_rules *rules);

/* Flops of one plain Thomas solve of nl rows (the CPU solver, CUDA's serial
   path). */
double pscr_thomas_flops(const pscr_op_costs *o, double nl);

#endif
