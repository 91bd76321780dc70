/* Options: defaults, the size handshake of extensible structs, flags. */
#include "options.h"

#include <stddef.h>
#include <string.h>

#include "error.h"

static void pscr_options_defaults(pscr_options *d)
{
  memset(d, 0, sizeof *d);
  d->size = sizeof *d;
  d->backend = PSCR_BACKEND_AUTO;
  d->device = 0;
  d->num_threads = 0;
  d->check_finite = 1;
  d->cuda_rows_per_thread = 0;
  d->max_batch = 1;
  d->flags = 0;
  d->planner = PSCR_PLANNER_ESTIMATE;
}

pscr_status pscr_options_init_size(pscr_options *opts, size_t size)
{
  pscr_error_clear();
  if (!opts)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "opts is NULL");
  if (size < PSCR_OPTIONS_MIN_SIZE)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "size is %zu, below the %zu bytes of pscr 0.2's pscr_options", size,
                      (size_t)PSCR_OPTIONS_MIN_SIZE);
  pscr_options d;
  pscr_options_defaults(&d);
  d.size = size;
  /* A newer caller's struct is longer: its extra fields take 0, which is
     the default of every field added after 0.2. */
  if (size > sizeof d) {
    memset((char *)opts + sizeof d, 0, size - sizeof d);
    size = sizeof d;
  }
  memcpy(opts, &d, size);
  return PSCR_SUCCESS;
}

pscr_status pscr_options_read(const pscr_options *in, pscr_options *out)
{
  pscr_options_defaults(out);
  if (!in)
    return PSCR_SUCCESS;
  const size_t size = in->size;
  if (size < PSCR_OPTIONS_MIN_SIZE)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE,
                      "opts->size is %zu: initialize options with pscr_options_init", size);
  if (size > sizeof *out) {
    const unsigned char *tail = (const unsigned char *)in + sizeof *out;
    for (size_t i = 0; i < size - sizeof *out; i++)
      if (tail[i])
        return PSCR_ERROR(PSCR_ERROR_NOT_SUPPORTED,
                          "opts->size is %zu and sets a field past this library's %zu-byte "
                          "pscr_options (pscr %s): built against a newer pscr.h",
                          size, sizeof *out, PSCR_VERSION_STRING);
  }
  memcpy(out, in, size < sizeof *out ? size : sizeof *out);
  out->size = sizeof *out;
  return PSCR_SUCCESS;
}

#define PSCR_FLAG_BIT_(name, bit, cli, text) | (bit)
static const unsigned int pscr_known_flags = 0u PSCR_FLAG_LIST(PSCR_FLAG_BIT_);
#undef PSCR_FLAG_BIT_

const char *pscr_flag_name(unsigned int flag)
{
#define PSCR_FLAG_NAME_(name, bit, cli, text) \
  if (flag == (bit))                          \
    return cli;
  PSCR_FLAG_LIST(PSCR_FLAG_NAME_)
#undef PSCR_FLAG_NAME_
  return NULL;
}

pscr_status pscr_flags_check(unsigned int flags)
{
  const unsigned int unknown = flags & ~pscr_known_flags;
  if (unknown)
    return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "unknown bits 0x%x in flags 0x%x", unknown,
                      flags);
  /* Pairs that force opposite choices. */
  static const unsigned int pairs[][2] = {
      {PSCR_FLAG_EIGEN_TEAM_NEVER, PSCR_FLAG_EIGEN_TEAM_ALWAYS},
      {PSCR_FLAG_EIGEN_SPLIT_NEVER, PSCR_FLAG_EIGEN_SPLIT_ALWAYS},
      {PSCR_FLAG_CUDA_PAIR_NEVER, PSCR_FLAG_CUDA_PAIR_ALWAYS},
      {PSCR_FLAG_CUDA_COUPLE_ONE, PSCR_FLAG_CUDA_COUPLE_MANY},
      {PSCR_FLAG_CUDA_FUSE_NEVER, PSCR_FLAG_CUDA_FUSE_ALL},
  };
  for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
    if ((flags & pairs[k][0]) && (flags & pairs[k][1]))
      return PSCR_ERROR(PSCR_ERROR_INVALID_VALUE, "flags %s and %s exclude each other",
                        pscr_flag_name(pairs[k][0]), pscr_flag_name(pairs[k][1]));
  return PSCR_SUCCESS;
}

int pscr_flag_mode(unsigned int flags, unsigned int never, unsigned int always)
{
  return (flags & never) ? 0 : (flags & always) ? 1 : -1;
}
