/*
 * libFuzzer target over the public API: plan creation and solve with random
 * sizes, dtypes, options, pencils (NaN, Inf, zeros, indefinite or singular M,
 * denormals, 1e+-300 magnitudes) and right-hand sides.
 *
 * Invariants (a violation aborts, which libFuzzer reports):
 *  - every call returns a documented status, with a detail message on error;
 *  - no crash, no hang, no leak (ASan/LSan, libFuzzer -timeout);
 *  - on success u is finite;
 *  - on error f is untouched (u != f).
 * Single-precision dtypes get the same values rounded to float (1e+-300
 * become Inf and 0).
 *
 * Input layout: a header of 12 bytes (dtype, ndim, sizes, shift code (its
 * bits 2-4 also pick max_batch), options, special mode) followed by value
 * codes consumed as needed; the input is cycled when it runs out. Each
 * successful plan also solves a strided batch of two, out of place and in
 * place.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pscr.h"

typedef struct reader {
  const uint8_t *data;
  size_t size, pos;
} reader;

static uint8_t next_byte(reader *r)
{
  if (r->size == 0)
    return 0;
  uint8_t b = r->data[r->pos % r->size];
  r->pos++;
  return b;
}

/* A double drawn from a code byte: ordinary values mostly, specials often. */
static double next_value(reader *r)
{
  uint8_t code = next_byte(r);
  double mant = (next_byte(r) + 1) / 64.0;
  switch (code % 16) {
  case 0: return 0.0;
  case 1: return NAN;
  case 2: return code & 0x80 ? INFINITY : -INFINITY;
  case 3: return 4.9e-324 * (code & 0x80 ? -1 : 1); /* denormal */
  case 4: return mant * 1e300;
  case 5: return -mant * 1e300;
  case 6: return mant * 1e-300;
  case 7: return -mant;
  case 8: return 1.0;
  default: return mant * (code & 0x40 ? 10.0 : 1.0) + (code & 0x20 ? 2.0 : 0.0);
  }
}

static int is_documented(pscr_status st)
{
  return st >= PSCR_SUCCESS && st <= PSCR_ERROR_DEVICE;
}

#define REQUIRE(cond, ...)                                                            \
  do {                                                                                \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "invariant violated: " __VA_ARGS__);                           \
      fprintf(stderr, "\n");                                                          \
      abort();                                                                        \
    }                                                                                 \
  } while (0)

/* Value i of an array of doubles (single 0) or floats (single 1). */
static double value_at(const void *a, size_t i, int single)
{
  return single ? ((const float *)a)[i] : ((const double *)a)[i];
}

static void set_at(void *a, size_t i, double v, int single)
{
  if (single)
    ((float *)a)[i] = (float)v;
  else
    ((double *)a)[i] = v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  reader r = {data, size, 0};
  int dtype_code = next_byte(&r) % 5; /* 4: an unknown dtype */
  pscr_dtype dtype = (pscr_dtype)(dtype_code == 4 ? 7 : dtype_code);
  int ndim = next_byte(&r) % 5; /* 0..4: only 2 and 3 are valid */
  int n[3];
  for (int d = 0; d < 3; d++) {
    int b = next_byte(&r);
    n[d] = b < 8 ? b - 2 : b % 24 + 1; /* some <= 0, mostly 1..24 */
  }
  uint8_t shift_code = next_byte(&r), opt_code = next_byte(&r), mode = next_byte(&r);
  int cplx = dtype == PSCR_C64 || dtype == PSCR_C32;
  int single = dtype == PSCR_R32 || dtype == PSCR_C32;
  size_t width = cplx ? 2 : 1;                            /* words per element */
  size_t ws = single ? sizeof(float) : sizeof(double);    /* bytes per word */

  pscr_options opts;
  pscr_options_init(&opts);
  opts.backend = opt_code & 1 ? PSCR_BACKEND_CPU : PSCR_BACKEND_AUTO;
  if ((opt_code & 6) == 6)
    opts.backend = (pscr_backend)9;
  opts.num_threads = (opt_code >> 3) % 3;
  opts.check_finite = !(opt_code & 0x80);
  { /* the CUDA level-3 choice: validated on every backend (3 is invalid) */
    static const int rows[4] = {0, -1, 3, 16};
    opts.cuda_rows_per_thread = rows[(opt_code >> 5) & 3];
  }
  { /* batches: validated on every backend (0 is invalid) */
    static const int batch[8] = {1, 2, 8, 1, 3, 1, 0, 1};
    opts.max_batch = batch[(shift_code >> 2) & 7];
  }
  { /* the method of each reduced dimension: 5 is invalid, and method[1]
       other than AUTO in 2D */
    static const int method[8][2] = {{0, 0}, {2, 0}, {1, 2}, {2, 2},
                                     {5, 0}, {0, 2}, {2, 1}, {0, 0}};
    opts.method[0] = (pscr_method)method[(shift_code >> 5) & 7][0];
    opts.method[1] = (pscr_method)method[(shift_code >> 5) & 7][1];
    opts.planner = (pscr_planner)((mode >> 2) % 4); /* 3 is invalid */
  }
  if ((mode & 0x42) == 0x42) /* device arrays only: never valid on the CPU or AUTO; 2 is invalid */
    opts.device_only = (mode & 0x08) ? 2 : 1;

  /* Pencils: arrays sized as the contract requires (at least 1 entry). */
  char *store[3] = {NULL, NULL, NULL};
  pscr_pencil pencils[3];
  int dims = ndim >= 1 && ndim <= 3 ? ndim : 3;
  for (int d = 0; d < dims; d++) {
    size_t len = (size_t)(n[d] > 0 ? n[d] : 1) * width;
    store[d] = malloc(4 * len * ws);
    for (size_t i = 0; i < 4 * len; i++)
      set_at(store[d], i, next_value(&r), single);
    int nd = n[d];
    if (mode & 1) /* a well-posed variant: SPD-ish factors */
      for (size_t i = 0; i < len; i += width) {
        set_at(store[d], i, 2.0 + fabs(value_at(store[d], i, single)) * 1e-3, single);
        set_at(store[d], 2 * len + i, 1.0, single);
      }
    pencils[d] = (pscr_pencil){nd, store[d], store[d] + len * ws, store[d] + 2 * len * ws,
                               (mode & 2) ? store[d] + 3 * len * ws : NULL};
    if ((mode & 0x1c) == 0x1c && d == 1)
      pencils[d].m_diag = NULL; /* a NULL array */
  }
  if ((mode & 0xe0) == 0xe0) /* sizes past the address space, tiny arrays */
    for (int d = 0; d < dims; d++)
      pencils[d].n = 2147483647;
  double shift[2] = {0.0, 0.0};
  if (shift_code % 4 == 1)
    shift[0] = next_value(&r);
  if (shift_code % 4 == 2) {
    shift[0] = -next_value(&r) * 10;
    shift[1] = next_value(&r);
  }
  float shift32[2] = {(float)shift[0], (float)shift[1]};

  pscr_plan *plan = (pscr_plan *)&r;
  pscr_status st = pscr_plan_create(&plan, dtype, ndim, pencils,
                                    single ? (const void *)shift32 : (const void *)shift, &opts);
  REQUIRE(is_documented(st), "plan status %d", (int)st);
  if (st != PSCR_SUCCESS) {
    REQUIRE(plan == NULL, "plan not NULL after %s", pscr_status_string(st));
    REQUIRE(pscr_last_error()[0] != '\0', "no detail message for %s", pscr_status_string(st));
  } else {
    pscr_info info;
    REQUIRE(pscr_plan_info(plan, &info) == PSCR_SUCCESS, "plan_info");
    size_t total = 1;
    for (int d = 0; d < ndim; d++)
      total *= (size_t)pencils[d].n;
    const size_t words = total * width, bytes = words * ws;
    char *f = malloc(bytes), *f0 = malloc(bytes), *u = malloc(bytes);
    for (size_t i = 0; i < words; i++)
      set_at(f, i, (mode & 1) ? sin((double)i + next_byte(&r)) : next_value(&r), single);
    memcpy(f0, f, bytes);
    st = pscr_solve(plan, f, u);
    REQUIRE(is_documented(st), "solve status %d", (int)st);
    REQUIRE(memcmp(f, f0, bytes) == 0, "f modified by an out-of-place solve");
    if (st == PSCR_SUCCESS)
      for (size_t i = 0; i < words; i++)
        REQUIRE(isfinite(value_at(u, i, single)), "success with a non-finite u[%zu]", i / width);
    else
      REQUIRE(pscr_last_error()[0] != '\0', "no detail message for %s", pscr_status_string(st));
    /* A batch of two: f and f + 1 element as right-hand sides total + 1
       apart into a strided u; the same invariants, the gap of u untouched. */
    {
      const size_t ld = total + 1, len = (ld + total) * width;
      char *fb = malloc(len * ws), *fb0 = malloc(len * ws), *ub = malloc(len * ws);
      for (size_t i = 0; i < len; i++) {
        set_at(fb, i, value_at(f, i % words, single), single);
        set_at(ub, i, 7.0, single);
      }
      memcpy(fb0, fb, len * ws);
      st = pscr_solve_batch(plan, 2, fb, ld, ub, ld);
      REQUIRE(is_documented(st), "batch status %d", (int)st);
      REQUIRE(memcmp(fb, fb0, len * ws) == 0, "f modified by an out-of-place batch");
      for (size_t i = words; i < ld * width; i++)
        REQUIRE(value_at(ub, i, single) == 7.0, "batch wrote the gap at %zu", i);
      if (st == PSCR_SUCCESS)
        for (size_t i = 0; i < len; i++)
          REQUIRE(isfinite(value_at(ub, i, single)), "batch success with a non-finite u entry %zu",
                  i / width);
      else
        REQUIRE(pscr_last_error()[0] != '\0', "no detail message for batch %s",
                pscr_status_string(st));
      st = pscr_solve_batch(plan, 2, fb, ld, fb, ld); /* in place */
      REQUIRE(is_documented(st), "in-place batch status %d", (int)st);
      free(fb);
      free(fb0);
      free(ub);
    }
    st = pscr_solve(plan, f, f); /* in place must behave too */
    REQUIRE(is_documented(st), "in-place solve status %d", (int)st);
    free(f);
    free(f0);
    free(u);
    pscr_plan_destroy(plan);
  }
  for (int d = 0; d < 3; d++)
    free(store[d]);
  return 0;
}
