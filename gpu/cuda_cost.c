/*
 * The CUDA backend's answers to the cost model (src/cost.h): what its
 * launches do with a level, each count naming the kernel line it models, so
 * that a change to a kernel shows here as a change to one formula. The
 * profiled solve (pscr_solve_device_profile) checks that the solve makes
 * exactly the launches counted. A transformed dimension (every one of them,
 * cuda_transform.cu, or one of a mixed 3D vector, cuda_solve.cu) is counted
 * by the walk itself (src/cost.c, walk_transform: its products and the
 * Thomas pass of its rows); these rules count the reduced dimensions, T x
 * R's dimension 2 at level 3 like R x R's. Before setup (the planner) they
 * know no level-3 choice and count plain Thomas.
 */
#include "cuda_backend.h"
#include "cuda_transform.h"
#include "plan.h"

/* Reduction items of PSCR_CUDA_ITEM_EIGS eigenpairs (levels_kernels.cuh),
   or, on the levels whose sums level 3 adds up (2D, k_part_sum in
   part_sum.cuh), of pscr_cuda_fused_eigs. */
static int cuda_items(const void *ctx, const pscr_plan *p, int d, int ne, int *fused)
{
  const pscr_cuda_choices *c = ctx;
  const int slots = d == p->ndim - 2 && c->rows > 0 ? c->fuse_slots : 0;
  const int fe = pscr_cuda_fused_eigs(ne, slots, c->fuse_min);
  *fused = fe > 0;
  return fe > 0 ? fe : PSCR_CUDA_ITEM_EIGS;
}

/* The back substitution's fused kernel keeps 3 sums per row (fuse_back 1),
   or also the merged top level's 4 (fuse_back 2). */
static int cuda_fuse_back(const void *ctx, int acc_back)
{
  const pscr_cuda_choices *c = ctx;
  return c->fuse_back >= (acc_back > 3 ? 2 : 1);
}

/* Flops of one system in k_part (partition.cuh), P threads of M rows. */
static double partition_flops(const pscr_op_costs *o, int M, int P, int mdiag)
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
  /* PCR steps: reciprocal, k1, k2, u1, u2, Dn, test, L, U, R; twice (the
     refinement step of the boundary system), with X = R / D each time and
     the residual between (3 fma, an add). The kernel skips the step for
     systems whose boundary rows are all dominant (most of Poisson's), which
     depends on the data: counted for every system, an upper bound. */
  t += 2 * log2p * (o->inv + 6 * o->mul + 2 * o->add + test3 + 2 * o->fma);
  t += 2 * (o->inv + o->mul) + 3 * o->fma + 2 * o->add;
  /* The interior rows back: M - 1 of them, 2 fma each. */
  t += (M - 1) * 2 * o->fma;
  /* P threads, and the coupling a of every thread but the first. */
  return P * t + (P - 1) * cf;
}

/* k_part / k_thomas: r = w0 F0 (+ w1 F1 + w2 F2) (- wf gL - wl gR), the
   shift, the solve; with k_part_sum the sums instead of the solutions. */
static void cuda_level3(const void *ctx, const pscr_level3_pass *t, double *flops, double *elems)
{
  const pscr_cuda_choices *c = ctx;
  const pscr_op_costs *o = t->op;
  const pscr_level_stats *s = t->s;
  const double nl = t->nl, nsys = t->nsys, B = t->B;
  double rhs = B * ((s->nd_e_sum - s->ne) * o->fma + s->ne * o->mul +
                    (t->back ? 2 * s->ne * o->fma : 0)) * nl;
  if (c->rows == 0)
    rhs += nsys * nl * o->add; /* k_thomas accumulates from zero */
  rhs += nsys * o->add;        /* s = c_b + lambda_e */
  const double solve = c->rows > 0 ? nsys * partition_flops(o, c->rows, c->threads, c->mdiag)
                                   : nsys * pscr_thomas_flops(o, nl);
  if (s->fused) {
    /* k_part_sum: 2 (forward) or 3-4 (back) accumulations per row, and
       instead of the solutions the sums (direct) or the items' partial
       sums. */
    const double acc = t->back ? s->acc_back : 2, out = t->back ? s->nd_sum : 2 * s->nb;
    *flops = rhs + solve + nsys * nl * acc * o->fma;
    *elems = B * (s->direct ? out : acc * s->items) * nl;
    return;
  }
  /* The serial path keeps its intermediates in global memory: v, cp
     written, read back; v rewritten (besides the solutions' write). */
  const double extra = c->rows == 0 ? nsys * nl * 4 : 0;
  *flops = rhs + solve;
  *elems = nsys * nl + extra;
}

/* No copy of f (the first level reads it) and no flag to clear (the
   plan's, probed at setup); the NaN fill of a plan whose pivots fail. */
static void cuda_other(const void *ctx, double N, double es, pscr_cost *o)
{
  const pscr_cuda_choices *c = ctx;
  if (c->nan_fill) {
    o->bytes += 2 * N * es;
    o->launches += 1;
  }
}

int pscr_cuda_sine(const pscr_plan *p, int d)
{
  if (p->ndim != 2 || d != 0 || p->method[0] != PSCR_METHOD_TRANSFORM ||
      !pscr_plan_sine_fast(p, 0))
    return 0;
  return pscr_cuda_sine_fits(p->n[0], (size_t)p->n[1] * (p->cplx ? 2 : 1));
}

/* The Thomas pass after a transformed dimension d: gpu/tf_part.cuh's
   partitioned solver takes a real 2D sine plan's systems where
   pscr_cuda_tf_part_steps serves their length (unless
   PSCR_FLAG_CUDA_TF_NO_PARTITION). It also wants strictly dominant
   systems, checked at upload; the planner assumes them (Poisson's are).
   Else a thread per system: 2 nl. */
static double cuda_chain_steps(const pscr_plan *p, int d, double nl)
{
  const double part = !p->cplx && pscr_cuda_sine(p, d) &&
                              !(p->opts.flags & PSCR_FLAG_CUDA_TF_NO_PARTITION)
                          ? pscr_cuda_tf_part_steps((int)nl)
                          : 0.0;
  return part > 0 ? part : 2 * nl;
}

void pscr_cuda_cost_rules(const pscr_plan *p, pscr_cost_rules *rules)
{
  /* Before setup (the planner weighs method vectors before the backend
     sets up the chosen one): the choices of no setup, plain Thomas. */
  static const pscr_cuda_backend_data none;
  const pscr_cuda_backend_data *b = p->backend_data ? p->backend_data : &none;
  /* The planner's rates on an H100 (docs/performance.md): DGEMM on the
     FP64 tensor cores at these shapes, the memory's bandwidth, and a step
     of the transform's Thomas chain (a thread per system, its loads
     TF_CHUNK rows ahead; 2D 1023^2: 0.35 ms, nearly all of it the chain of
     2046 steps), and a launch (3D 64^3: transform x reduction,
     about 26 launches, measured 80 us above its bytes). */
  /* A 2D sine pencil's transforms by cuFFT (pscr_cuda_sine), at the rate
     of sine.cuh's passes in the model's flops; every other transform by
     cuBLAS products. The step fit 2D uniform Poisson 4095^2 and 8191^2
     transformed by plain Thomas on an H200 (0.085 us, rounded down so
     that 1023^2, then the closest call, took the faster transform). The
     sine rate fits the paired complex FFTs with the partitioned solver
     (cuda_chain_steps), whose pass is then bound by its bytes: 2.3 to 2.9
     TFLOP/s from 1023^2 to 8191^2 on an H200, taken as 2.5
     (docs/performance.md, the planner's rates). */
  *rules = (pscr_cost_rules){&b->choices, cuda_items,  cuda_fuse_back, cuda_level3, cuda_other,
                             45e12,       3.0e12,      0.08e-6,        3e-6,        pscr_cuda_sine,
                             2.5e12,      cuda_chain_steps};
}
