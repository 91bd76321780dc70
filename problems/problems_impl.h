/* Private helpers shared by the problem builders (problems/). */
#ifndef PSCR_PROBLEMS_IMPL_H
#define PSCR_PROBLEMS_IMPL_H

#include "pscr.h"

/* pi to double precision; M_PI is not strict C11. */
#define PSCR_PI 3.14159265358979323846264338327950288

/*
 * Mesh steps of pscr_mesh_uniform (grading == 0) or pscr_mesh_graded, without
 * argument checks or touching the error state: the caller has validated
 * nsteps >= 1, h != NULL, length > 0 finite, grading in [0, 1).
 * Returns PSCR_ERROR_INVALID_VALUE (with a message) only when rounding makes
 * a step non-positive (grading too close to 1 for nsteps).
 */
pscr_status pscr_mesh_steps_(int nsteps, double length, double grading, double *h);

#endif
