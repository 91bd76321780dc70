/* Switches read from the environment (tests and benchmarks compare the
   paths they select; users never need them). */
#ifndef PSCR_ENV_H
#define PSCR_ENV_H

/* 0 or 1 where the variable `name` holds exactly "0" or "1", else -1
   (unset or anything else: the default). */
int pscr_env_switch(const char *name);

/* The value of `name` where it holds a decimal integer >= 1 (digits only),
   else -1. */
long long pscr_env_count(const char *name);

#endif
