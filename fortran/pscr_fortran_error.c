/*
 * The Fortran module's own error detail (fortran/pscr.f90). The module
 * finds a few errors before it calls the library: a shift whose Fortran type
 * is not the dtype's, fewer pencils than ndim, an array shorter than a
 * builder writes. It keeps their message here, thread-local like the
 * library's pscr_last_error(); every module procedure that calls the
 * library clears it first, and the module's pscr_last_error() returns it
 * when it is set, the library's detail otherwise.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <stdio.h>

/* Called from the module only: not part of the library's API. */
void pscr_fortran_error_clear(void);
void pscr_fortran_error_set(const char *msg);
const char *pscr_fortran_error_get(void);

static _Thread_local char pscr_fortran_detail[512];

void pscr_fortran_error_clear(void) { pscr_fortran_detail[0] = '\0'; }

void pscr_fortran_error_set(const char *msg)
{
  snprintf(pscr_fortran_detail, sizeof pscr_fortran_detail, "%s", msg);
}

const char *pscr_fortran_error_get(void) { return pscr_fortran_detail; }
