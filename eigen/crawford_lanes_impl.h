/*
 * Crawford's sweep (crawford_impl.h) with eight bulge chases at a time, one
 * per lane of a lane vector (lanes.h's eig_vd: one AVX-512 register,
 * complex: one of real and one of imaginary parts).
 *
 * The chase of elimination step s starts at plane s-1 and moves down one
 * plane per rotation; a rotation in plane j touches ad[j..j+1] and
 * ao[j-1..j+1]. Steps k..k+7 form a block: lane a (step k+a) starts two
 * iterations after lane a-1, at plane k+a-1, so at iteration t it is at
 * plane k-1-t+3a: three planes above lane a-1, whose rotations touch
 * disjoint entries. Each entry sees the rotations of the steps in step
 * order, as in the plain sequence, and row k+a is eliminated (scalar)
 * after lane a-1's first rotation and before lane a's, as there. The
 * arithmetic per entry is the scalar rotation's, up to the compiler's
 * contraction of products into fused multiply-adds.
 *
 * Lanes three planes apart read and write every third entry: ad and ao
 * live here in three phase arrays each (entry e at phase e mod 3, position
 * e div 3, after an offset), so that the eight lanes' entries are eight
 * consecutive doubles. Per iteration each lane loads ad[j] and ao[j-1],
 * stores the entries it leaves for good (ad[j+1], ao[j+1]) and keeps
 * ad[j], ao[j] and ao[j-1] of the next plane in registers.
 *
 * Any failure (a bad pivot, an isotropic complex rotation, a square root
 * out of the vector form's range) abandons the lanes: the caller repeats
 * the reduction with the scalar sweep, which reports the error exactly as
 * before.
 *
 * Type-generic: included by eigen.c once per scalar type, after
 * twisted_impl.h (lane vectors) and crawford_impl.h (crawford_elim).
 */

/* Logical entry e lives at physical index e + EIG_CR_OFF: finished lanes
 * keep moving down to about e = -24 until their block ends. */
#undef EIG_CR_OFF /* (defined per expansion) */
#define EIG_CR_OFF 33

/* ad or ao in phase layout: v[part][phase] (part 1: imaginary parts). */
typedef struct EIG(crph) {
  double *v[2][3];
} EIG(crph);

static inline EIG_T EIG(crph_get)(const EIG(crph) * x, int e)
{
  const int f = e + EIG_CR_OFF;
#if EIG_IS_REAL
  return x->v[0][f % 3][f / 3];
#else
  return CMPLX(x->v[0][f % 3][f / 3], x->v[1][f % 3][f / 3]);
#endif
}

static inline void EIG(crph_set)(EIG(crph) * x, int e, EIG_T val)
{
  const int f = e + EIG_CR_OFF;
  x->v[0][f % 3][f / 3] = creal(val);
#if !EIG_IS_REAL
  x->v[1][f % 3][f / 3] = cimag(val);
#endif
}

/* Entries e, e+3, ..., e+21 as a lane vector. */
static inline EIG(v) EIG(crph_load)(const EIG(crph) * x, int e)
{
  const int f = e + EIG_CR_OFF;
  EIG(v) r;
#if EIG_IS_REAL
  memcpy(&r, x->v[0][f % 3] + f / 3, sizeof r);
#else
  memcpy(&r.re, x->v[0][f % 3] + f / 3, sizeof r.re);
  memcpy(&r.im, x->v[1][f % 3] + f / 3, sizeof r.im);
#endif
  return r;
}

/* Store the lanes of val where m is set (the others keep their entries). */
static inline void EIG(crph_store)(EIG(crph) * x, int e, EIG(v) val, eig_vm m)
{
  const int f = e + EIG_CR_OFF;
  val = EIG(v_sel)(m, val, EIG(crph_load)(x, e));
#if EIG_IS_REAL
  memcpy(x->v[0][f % 3] + f / 3, &val, sizeof val);
#else
  memcpy(x->v[0][f % 3] + f / 3, &val.re, sizeof val.re);
  memcpy(x->v[1][f % 3] + f / 3, &val.im, sizeof val.im);
#endif
}

/* r = sqrt(z), rr = 1 / r per lane (EIG_SQRT_RECIP's arithmetic); *bad:
 * complex lanes outside the range of eig_csqrt_recip's direct formula. */
static inline void EIG(crv_sqrt_recip)(EIG(v) z, EIG(v) * r, EIG(v) * rr, eig_vm *bad)
{
#if EIG_IS_REAL
  *r = eig_vd_sqrt(z);
  *rr = 1.0 / *r;
  *bad = (eig_vm){0};
#else
  const eig_vd x = z.re, y = z.im, m2 = x * x + y * y;
  *bad = ~((eig_vm)(m2 >= eig_vd_splat(DBL_MIN)) & (eig_vm)(m2 < eig_vd_splat(DBL_MAX)));
  const eig_vd m = eig_vd_sqrt(m2);
  const eig_vd t2 = 0.5 * (m + eig_vd_abs(x)), t = eig_vd_sqrt(t2);
  const eig_vd w = 1.0 / (t * m), hy = 0.5 * y * w;
  const eig_vm pos = (eig_vm)(x >= eig_vd_splat(0.0));
  const eig_vd sy = eig_vd_sign(y), ahy = eig_vd_abs(hy), t2w = t2 * w;
  r->re = eig_vd_sel(pos, t, ahy * m);
  r->im = eig_vd_sel(pos, hy * m, (eig_vd)((eig_vm)t | (eig_vm)sy));
  rr->re = eig_vd_sel(pos, t2w, ahy);
  rr->im = eig_vd_sel(pos, -hy, -(eig_vd)((eig_vm)t2w | (eig_vm)sy));
#endif
}

/* Phase copies of ad[0..len-1] and ao[0..len-2] (zero elsewhere), in one
 * allocation *mem; returns 0 when out of memory. */
static int EIG(crph_make)(int len, const EIG_T *ad, const EIG_T *ao, EIG(crph) * pad,
                          EIG(crph) * pao, double **mem)
{
  const size_t q = (size_t)(len + EIG_CR_OFF + 3 * EIG_VL + 8) / 3 + EIG_VL;
  const int parts = EIG_IS_REAL ? 1 : 2;
  double *buf = calloc((size_t)2 * parts * 3 * q, sizeof(double));
  if (!buf)
    return 0;
  for (int part = 0; part < parts; part++)
    for (int ph = 0; ph < 3; ph++) {
      pad->v[part][ph] = buf + ((size_t)(0 * parts + part) * 3 + ph) * q;
      pao->v[part][ph] = buf + ((size_t)(1 * parts + part) * 3 + ph) * q;
    }
  for (int e = 0; e < len; e++)
    EIG(crph_set)(pad, e, ad[e]);
  for (int e = 0; e + 1 < len; e++)
    EIG(crph_set)(pao, e, ao[e]);
  *mem = buf;
  return 1;
}

/*
 * crawford_sweep's job (steps 0..nsteps-1 on entries ad[0..nsteps],
 * ao[0..nsteps-1], md[0..nsteps]) in lanes. Returns 1 when done, 0 when it
 * gave up (a failure, or no memory): ad, ao, md are then partly reduced
 * and the caller must start over from the pencil.
 */
static int EIG(crawford_sweep_lanes)(int nsteps, EIG_T *ad, EIG_T *ao, EIG_T *md,
                                     const EIG_T *mo, double mnorm, int n)
{
  enum { VL = EIG_VL };
  EIG_T t0;
  if (EIG(crawford_elim)(0, ad, ao, md, mo, mnorm, 0, n, &t0) != PSCR_SUCCESS)
    return 0; /* the scalar sweep reports it */
  EIG(crph) pad, pao;
  double *mem;
  if (!EIG(crph_make)(nsteps + 1, ad, ao, &pad, &pao, &mem))
    return 0;
  const EIG(v) zero = EIG(v_splat)(0.0);
  int ok = 1;
  for (int k = 1; ok && k < nsteps; k += VL) {
    const int nl = nsteps - k < VL ? nsteps - k : VL; /* steps k..k+nl-1 */
    EIG(v) z = zero, y = zero, b = zero, g = zero;  /* ad[j+1], ao[j], ao[j+1], bulge */
    eig_vm act = {0}; /* lanes whose chase is running */
    int live = 0;
    for (int t = 0; ok; t++) {
      const int P = k - 1 - t; /* lane a is at plane P + 3a */
      if (!(t & 1) && t / 2 < nl) {
        /* Step s = k + a: eliminate row s, then lane a starts its chase at
         * plane s - 1 (crawford_elim on a copy of the entries it touches). */
        const int a = t / 2, s = k + a;
        EIG_T wad[3] = {0.0, EIG(crph_get)(&pad, s), EIG(crph_get)(&pad, s + 1)};
        EIG_T wao[2] = {EIG(crph_get)(&pao, s - 1), EIG(crph_get)(&pao, s)};
        EIG_T ts = 0.0;
        if (EIG(crawford_elim)(1, wad, wao, md + s - 1, mo + s - 1, mnorm, 0, n, &ts) !=
            PSCR_SUCCESS) {
          ok = 0;
          break;
        }
        EIG(crph_set)(&pad, s, wad[1]);
        EIG(crph_set)(&pad, s + 1, wad[2]);
        EIG(crph_set)(&pao, s - 1, wao[0]);
        EIG(crph_set)(&pao, s, wao[1]);
        const EIG_T gs = -ts * wao[0];
        if (gs != 0.0) {
          EIG(v_put)(&z, a, wad[1]);
          EIG(v_put)(&y, a, wao[0]);
          EIG(v_put)(&b, a, wao[1]);
          EIG(v_put)(&g, a, gs);
          act[a] = -1;
          live++;
        }
      }
      if (!live) {
        if (t / 2 >= nl - 1)
          break; /* every lane has started and finished */
        continue;
      }
      /* One rotation per active lane (crawford_rot), in plane j = P + 3a. */
      const EIG(v) x = EIG(crph_load)(&pad, P), w = EIG(crph_load)(&pao, P - 1);
      const EIG(v) r2 = EIG(v_add)(EIG(v_mul)(g, g), EIG(v_mul)(b, b));
      EIG(v) r, rr;
      eig_vm bad;
      EIG(crv_sqrt_recip)(r2, &r, &rr, &bad);
#if !EIG_IS_REAL
      { /* an isotropic rotation (crawford_rot's test) */
        const eig_vd ag = EIG(v_abs1)(g), ab = EIG(v_abs1)(b);
        bad |= (eig_vm)(EIG(v_abs1)(r2) <= DBL_EPSILON * (ag * ag + ab * ab));
      }
#endif
      if (eig_vm_bits(bad & act)) {
        ok = 0;
        break;
      }
      const EIG(v) c = EIG(v_mul)(b, rr), s = EIG(v_mul)(g, rr);
      const EIG(v) cc = EIG(v_mul)(c, c), ss = EIG(v_mul)(s, s), cs = EIG(v_mul)(c, s);
      const EIG(v) cs2y = EIG(v_mul)(EIG(v_add)(cs, cs), y);
      const EIG(v) adj = EIG(v_add)(EIG(v_sub)(EIG(v_mul)(cc, x), cs2y), EIG(v_mul)(ss, z));
      const EIG(v) adj1 = EIG(v_add)(EIG(v_add)(EIG(v_mul)(ss, x), cs2y), EIG(v_mul)(cc, z));
      const EIG(v) aoj = EIG(v_add)(EIG(v_mul)(cs, EIG(v_sub)(x, z)),
                                    EIG(v_mul)(EIG(v_sub)(cc, ss), y));
      /* ad[j+1] and ao[j+1] are final for this chase. */
      EIG(crph_store)(&pad, P + 1, adj1, act);
      EIG(crph_store)(&pao, P + 1, r, act);
      z = adj;
      b = aoj;
      g = EIG(v_mul)(s, w);
      y = EIG(v_mul)(w, c);
      /* Chases that end here: at plane 0, or with a zero bulge (the scalar
       * loop's ga != 0.0). Their entries held in registers go back. */
#if EIG_IS_REAL
      eig_vm fin = (eig_vm)(g == zero);
#else
      eig_vm fin = (eig_vm)(g.re == zero.re) & (eig_vm)(g.im == zero.im);
#endif
      const int a0 = -P / 3; /* the lane at plane 0, if any */
      if (P <= 0 && P % 3 == 0 && a0 < VL)
        fin[a0] = -1;
      if (!eig_vm_bits(fin & act))
        continue;
      for (int a = 0; a < VL; a++) {
        if (!(fin[a] & act[a]))
          continue;
        const int j = P + 3 * a;
        EIG(crph_set)(&pad, j, EIG(v_get)(z, a));
        EIG(crph_set)(&pao, j, EIG(v_get)(b, a));
        if (j > 0)
          EIG(crph_set)(&pao, j - 1, EIG(v_get)(y, a));
        act[a] = 0;
        live--;
      }
    }
  }
  if (ok) {
    for (int e = 0; e <= nsteps; e++)
      ad[e] = EIG(crph_get)(&pad, e);
    for (int e = 0; e < nsteps; e++)
      ao[e] = EIG(crph_get)(&pao, e);
  }
  free(mem);
  return ok;
}
