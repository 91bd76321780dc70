/* Environment switches (env.h). */
#include "env.h"

#include <limits.h>
#include <stdlib.h>

int pscr_env_switch(const char *name)
{
  const char *e = getenv(name);
  if (e && (e[0] == '0' || e[0] == '1') && e[1] == '\0')
    return e[0] == '1';
  return -1;
}

long long pscr_env_count(const char *name)
{
  const char *e = getenv(name);
  if (!e || !*e)
    return -1;
  long long v = 0;
  for (const char *c = e; *c; c++) {
    if (*c < '0' || *c > '9' || v > (LLONG_MAX - 9) / 10)
      return -1;
    v = 10 * v + (*c - '0');
  }
  return v >= 1 ? v : -1;
}
