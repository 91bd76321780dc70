/*
 * The CUDA backend's data in a plan (plan->backend_data), shared by the C
 * side of the backend: cuda_glue.c (the ops table) and cuda_cost.c (its
 * cost rules).
 */
#ifndef PSCR_CUDA_BACKEND_H
#define PSCR_CUDA_BACKEND_H

#include "cost.h"
#include "cuda_view.h"

struct pscr_plan;

typedef struct pscr_cuda_backend_data {
  void *state;               /* the device state (cuda_state.cuh) */
  void *tf;                  /* or, for a transform plan, cuda_transform.h's */
  void *refine;              /* options.refine > 0: cuda_refine.h's */
  pscr_cuda_choices choices; /* what it chose, read after setup and upload */
} pscr_cuda_backend_data;

/* Whether dimension d's transform runs by the fast sine transform on the
   device (gpu/sine.cuh): a 2D transform plan whose first pencil qualifies
   (pscr_plan_sine_fast) and whose transposes fit one grid (cuda_cost.c). */
int pscr_cuda_sine(const struct pscr_plan *p, int d);

/* The cost model's rules for a CUDA plan (cuda_cost.c). */
void pscr_cuda_cost_rules(const struct pscr_plan *p, pscr_cost_rules *rules);

#endif
