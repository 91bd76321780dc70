/*
 * Helpers shared by the command-line programs (pscr-solve, the examples, the
 * benchmark tools): a strict option parser, timing, the float copy of a
 * problem and the verification of a solve. Included from C and from CUDA
 * C++ (the .cu examples), so it casts malloc's result.
 */
#ifndef PSCR_CLI_COMMON_H
#define PSCR_CLI_COMMON_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pscr.h"

/* ------------------------------------------------------------ option parsing
 *
 * Every program parses its command line with these, so that all of them
 * reject the same things the same way: a value must be the whole argument
 * (strtoll / strtod must consume it: "12x", "", " 5" are refused), integers
 * and doubles must lie in the option's range (which the message states),
 * doubles must be finite, words must be one of the option's words, and an
 * unknown option is named. Each error prints one line, "prog: <option>:
 * <what is wrong with which value>", and a hint to --help on stderr, and the
 * parser returns CLI_USAGE, the exit status of a usage error. Options take
 * their value as the next argument or, long options, as --name=value.
 *
 *   cli_args c;
 *   cli_init(&c, "pscr-solve", argc, argv);
 *   while (cli_next(&c)) {
 *     if (cli_is(&c, "-n")) { if (cli_int(&c, 1, INT_MAX, &n)) return CLI_USAGE; }
 *     else if (cli_is(&c, "--help")) { usage(stdout); return 0; }
 *     else return cli_unknown(&c);
 *   }
 */

/* The exit status of a usage error (a bad command line). */
#define CLI_USAGE 2

typedef struct cli_args {
  const char *prog; /* the program's name, the prefix of every message */
  int argc;
  char **argv;
  int next;               /* argv index of the next argument */
  const char *arg;        /* the current argument, as written */
  const char *opt;        /* its option name (arg up to '=' for --name=value) */
  const char *inline_val; /* the value after '=', or NULL */
  char name[64];          /* opt's storage when split at '=' */
} cli_args;

static inline void cli_init(cli_args *c, const char *prog, int argc, char **argv)
{
  memset(c, 0, sizeof *c);
  c->prog = prog;
  c->argc = argc;
  c->argv = argv;
  c->next = 1;
}

/* A usage error: "prog: <message>" and the hint. Returns CLI_USAGE. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline int cli_error(const cli_args *c, const char *fmt, ...)
{
  va_list ap;
  fprintf(stderr, "%s: ", c->prog);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\nTry '%s --help' for the options.\n", c->prog);
  return CLI_USAGE;
}

/* Step to the next argument: 1, or 0 when there is none. */
static inline int cli_next(cli_args *c)
{
  if (c->next >= c->argc)
    return 0;
  c->arg = c->opt = c->argv[c->next++];
  c->inline_val = NULL;
  const char *eq = strchr(c->arg, '=');
  if (!strncmp(c->arg, "--", 2) && eq && (size_t)(eq - c->arg) < sizeof c->name) {
    memcpy(c->name, c->arg, (size_t)(eq - c->arg));
    c->name[eq - c->arg] = '\0';
    c->opt = c->name;
    c->inline_val = eq + 1;
  }
  return 1;
}

/* The current argument is option `name`. */
static inline int cli_is(const cli_args *c, const char *name) { return !strcmp(c->opt, name); }

/* The current argument is not an option this program has. Returns CLI_USAGE. */
static inline int cli_unknown(const cli_args *c)
{
  if (c->arg[0] == '-' && c->arg[1])
    return cli_error(c, "unknown option '%s'", c->arg);
  return cli_error(c, "unexpected argument '%s'", c->arg);
}

/* A switch (an option without a value): 0, or CLI_USAGE for --name=value. */
static inline int cli_switch(const cli_args *c)
{
  if (c->inline_val)
    return cli_error(c, "%s takes no value (got '%s')", c->opt, c->inline_val);
  return 0;
}

/* The current option's value; NULL, after the message, when it is missing. */
static inline const char *cli_value(cli_args *c)
{
  if (c->inline_val)
    return c->inline_val;
  if (c->next >= c->argc) {
    cli_error(c, "%s: missing value", c->opt);
    return NULL;
  }
  return c->argv[c->next++];
}

/*
 * s as an integer in lo..hi; what: the option (or argument) it belongs to.
 * 0, or CLI_USAGE after the message.
 */
static inline int cli_parse_ll(const cli_args *c, const char *what, const char *s, long long lo,
                               long long hi, long long *out)
{
  char *end = NULL;
  errno = 0;
  long long v = *s && !isspace((unsigned char)*s) ? strtoll(s, &end, 10) : 0;
  if (!end || end == s || *end)
    return cli_error(c, "%s: '%s' is not an integer", what, s);
  if (errno == ERANGE || v < lo || v > hi)
    return cli_error(c, "%s: %s is out of range %lld..%lld", what, s, lo, hi);
  *out = v;
  return 0;
}

/* s as a finite double in the interval from lo to hi, each end open or closed. */
static inline int cli_parse_double(const cli_args *c, const char *what, const char *s, double lo,
                                   int lo_open, double hi, int hi_open, double *out)
{
  char *end = NULL;
  double v = *s && !isspace((unsigned char)*s) ? strtod(s, &end) : 0;
  if (!end || end == s || *end)
    return cli_error(c, "%s: '%s' is not a number", what, s);
  if (!isfinite(v))
    return cli_error(c, "%s: '%s' is not a finite number", what, s);
  if ((lo_open ? !(v > lo) : !(v >= lo)) || (hi_open ? !(v < hi) : !(v <= hi)))
    return cli_error(c, "%s: %s is out of range %c%g, %g%c", what, s, lo_open ? '(' : '[', lo, hi,
                     hi_open ? ')' : ']');
  *out = v;
  return 0;
}

/* The current option's value as an int in lo..hi. */
static inline int cli_int(cli_args *c, long long lo, long long hi, int *out)
{
  const char *s = cli_value(c);
  long long v = 0;
  if (!s || cli_parse_ll(c, c->opt, s, lo, hi, &v))
    return CLI_USAGE;
  *out = (int)v;
  return 0;
}

/* The current option's value as a long long in lo..hi. */
static inline int cli_llong(cli_args *c, long long lo, long long hi, long long *out)
{
  const char *s = cli_value(c);
  return !s || cli_parse_ll(c, c->opt, s, lo, hi, out) ? CLI_USAGE : 0;
}

/* The current option's value as a finite double in [lo, hi] (lo_open: (lo,
 * hi_open: hi)); hi may be INFINITY. */
static inline int cli_double(cli_args *c, double lo, int lo_open, double hi, int hi_open,
                             double *out)
{
  const char *s = cli_value(c);
  return !s || cli_parse_double(c, c->opt, s, lo, lo_open, hi, hi_open, out) ? CLI_USAGE : 0;
}

/* "poisson, helmholtz" into buf. */
static inline const char *cli_choice_list(const char *const *words, int nwords, char *buf,
                                        size_t len)
{
  buf[0] = '\0';
  for (int k = 0; k < nwords; k++) {
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", k ? ", " : "", words[k]);
  }
  return buf;
}

/* The current option's value as the index of one of words[0..nwords-1]. */
static inline int cli_choice(cli_args *c, const char *const *words, int nwords, int *out)
{
  const char *s = cli_value(c);
  char buf[256];
  if (!s)
    return CLI_USAGE;
  for (int k = 0; k < nwords; k++)
    if (!strcmp(s, words[k])) {
      *out = k;
      return 0;
    }
  return cli_error(c, "%s: '%s' is not one of: %s", c->opt, s,
                   cli_choice_list(words, nwords, buf, sizeof buf));
}

/*
 * s, a comma-separated list of ints in lo..hi ("127,255,511") given to
 * option opt, at most max of them, into out[0..*count-1].
 */
static inline int cli_parse_int_list(const cli_args *c, const char *opt, const char *s,
                                     long long lo, long long hi, int *out, int max, int *count)
{
  char item[64], what[160];
  snprintf(what, sizeof what, "%s '%s'", opt, s);
  int k = 0;
  for (const char *at = s;; at++) {
    size_t len = strcspn(at, ",");
    long long v = 0;
    if (len == 0)
      return cli_error(c, "%s: empty entry", what);
    if (k == max)
      return cli_error(c, "%s: more than %d entries", what, max);
    if (len >= sizeof item)
      return cli_error(c, "%s: '%.*s' is not an integer", what, (int)len, at);
    memcpy(item, at, len);
    item[len] = '\0';
    if (cli_parse_ll(c, what, item, lo, hi, &v))
      return CLI_USAGE;
    out[k++] = (int)v;
    at += len;
    if (!*at)
      break;
  }
  *count = k;
  return 0;
}

/* The current option's value as a list of cli_parse_int_list, or "none"
   (*count = 0: the benchmarks' --2d none / --3d none). */
static inline int cli_int_list_or_none(cli_args *c, long long lo, long long hi, int *out,
                                       int max, int *count)
{
  const char *s = cli_value(c);
  if (s && !strcmp(s, "none")) {
    *count = 0;
    return 0;
  }
  return !s || cli_parse_int_list(c, c->opt, s, lo, hi, out, max, count) ? CLI_USAGE : 0;
}

/* The current option's value as a list of cli_parse_int_list. */
static inline int cli_int_list(cli_args *c, long long lo, long long hi, int *out, int max,
                               int *count)
{
  const char *s = cli_value(c);
  return !s || cli_parse_int_list(c, c->opt, s, lo, hi, out, max, count) ? CLI_USAGE : 0;
}

/*
 * The current option's value as a comma-separated sequence of at most max
 * words, each one of words[0..nwords-1], into out[0..*count-1] (indices,
 * in order).
 */
static inline int cli_choice_seq(cli_args *c, const char *const *words, int nwords, int *out,
                                 int max, int *count)
{
  const char *s = cli_value(c);
  char buf[256];
  if (!s)
    return CLI_USAGE;
  int n = 0;
  for (const char *at = s;; at++) {
    size_t len = strcspn(at, ",");
    if (n == max)
      return cli_error(c, "%s '%s': more than %d entries", c->opt, s, max);
    int k = 0;
    while (k < nwords && (strlen(words[k]) != len || strncmp(words[k], at, len)))
      k++;
    if (k == nwords)
      return cli_error(c, "%s: '%.*s'%s%s%s is not one of: %s", c->opt, (int)len, at,
                       len < strlen(s) ? " in '" : "", len < strlen(s) ? s : "",
                       len < strlen(s) ? "'" : "",
                       cli_choice_list(words, nwords, buf, sizeof buf));
    out[n++] = k;
    at += len;
    if (!*at)
      break;
  }
  *count = n;
  return 0;
}

/*
 * The current option's value as a comma-separated list of words, each one
 * of words[0..nwords-1], as a bit mask (bit k: words[k]).
 */
static inline int cli_choice_set(cli_args *c, const char *const *words, int nwords, unsigned *mask)
{
  const char *s = cli_value(c);
  char buf[256];
  if (!s)
    return CLI_USAGE;
  *mask = 0;
  for (const char *at = s;; at++) {
    size_t len = strcspn(at, ",");
    int k = 0;
    while (k < nwords && (strlen(words[k]) != len || strncmp(words[k], at, len)))
      k++;
    if (k == nwords)
      return cli_error(c, "%s: '%.*s'%s%s%s is not one of: %s", c->opt, (int)len, at,
                       len < strlen(s) ? " in '" : "", len < strlen(s) ? s : "",
                       len < strlen(s) ? "'" : "",
                       cli_choice_list(words, nwords, buf, sizeof buf));
    *mask |= 1u << k;
    at += len;
    if (!*at)
      break;
  }
  return 0;
}

/*
 * --flags: the current option's value, a comma-separated list of
 * pscr_flag_name()s (pscr.h, PSCR_FLAG_LIST), into the bits of
 * pscr_options.flags; an unknown name is refused with the known ones.
 */
static inline int cli_flags(cli_args *c, unsigned int *flags)
{
  const char *s = cli_value(c);
  if (!s)
    return CLI_USAGE;
  *flags = 0;
  for (const char *at = s;; at++) {
    size_t len = strcspn(at, ",");
    unsigned int bit = 0;
    for (int k = 0; k < 32 && !bit; k++) {
      const char *name = pscr_flag_name(1u << k);
      if (name && strlen(name) == len && !strncmp(name, at, len))
        bit = 1u << k;
    }
    if (!bit) {
      char known[1024] = "";
      for (int k = 0; k < 32; k++) {
        const char *name = pscr_flag_name(1u << k);
        size_t used = strlen(known);
        if (name)
          snprintf(known + used, sizeof known - used, "%s%s", used ? ", " : "", name);
      }
      return cli_error(c, "%s: '%.*s'%s%s%s is not a flag; known flags: %s", c->opt, (int)len,
                       at, len < strlen(s) ? " in '" : "", len < strlen(s) ? s : "",
                       len < strlen(s) ? "'" : "", known);
    }
    *flags |= bit;
    at += len;
    if (!*at)
      break;
  }
  return 0;
}

/*
 * A library error, cause first: "prog: <pscr_last_error()> (<status name>)",
 * the name being the part of pscr_status_string() before its ':' (the
 * generic text adds nothing to the cause).
 */
static inline void cli_report(const char *prog, pscr_status st)
{
  const char *s = pscr_status_string(st), *colon = strchr(s, ':');
  const int len = colon ? (int)(colon - s) : (int)strlen(s);
  const char *cause = pscr_last_error();
  if (cause && *cause)
    fprintf(stderr, "%s: %s (%.*s)\n", prog, cause, len, s);
  else
    fprintf(stderr, "%s: %s\n", prog, s);
}

/* The status's name ("PSCR_ERROR_SINGULAR"): pscr_status_string() up to its ':'. */
static inline const char *cli_status_name(pscr_status st, char *buf, size_t len)
{
  const char *s = pscr_status_string(st), *colon = strchr(s, ':');
  snprintf(buf, len, "%.*s", colon ? (int)(colon - s) : (int)strlen(s), s);
  return buf;
}

/* "1 thread", "2 threads" into buf. */
static inline const char *cli_threads(int n, char *buf, size_t len)
{
  snprintf(buf, len, "%d thread%s", n, n == 1 ? "" : "s");
  return buf;
}

/* ------------------------------------------------------------------- the rest */

/* Monotonic wall-clock seconds. */
static inline double cli_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "R64", "C64", "R32" or "C32". */
static inline const char *cli_dtype_name(pscr_dtype dtype)
{
  switch (dtype) {
  case PSCR_R64:
    return "R64";
  case PSCR_C64:
    return "C64";
  case PSCR_R32:
    return "R32";
  case PSCR_C32:
    return "C32";
  }
  return "?";
}

/* The words of pscr_method, indexed by its values (explicit in pscr.h: 0
   auto, 1 reduction, 2 transform): --method's choices (cli_choice_seq's
   index is then the method) and the tools' output. */
enum { CLI_NMETHODS = 3 };
static inline const char *const *cli_method_words(void)
{
  static const char *const words[CLI_NMETHODS] = {"auto", "reduction", "transform"};
  return words;
}
static inline const char *cli_method_name(pscr_method m)
{
  return (unsigned)m < CLI_NMETHODS ? cli_method_words()[m] : "?";
}

/* qsort comparator for doubles (medians of timings). */
static inline int cli_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Word k of a float (single) or double array, as a double. */
static inline double cli_word(int single, const void *p, size_t k)
{
  return single ? (double)((const float *)p)[k] : ((const double *)p)[k];
}

/* max_i |x_i - y_i| over n real or complex (re, im) entries of float
 * (single) or double data; y NULL: max |x_i|. NaN when any difference is
 * NaN: fmax would drop it, and a solution of NaNs would then show a
 * backward error of 0. */
static inline double cli_max_diff_of(int single, int cplx, size_t n, const void *x,
                                     const void *y)
{
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    const size_t k = cplx ? 2 * i : i;
    const double re = cli_word(single, x, k) - (y ? cli_word(single, y, k) : 0);
    const double im = cplx ? cli_word(single, x, k + 1) - (y ? cli_word(single, y, k + 1) : 0) : 0;
    const double v = cplx ? hypot(re, im) : fabs(re);
    if (v != v)
      return NAN;
    m = v > m ? v : m;
  }
  return m;
}

/* cli_max_diff_of for double data. */
static inline double cli_max_diff(int cplx, size_t n, const double *x, const double *y)
{
  return cli_max_diff_of(0, cplx, n, x, y);
}

/*
 * pb's pencils and shift rounded to float, for an R32 / C32 plan of the
 * same problem: pen[d] points into *store (one allocation; the caller frees
 * it). Returns 0, or -1 when out of memory (*store NULL).
 */
static inline int cli_float_pencils(const pscr_problem *pb, pscr_pencil pen[3],
                                    float shift32[2], float **store)
{
  const size_t w = pb->dtype == PSCR_C64 ? 2 : 1;
  size_t total = 0;
  for (int d = 0; d < pb->ndim; d++)
    total += 4 * (size_t)pb->n[d] * w;
  float *at = (float *)malloc(total * sizeof *at); /* (casts: the .cu examples include this) */
  *store = at;
  if (!at)
    return -1;
  for (int d = 0; d < pb->ndim; d++) {
    const pscr_pencil *q = &pb->pencils[d];
    const size_t n = (size_t)q->n;
    const double *src[4] = {(const double *)q->a_diag, (const double *)q->a_off,
                            (const double *)q->m_diag, (const double *)q->m_off};
    const void *dst[4] = {NULL, NULL, NULL, NULL};
    for (int a = 0; a < 4; a++) {
      if (!src[a])
        continue;
      const size_t cnt = ((a & 1) ? n - 1 : n) * w; /* off-diagonals: n - 1 entries */
      for (size_t i = 0; i < cnt; i++)
        at[i] = (float)src[a][i];
      dst[a] = at;
      at += n * w;
    }
    pen[d] = (pscr_pencil){q->n, dst[0], dst[1], dst[2], dst[3]};
  }
  shift32[0] = (float)pb->shift[0];
  shift32[1] = (float)pb->shift[1];
  return 0;
}

/*
 * Verify a solve of a model problem: the normwise backward error
 * ||Au - b|| / (||A|| ||u|| + ||b||) (inf-norms, A applied from the factors)
 * and the relative max-norm error against the exact solution ue. au: scratch
 * of the vector's size. Either output may be NULL.
 */
static inline void cli_verify(const pscr_problem *pb, const double *b, const double *u,
                              const double *ue, double *au, double *berr, double *derr)
{
  int cplx = pb->dtype == PSCR_C64;
  size_t N = (size_t)pb->n[0] * pb->n[1] * pb->n[2];
  double norm_a = 0;
  pscr_operator_apply(pb->dtype, pb->ndim, pb->pencils, pb->shift, u, au);
  pscr_operator_norm_inf(pb->dtype, pb->ndim, pb->pencils, pb->shift, &norm_a);
  if (berr)
    *berr = cli_max_diff(cplx, N, au, b) /
            (norm_a * cli_max_diff(cplx, N, u, NULL) + cli_max_diff(cplx, N, b, NULL));
  if (derr)
    *derr = cli_max_diff(cplx, N, u, ue) / cli_max_diff(cplx, N, ue, NULL);
}

#endif
