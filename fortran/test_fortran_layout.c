/*
 * test_fortran's view of the C structs: the size and field offsets of each
 * struct that fortran/pscr.f90 mirrors as a bind(C) type, as the C compiler
 * lays them out, in the order test_fortran.f90 lists its own.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stddef.h>

#include "pscr.h"

int pscr_ftest_layout(size_t *out, int cap);

int pscr_ftest_layout(size_t *out, int cap)
{
  const size_t v[] = {
    sizeof(pscr_options),
    offsetof(pscr_options, size),
    offsetof(pscr_options, backend),
    offsetof(pscr_options, device),
    offsetof(pscr_options, num_threads),
    offsetof(pscr_options, check_finite),
    offsetof(pscr_options, cuda_rows_per_thread),
    offsetof(pscr_options, max_batch),
    offsetof(pscr_options, flags),
    offsetof(pscr_options, method),
    offsetof(pscr_options, planner),
    offsetof(pscr_options, refine),
    sizeof(pscr_pencil),
    offsetof(pscr_pencil, n),
    offsetof(pscr_pencil, a_diag),
    offsetof(pscr_pencil, a_off),
    offsetof(pscr_pencil, m_diag),
    offsetof(pscr_pencil, m_off),
    sizeof(pscr_cost),
    sizeof(pscr_candidate),
    offsetof(pscr_candidate, status),
    offsetof(pscr_candidate, reason),
    offsetof(pscr_candidate, estimate_seconds),
    offsetof(pscr_candidate, measured_seconds),
    sizeof(pscr_info),
    offsetof(pscr_info, dtype),
    offsetof(pscr_info, n),
    offsetof(pscr_info, eigenpairs),
    offsetof(pscr_info, device_bytes),
    offsetof(pscr_info, level3_rows_per_thread),
    offsetof(pscr_info, cuda_early_launch),
    offsetof(pscr_info, cost),
    offsetof(pscr_info, cost_total),
    offsetof(pscr_info, min_bytes),
    offsetof(pscr_info, method),
    offsetof(pscr_info, transform_defect),
    offsetof(pscr_info, ncandidates),
    offsetof(pscr_info, chosen),
    offsetof(pscr_info, candidate),
    offsetof(pscr_info, plan_seconds),
    offsetof(pscr_info, transform_sine),
  };
  const int n = (int)(sizeof v / sizeof v[0]);
  for (int i = 0; i < n && i < cap; i++)
    out[i] = v[i];
  return n;
}
