/* Options as the library reads them (options.c). */
#ifndef PSCR_OPTIONS_H
#define PSCR_OPTIONS_H

#include <stddef.h>

#include "pscr.h"

/* The smallest pscr_options and pscr_info a caller may pass: those of pscr
   0.2, the first release with size fields (their last 0.2 field ends them). */
#define PSCR_OPTIONS_MIN_SIZE (offsetof(pscr_options, flags) + sizeof(unsigned int))
#define PSCR_INFO_MIN_SIZE (offsetof(pscr_info, min_bytes) + sizeof(double))

/* The caller's options (NULL: defaults) as this library's struct: checks the
   size handshake (pscr.h) and copies what the caller's struct holds. */
pscr_status pscr_options_read(const pscr_options *in, pscr_options *out);

/* Unknown bits and contradicting pairs of pscr_options.flags. */
pscr_status pscr_flags_check(unsigned int flags);

/* A NEVER/ALWAYS pair of flags as a mode: 0 never, 1 always, -1 automatic. */
int pscr_flag_mode(unsigned int flags, unsigned int never, unsigned int always);

#endif
