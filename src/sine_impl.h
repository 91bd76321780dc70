/*
 * Type-generic body of the batched DST-I (sine.c, which explains the
 * algorithm), included once per real type between scalar_real.h or
 * scalar_float.h and scalar_undef.h. A chunk's data sit in two planes, re
 * and im, of N rows of `lanes` entries; row r of a plane starts at
 * r * lanes. Every loop below runs over the lanes of one or a few rows, with
 * restrict pointers, so that it vectorizes.
 */

/* The twiddle table E_r = cos(pi r / N) - i sin(pi r / N), 0 <= r < 3N/2,
   as its cosines ec and sines es: the first octant computed in double
   (sine_octant) and rounded once, the rest copied with exact symmetries. The
   FFT of length N needs e^{-2 pi i t / N} = E_{2t} for t < 3N/4, the split of
   the odd extension E_j for j <= N/2. */
static void PSCR_SUF(sine_table)(int N, PSCR_SCALAR *ec, PSCR_SCALAR *es)
{
  const int q = N / 4, h = N / 2, e = 3 * N / 2;
  for (int r = 0; r <= q; r++) {
    double c, s;
    sine_octant(r, N, &c, &s);
    ec[r] = (PSCR_SCALAR)c;
    es[r] = (PSCR_SCALAR)s;
  }
  for (int r = q + 1; r <= h; r++) { /* pi/2 - angle */
    ec[r] = es[h - r];
    es[r] = ec[h - r];
  }
  for (int r = h + 1; r <= N; r++) { /* pi - angle */
    ec[r] = -ec[N - r];
    es[r] = es[N - r];
  }
  for (int r = N + 1; r < e; r++) { /* pi + angle */
    ec[r] = -ec[r - N];
    es[r] = -es[r - N];
  }
}

/*
 * Rows j and m = N - j (0 < j < N/2) of the chunk from rows j and m of x,
 * scaled by fj and fm: pair h is column h (real part) and column H + h
 * (imaginary part; columns nh.. of it absent, zero). Lanes [0, H) get u,
 * lanes [H, 2H) get v (sine.c):
 *   u_j = a - b, u_m = -u_j, v_j = (a + b) E_j, v_m = -(a + b) conj(E_j),
 * a = fj x_j, b = fm x_m, E_j = c - i s.
 */
static inline void PSCR_SUF(sine_load2)(size_t H, size_t nh, const PSCR_SCALAR *restrict xj,
                                        const PSCR_SCALAR *restrict xm, PSCR_SCALAR fj,
                                        PSCR_SCALAR fm, PSCR_SCALAR c, PSCR_SCALAR s,
                                        PSCR_SCALAR *restrict rj, PSCR_SCALAR *restrict ij,
                                        PSCR_SCALAR *restrict rm, PSCR_SCALAR *restrict im)
{
  for (size_t h = 0; h < nh; h++) {
    const PSCR_SCALAR ar = fj * xj[h], ai = fj * xj[H + h];
    const PSCR_SCALAR br = fm * xm[h], bi = fm * xm[H + h];
    const PSCR_SCALAR dr = ar - br, di = ai - bi, sr = ar + br, si = ai + bi;
    rj[h] = dr;
    ij[h] = di;
    rm[h] = -dr;
    im[h] = -di;
    rj[H + h] = sr * c + si * s;
    ij[H + h] = si * c - sr * s;
    rm[H + h] = si * s - sr * c;
    im[H + h] = -(si * c + sr * s);
  }
  for (size_t h = nh; h < H; h++) { /* an odd chunk's last pair: imaginary part 0 */
    const PSCR_SCALAR dr = fj * xj[h] - fm * xm[h], sr = fj * xj[h] + fm * xm[h];
    rj[h] = dr;
    ij[h] = 0;
    rm[h] = -dr;
    im[h] = 0;
    rj[H + h] = sr * c;
    ij[H + h] = -(sr * s);
    rm[H + h] = -(sr * c);
    im[H + h] = -(sr * s);
  }
}

/* Row N/2 from x_{N/2} scaled by f: u = 0 and v = 2 a E_{N/2} = -2i a. */
static inline void PSCR_SUF(sine_load_mid)(size_t H, size_t nh, const PSCR_SCALAR *restrict xj,
                                           PSCR_SCALAR f, PSCR_SCALAR *restrict rj,
                                           PSCR_SCALAR *restrict ij)
{
  const PSCR_SCALAR f2 = 2 * f;
  for (size_t h = 0; h < H; h++) {
    rj[h] = 0;
    ij[h] = 0;
  }
  for (size_t h = 0; h < nh; h++) {
    rj[H + h] = f2 * xj[H + h];
    ij[H + h] = -(f2 * xj[h]);
  }
  for (size_t h = nh; h < H; h++) {
    rj[H + h] = 0;
    ij[H + h] = -(f2 * xj[h]);
  }
}

/*
 * One radix-4 butterfly of decimation in frequency (two radix-2 steps, so
 * that the outputs stay in bit-reversed order) on rows p0..p3 = b + j + t L/4
 * of a block of length L: with s = a0 + a2, d = a0 - a2, s' = a1 + a3,
 * d' = -i (a1 - a3),
 *   p0 = s + s',  p1 = (s - s') w^2,  p2 = (d + d') w,  p3 = (d - d') w^3,
 * w = e^{-2 pi i j / L} = c1 - i s1 (and so on for w^2, w^3).
 */
static inline void PSCR_SUF(sine_bfly4)(size_t lanes, PSCR_SCALAR *restrict r0,
                                        PSCR_SCALAR *restrict i0, PSCR_SCALAR *restrict r1,
                                        PSCR_SCALAR *restrict i1, PSCR_SCALAR *restrict r2,
                                        PSCR_SCALAR *restrict i2, PSCR_SCALAR *restrict r3,
                                        PSCR_SCALAR *restrict i3, PSCR_SCALAR c1, PSCR_SCALAR s1,
                                        PSCR_SCALAR c2, PSCR_SCALAR s2, PSCR_SCALAR c3,
                                        PSCR_SCALAR s3)
{
  for (size_t l = 0; l < lanes; l++) {
    const PSCR_SCALAR sr = r0[l] + r2[l], si = i0[l] + i2[l];
    const PSCR_SCALAR dr = r0[l] - r2[l], di = i0[l] - i2[l];
    const PSCR_SCALAR tr = r1[l] + r3[l], ti = i1[l] + i3[l];
    const PSCR_SCALAR er = r1[l] - r3[l], ei = i1[l] - i3[l];
    r0[l] = sr + tr;
    i0[l] = si + ti;
    const PSCR_SCALAR ar = sr - tr, ai = si - ti;
    r1[l] = ar * c2 + ai * s2;
    i1[l] = ai * c2 - ar * s2;
    const PSCR_SCALAR br = dr + ei, bi = di - er;
    r2[l] = br * c1 + bi * s1;
    i2[l] = bi * c1 - br * s1;
    const PSCR_SCALAR gr = dr - ei, gi = di + er;
    r3[l] = gr * c3 + gi * s3;
    i3[l] = gi * c3 - gr * s3;
  }
}

/* sine_bfly4 with j = 0: no twiddle factors. */
static inline void PSCR_SUF(sine_bfly4_0)(size_t lanes, PSCR_SCALAR *restrict r0,
                                          PSCR_SCALAR *restrict i0, PSCR_SCALAR *restrict r1,
                                          PSCR_SCALAR *restrict i1, PSCR_SCALAR *restrict r2,
                                          PSCR_SCALAR *restrict i2, PSCR_SCALAR *restrict r3,
                                          PSCR_SCALAR *restrict i3)
{
  for (size_t l = 0; l < lanes; l++) {
    const PSCR_SCALAR sr = r0[l] + r2[l], si = i0[l] + i2[l];
    const PSCR_SCALAR dr = r0[l] - r2[l], di = i0[l] - i2[l];
    const PSCR_SCALAR tr = r1[l] + r3[l], ti = i1[l] + i3[l];
    const PSCR_SCALAR er = r1[l] - r3[l], ei = i1[l] - i3[l];
    r0[l] = sr + tr;
    i0[l] = si + ti;
    r1[l] = sr - tr;
    i1[l] = si - ti;
    r2[l] = dr + ei;
    i2[l] = di - er;
    r3[l] = dr - ei;
    i3[l] = di + er;
  }
}

/* The last radix-4 step (L = 4, no twiddles) where only p0 and p2 are
   needed (rows b and b + 2: m = bitrev(row) < N/2). */
static inline void PSCR_SUF(sine_last4)(size_t lanes, PSCR_SCALAR *restrict r0,
                                        PSCR_SCALAR *restrict i0, const PSCR_SCALAR *restrict r1,
                                        const PSCR_SCALAR *restrict i1, PSCR_SCALAR *restrict r2,
                                        PSCR_SCALAR *restrict i2, const PSCR_SCALAR *restrict r3,
                                        const PSCR_SCALAR *restrict i3)
{
  for (size_t l = 0; l < lanes; l++) {
    const PSCR_SCALAR sr = r0[l] + r2[l], si = i0[l] + i2[l];
    const PSCR_SCALAR dr = r0[l] - r2[l], di = i0[l] - i2[l];
    const PSCR_SCALAR tr = r1[l] + r3[l], ti = i1[l] + i3[l];
    const PSCR_SCALAR er = r1[l] - r3[l], ei = i1[l] - i3[l];
    r0[l] = sr + tr;
    i0[l] = si + ti;
    r2[l] = dr + ei;
    i2[l] = di - er;
  }
}

/* The last radix-2 step (L = 2) where only row b is needed. */
static inline void PSCR_SUF(sine_last2)(size_t lanes, PSCR_SCALAR *restrict r0,
                                        PSCR_SCALAR *restrict i0, const PSCR_SCALAR *restrict r1,
                                        const PSCR_SCALAR *restrict i1)
{
  for (size_t l = 0; l < lanes; l++) {
    r0[l] += r1[l];
    i0[l] += i1[l];
  }
}

/* Row k of x from a chunk row's lanes re[0..H), im[0..H): column h gets
   y_a = -g Im Z and column H + h (h < nh) y_b = g Re Z (sine.c), g = half the
   row's scale. */
static inline void PSCR_SUF(sine_store)(size_t H, size_t nh, PSCR_SCALAR g,
                                        const PSCR_SCALAR *restrict re,
                                        const PSCR_SCALAR *restrict im, PSCR_SCALAR *restrict xk)
{
  for (size_t h = 0; h < nh; h++) {
    xk[h] = -(g * im[h]);
    xk[H + h] = g * re[h];
  }
  for (size_t h = nh; h < H; h++)
    xk[h] = -(g * im[h]);
}

/* What every work item of one call shares. */
typedef struct PSCR_SUF(sine_job) {
  int N, lg;
  size_t width, nchunk, bstride, ld, cols, per;
  PSCR_SCALAR *x;
  const PSCR_SCALAR *pre, *post; /* scales before (inverse) or after (forward) */
} PSCR_SUF(sine_job);

/* Rows k = 2m and 2m + 1 of x from chunk row r, m = bitrev(r) < N/2 (k = 0
   is not a row). */
static inline void PSCR_SUF(sine_store_pair)(const PSCR_SUF(sine_job) * jb, size_t H, size_t nh,
                                             size_t r, const PSCR_SCALAR *re, const PSCR_SCALAR *im,
                                             PSCR_SCALAR *xb)
{
  const size_t lanes = 2 * H, k = 2 * (size_t)sine_bitrev((uint32_t)r, jb->lg);
  const PSCR_SCALAR *pr = re + r * lanes, *pi = im + r * lanes;
  const PSCR_SCALAR half = (PSCR_SCALAR)0.5;
  if (k > 0)
    PSCR_SUF(sine_store)(H, nh, jb->post ? half * jb->post[k - 1] : half, pr, pi,
                         xb + (k - 1) * jb->ld);
  PSCR_SUF(sine_store)(H, nh, jb->post ? half * jb->post[k] : half, pr + H, pi + H,
                       xb + k * jb->ld);
}

/* Work item `it`: chunk it % nchunk of batch it / nchunk, in the scratch ws
   whose twiddle table is filled. */
static void PSCR_SUF(sine_item)(const PSCR_SUF(sine_job) * jb, size_t it, PSCR_SCALAR *ws)
{
  const int N = jb->N;
  const size_t batch = it / jb->nchunk, c0 = (it % jb->nchunk) * jb->width;
  const size_t C = jb->cols - c0 < jb->width ? jb->cols - c0 : jb->width;
  const size_t H = (C + 1) / 2, nh = C - H, lanes = 2 * H, ld = jb->ld;
  PSCR_SCALAR *xb = jb->x + batch * jb->bstride + c0;
  PSCR_SCALAR *re = ws, *im = ws + (size_t)N * jb->width;
  const PSCR_SCALAR *ec = ws + 2 * (size_t)N * jb->width, *es = ec + sine_table_len(N);
  const PSCR_SCALAR *pre = jb->pre;

  /* Split of the odd extension (sine.c): rows 0 and N/2, then pairs j, N - j.
     x's row j is xb + (j - 1) ld. */
  for (size_t l = 0; l < lanes; l++) {
    re[l] = 0;
    im[l] = 0;
  }
  const size_t mid = (size_t)N / 2;
  PSCR_SUF(sine_load_mid)(H, nh, xb + (mid - 1) * ld, pre ? pre[mid - 1] : 1, re + mid * lanes,
                          im + mid * lanes);
  for (size_t j = 1; j < mid; j++) {
    const size_t m = (size_t)N - j;
    PSCR_SUF(sine_load2)(H, nh, xb + (j - 1) * ld, xb + (m - 1) * ld, pre ? pre[j - 1] : 1,
                         pre ? pre[m - 1] : 1, ec[j], es[j], re + j * lanes, im + j * lanes,
                         re + m * lanes, im + m * lanes);
  }

  /* Radix-4 steps on blocks of length L = N, N/4, ... down to 8; the
     twiddle factor e^{-2 pi i j / L} is E_{j ts}, ts = 2N / L. */
  int L = N;
  for (; L >= 8; L /= 4) {
    const size_t q = (size_t)L / 4, d = q * lanes, ts = 2 * (size_t)N / (size_t)L;
    for (size_t b = 0; b < (size_t)N; b += (size_t)L) {
      PSCR_SCALAR *r = re + b * lanes, *i = im + b * lanes;
      PSCR_SUF(sine_bfly4_0)(lanes, r, i, r + d, i + d, r + 2 * d, i + 2 * d, r + 3 * d, i + 3 * d);
      for (size_t j = 1; j < q; j++) {
        r = re + (b + j) * lanes;
        i = im + (b + j) * lanes;
        const size_t t = j * ts;
        PSCR_SUF(sine_bfly4)(lanes, r, i, r + d, i + d, r + 2 * d, i + 2 * d, r + 3 * d, i + 3 * d,
                             ec[t], es[t], ec[2 * t], es[2 * t], ec[3 * t], es[3 * t]);
      }
    }
  }

  /* The last step, pruned to the rows of m < N/2 (even rows), each written
     back to x while it is in L1. */
  if (L == 4) {
    for (size_t b = 0; b < (size_t)N; b += 4) {
      PSCR_SCALAR *r = re + b * lanes, *i = im + b * lanes;
      PSCR_SUF(sine_last4)(lanes, r, i, r + lanes, i + lanes, r + 2 * lanes, i + 2 * lanes,
                           r + 3 * lanes, i + 3 * lanes);
      PSCR_SUF(sine_store_pair)(jb, H, nh, b, re, im, xb);
      PSCR_SUF(sine_store_pair)(jb, H, nh, b + 2, re, im, xb);
    }
  } else {
    for (size_t b = 0; b < (size_t)N; b += 2) {
      PSCR_SCALAR *r = re + b * lanes, *i = im + b * lanes;
      PSCR_SUF(sine_last2)(lanes, r, i, r + lanes, i + lanes);
      PSCR_SUF(sine_store_pair)(jb, H, nh, b, re, im, xb);
    }
  }
}

void PSCR_SUF(pscr_sine)(int n, size_t nb, size_t bstride, size_t ld, size_t cols, PSCR_SCALAR *x,
                         const PSCR_SCALAR *scale, int inverse, int nt, PSCR_SCALAR *scratch)
{
  if (!pscr_sine_supported(n) || nb == 0 || cols == 0)
    return;
  PSCR_SUF(sine_job) jb;
  jb.N = n + 1;
  jb.lg = sine_log2(jb.N);
  jb.width = sine_width(jb.N, sizeof(PSCR_SCALAR));
  jb.nchunk = (cols + jb.width - 1) / jb.width;
  jb.bstride = bstride;
  jb.ld = ld;
  jb.cols = cols;
  jb.per = pscr_sine_scratch(n);
  jb.x = x;
  jb.pre = inverse ? scale : NULL;
  jb.post = inverse ? NULL : scale;
  const size_t items = nb * jb.nchunk;
  PSCR_SCALAR *const tab = scratch + 2 * (size_t)jb.N * jb.width;
  if (nt <= 1 || items == 1) { /* a single item needs no team */
    PSCR_SUF(sine_table)(jb.N, tab, tab + sine_table_len(jb.N));
    for (size_t it = 0; it < items; it++)
      PSCR_SUF(sine_item)(&jb, it, scratch);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    PSCR_SCALAR *ws = scratch + (size_t)omp_get_thread_num() * jb.per;
    int ready = 0; /* this thread's twiddle table is filled */
#pragma omp for schedule(dynamic)
    for (size_t it = 0; it < items; it++) {
      if (!ready) {
        PSCR_SCALAR *t = ws + 2 * (size_t)jb.N * jb.width;
        PSCR_SUF(sine_table)(jb.N, t, t + sine_table_len(jb.N));
        ready = 1;
      }
      PSCR_SUF(sine_item)(&jb, it, ws);
    }
  }
}
