/* Random test operators shared by the solver suites (see test_ops.h). */
#include "test_ops.h"

#include <stdlib.h>
#include <string.h>

const char *const kind_name[NKINDS] = {"poisson", "helmholtz", "random-spd", "random-complex"};

void op_free(op *o)
{
  for (int d = 0; d < 3; d++)
    free(o->store[d]);
}

/* Factors of one dimension of the given kind; n >= 1 (Helmholtz n >= 2). */
static void make_pencil(op *o, int d, kind k, int n, tu_rng *rng)
{
  int cplx = o->dtype == PSCR_C64, w = cplx ? 2 : 1;
  double *s = calloc((size_t)(4 * n + 4) * w, sizeof(double));
  ck_assert_ptr_nonnull(s);
  o->store[d] = s;
  double *ad = s, *ao = s + (size_t)n * w, *md = s + (size_t)2 * n * w, *mo = s + (size_t)3 * n * w;
  if (k == POISSON) {
    double *h = malloc((size_t)(n + 1) * sizeof *h);
    for (int i = 0; i <= n; i++)
      h[i] = (0.5 + tu_uniform(rng)) / (n + 1); /* non-uniform: steps vary 3x */
    ck_assert_int_eq(pscr_poisson_factors(n, h, ad, ao, md, mo), PSCR_SUCCESS);
    free(h);
  } else if (k == HELMHOLTZ) {
    double *h = malloc((size_t)n * sizeof *h);
    for (int i = 0; i < n - 1; i++)
      h[i] = (0.5 + tu_uniform(rng)) / (n - 1);
    ck_assert_int_eq(pscr_helmholtz_factors(n, h, 20.0, ad, ao, md, mo), PSCR_SUCCESS);
    free(h);
  } else {
    /* Random symmetric A with a positive diagonal, SPD tridiagonal M
       (diagonally dominant); complex: both complex symmetric with a modest
       imaginary part (a lossy medium), so the shifted systems stay regular. */
    for (int i = 0; i < n; i++)
      for (int c = 0; c < w; c++) {
        double re = c == 0;
        ad[i * w + c] = re ? 2.0 + tu_uniform(rng) : 0.3 * tu_uniform(rng);
        md[i * w + c] = re ? 2.0 + tu_uniform(rng) : 0.1 * tu_symm(rng);
        if (i < n - 1) {
          ao[i * w + c] = re ? -0.9 * tu_uniform(rng) : 0.1 * tu_symm(rng);
          mo[i * w + c] = re ? 0.9 * tu_symm(rng) : 0.1 * tu_symm(rng);
        }
      }
  }
  o->pencils[d] = (pscr_pencil){n, ad, ao, md, (k == POISSON) ? NULL : mo};
}

void make_op(op *o, kind k, int ndim, const int *n, uint64_t seed)
{
  tu_rng rng;
  tu_rng_seed(&rng, seed);
  memset(o, 0, sizeof *o);
  o->dtype = (k == HELMHOLTZ || k == RANDOM_COMPLEX) ? PSCR_C64 : PSCR_R64;
  o->ndim = ndim;
  for (int d = 0; d < ndim; d++)
    make_pencil(o, d, k, n[d], &rng);
  if (k == HELMHOLTZ) {
    o->shift[0] = -400.0; /* c = -omega^2, omega = 20 */
  } else if (k == RANDOM_COMPLEX) {
    o->shift[0] = 0.5;
    o->shift[1] = 0.25;
  }
}

void *random_vector(const op *o, uint64_t seed)
{
  const int cplx = o->dtype == PSCR_C64 || o->dtype == PSCR_C32;
  size_t n = tu_size(o->ndim, o->pencils) * (cplx ? 2 : 1);
  double *f = malloc(n * sizeof *f);
  ck_assert_ptr_nonnull(f);
  tu_rng rng;
  tu_rng_seed(&rng, seed);
  for (size_t i = 0; i < n; i++)
    f[i] = tu_symm(&rng);
  if (!op_single(o))
    return f;
  void *s = op_vector(o, f);
  free(f);
  return s;
}

int op_single(const op *o) { return o->dtype == PSCR_R32 || o->dtype == PSCR_C32; }

const void *op_shift(const op *o) { return op_single(o) ? (const void *)o->shift32 : o->shift; }

void *op_vector(const op *o, const double *x)
{
  const int cplx = o->dtype == PSCR_C64 || o->dtype == PSCR_C32;
  const size_t n = tu_size(o->ndim, o->pencils) * (cplx ? 2 : 1);
  if (!op_single(o)) {
    double *d = malloc(n * sizeof *d);
    ck_assert_ptr_nonnull(d);
    memcpy(d, x, n * sizeof *d);
    return d;
  }
  float *s = malloc(n * sizeof *s);
  ck_assert_ptr_nonnull(s);
  for (size_t i = 0; i < n; i++)
    s[i] = (float)x[i];
  return s;
}

/* Replace every pencil's arrays of o by an owned copy (float when
   to_float, else double) of the arrays it points to now (float when
   from_float), freeing the storage they replace; w: 2 complex, 1 real. */
static void own_pencils(op *o, int w, int from_float, int to_float)
{
  const size_t es = to_float ? sizeof(float) : sizeof(double);
  for (int d = 0; d < o->ndim; d++) {
    pscr_pencil *q = &o->pencils[d];
    const int n = q->n;
    char *s = calloc((size_t)(4 * n + 4) * w, es);
    ck_assert_ptr_nonnull(s);
    const void *src[4] = {q->a_diag, q->a_off, q->m_diag, q->m_off};
    void *dst[4];
    for (int a = 0; a < 4; a++) {
      dst[a] = s + (size_t)a * n * w * es;
      const int cnt = (a & 1) ? n - 1 : n;
      for (int i = 0; src[a] && i < cnt * w; i++) {
        const double v = from_float ? ((const float *)src[a])[i] : ((const double *)src[a])[i];
        if (to_float)
          ((float *)dst[a])[i] = (float)v;
        else
          ((double *)dst[a])[i] = v;
      }
    }
    *q = (pscr_pencil){n, dst[0], dst[1], dst[2], q->m_off ? dst[3] : NULL};
    free(o->store[d]);
    o->store[d] = s;
  }
}

void make_op_model(op *o, pscr_problem_kind k, int ndim, const int *n, double grading)
{
  pscr_problem *pb = NULL;
  pscr_status st = pscr_problem_create(&pb, k, ndim, n, NULL, grading, 20.0);
  ck_assert_msg(st == PSCR_SUCCESS, "problem: %s", pscr_status_string(st));
  memset(o, 0, sizeof *o);
  o->dtype = pb->dtype;
  o->ndim = ndim;
  o->shift[0] = pb->shift[0];
  o->shift[1] = pb->shift[1];
  memcpy(o->pencils, pb->pencils, sizeof o->pencils);
  own_pencils(o, pb->dtype == PSCR_C64 ? 2 : 1, 0, 0);
  pscr_problem_destroy(pb);
}

void op_vary_ends(op *o, int d)
{
  ck_assert(o->dtype == PSCR_R64);
  pscr_pencil *q = &o->pencils[d];
  const int n = q->n;
  ck_assert(n >= 4);
  /* own_pencils / make_pencil layout: ad | ao | md | mo, n entries each. */
  double *ad = o->store[d], *ao = ad + n, *md = ad + 2 * n, *mo = ad + 3 * n;
  ck_assert(q->a_diag == ad && q->m_diag == md);
  ad[0] *= 1.5;
  ad[n - 1] *= 1.25;
  ao[0] *= 0.75;
  ao[n - 2] *= 0.625;
  for (int i = 0; i < n - 1; i++)
    mo[i] = 0.25 * md[1];
  mo[0] = 0.2 * md[1];
  mo[n - 2] = 0.15 * md[1];
  md[0] *= 1.5;
  md[n - 1] *= 1.25;
  q->m_off = mo;
}

void op_to_single(op *o)
{
  ck_assert(!op_single(o));
  own_pencils(o, o->dtype == PSCR_C64 ? 2 : 1, 0, 1);
  o->shift32[0] = (float)o->shift[0];
  o->shift32[1] = (float)o->shift[1];
  o->dtype = o->dtype == PSCR_C64 ? PSCR_C32 : PSCR_R32;
}


void op_scale(op *o, int d, double sa, double sm)
{
  int w = o->dtype == PSCR_C64 ? 2 : 1, n = o->pencils[d].n;
  double *ad = (double *)o->pencils[d].a_diag, *ao = (double *)o->pencils[d].a_off;
  double *md = (double *)o->pencils[d].m_diag, *mo = (double *)o->pencils[d].m_off;
  for (int i = 0; i < n * w; i++) {
    ad[i] *= sa;
    md[i] *= sm;
    if (i < (n - 1) * w) {
      ao[i] *= sa;
      if (mo)
        mo[i] *= sm;
    }
  }
}

void op_to_double(op *o)
{
  ck_assert(op_single(o));
  own_pencils(o, o->dtype == PSCR_C32 ? 2 : 1, 1, 0);
  o->shift[0] = o->shift32[0];
  o->shift[1] = o->shift32[1];
  o->dtype = o->dtype == PSCR_C32 ? PSCR_C64 : PSCR_R64;
}
