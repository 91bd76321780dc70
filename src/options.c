#include "pscr.h"

void pscr_options_init(pscr_options *opts)
{
  if (!opts)
    return;
  opts->backend = PSCR_BACKEND_AUTO;
  opts->device = 0;
  opts->num_threads = 0;
  opts->check_finite = 1;
  opts->cuda_rows_per_thread = 0;
  opts->max_batch = 1;
}
