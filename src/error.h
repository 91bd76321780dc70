/* Status and detail-message helpers shared by every module. */
#ifndef PSCR_ERROR_H
#define PSCR_ERROR_H

#include "pscr.h"

/*
 * Record a detail message for the calling thread (see pscr_last_error) and
 * return @p status unchanged, so call sites read
 *     return pscr_error_set(PSCR_ERROR_INVALID_VALUE, __FILE__, __LINE__, "n is %d", n);
 * Passing PSCR_SUCCESS is allowed and records nothing.
 */
pscr_status pscr_error_set(pscr_status status, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Clear the calling thread's detail message (start of every public call). */
void pscr_error_clear(void);

#define PSCR_ERROR(status, ...) pscr_error_set((status), __FILE__, __LINE__, __VA_ARGS__)

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
