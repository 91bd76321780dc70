/* Status and detail-message helpers shared by every module. */
#ifndef PSCR_ERROR_H
#define PSCR_ERROR_H

#include "pscr.h"

/*
 * Record a detail message for the calling thread (see pscr_last_error) and
 * return @p status unchanged, so call sites read
 *     return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "n is %d, must be >= 1", n);
 * Passing PSCR_SUCCESS is allowed and records nothing.
 *
 * The message is for the user of the public function that failed: it leads
 * with the specific cause ("pencil 2: m_diag[3] is not finite"), context
 * follows in parentheses, and it never repeats pscr_status_string's text.
 * It carries no source location: a build path means nothing to a user, and
 * the function that failed is the one the caller just called.
 */
pscr_status pscr_error_set(pscr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Clear the calling thread's detail message (start of every public call). */
void pscr_error_clear(void);

#define PSCR_ERROR(status, ...) pscr_error_set((status), __VA_ARGS__)

/*
 * Argument check: when cond is false, set st to the status with a message and
 * jump to label. The return stays visible at the call site's label.
 */
#define PSCR_CHECK_GOTO(cond, st, status, label, ...)                                  \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      (st) = PSCR_ERROR((status), __VA_ARGS__);                                        \
      goto label;                                                                      \
    }                                                                                  \
  } while (0)

#endif
