/* Environment switches (env.h). */
#include "env.h"

#include <stdlib.h>

int pscr_env_switch(const char *name)
{
  const char *e = getenv(name);
  if (e && (e[0] == '0' || e[0] == '1') && e[1] == '\0')
    return e[0] == '1';
  return -1;
}
