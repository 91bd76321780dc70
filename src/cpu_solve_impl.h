/*
 * Type-generic body of the CPU backend (cpu_solve.c): the radix-4 PSCR
 * forward reduction and back substitution of docs/design.md (paper eqs.
 * 24-29 with the partial solution technique, eqs. 18-21), recursive over
 * dimensions: along dimension d a "vector" is a slab of S = prod_{e>d} n_e
 * entries and the subproblem solve is the operator of the remaining
 * dimensions with shift c + lambda (eq. 9); the last dimension is a Thomas
 * solve. Included once per scalar type: double and double complex, and
 * float and float complex for single-precision plans, whose factors, lambda
 * and w the plan holds rounded to float (plan.h).
 */

/*
 * Thomas algorithm for `lanes` independent systems (A + s_l M) x_l = r_l
 * stored interleaved, x[i * lanes + l]; coefficients formed on the fly from
 * the pencil. x holds r on entry; cp: n * lanes scratch. The elimination
 * recurrence is latency-bound (a reciprocal per row), so interleaving
 * several systems keeps the floating-point units busy and vectorizes.
 * Returns a mask with bit l set when a pivot of lane l is numerically zero:
 * |pivot| at or below the rounding error of the subtraction that produced it.
 */
static inline int PSCR_SUF(thomas)(const PSCR_SUF(pscr_factor) * f, const PSCR_SCALAR *s,
                                   PSCR_SCALAR *restrict x, PSCR_SCALAR *restrict cp,
                                   const int lanes)
{
  const int n = f->a.n;
  const PSCR_SCALAR *ad = f->a.diag, *ao = f->a.off, *md = f->m.diag, *mo = f->m.off;
  PSCR_SCALAR e[PSCR_LANES];
  int bad = 0;
  for (int l = 0; l < lanes; l++) {
    PSCR_SCALAR b = ad[0] + s[l] * md[0];
    bad |= !(PSCR_ABS1(b) > 0) << l;
    PSCR_SCALAR inv = PSCR_INV(b);
    x[l] *= inv;
    e[l] = n > 1 ? ao[0] + s[l] * mo[0] : 0;
    cp[l] = e[l] * inv;
  }
  for (int i = 1; i < n; i++) {
    PSCR_SCALAR *xi = x + (size_t)i * lanes, *ci = cp + (size_t)i * lanes;
    const PSCR_SCALAR *xp = xi - lanes, *cq = ci - lanes;
    const PSCR_SCALAR a_next = i < n - 1 ? ao[i] : 0, m_next = i < n - 1 ? mo[i] : 0;
    for (int l = 0; l < lanes; l++) {
      PSCR_SCALAR t = e[l] * cq[l];
      PSCR_SCALAR diag = ad[i] + s[l] * md[i];
      PSCR_SCALAR piv = diag - t;
      bad |= !(PSCR_ABS1(piv) > PSCR_EPS * (PSCR_ABS1(diag) + PSCR_ABS1(t))) << l;
      PSCR_SCALAR inv = PSCR_INV(piv);
      xi[l] = (xi[l] - e[l] * xp[l]) * inv;
      e[l] = a_next + s[l] * m_next;
      ci[l] = e[l] * inv;
    }
  }
  for (int i = n - 2; i >= 0; i--) {
    PSCR_SCALAR *xi = x + (size_t)i * lanes;
    const PSCR_SCALAR *xn = xi + lanes, *ci = cp + (size_t)i * lanes;
    for (int l = 0; l < lanes; l++)
      xi[l] -= ci[l] * xn[l];
  }
  return bad;
}

/*
 * out (op)= T(j, jp) y for dimension d with shift c (docs/design.md):
 *   T(j, jp) y = ((A_d)_jp + c (M_d)_jp) Mrest y + (M_d)_jp Arest y,
 * Mrest, Arest the mass and stiffness of dimensions d+1.. .
 */
static void PSCR_SUF(coupling)(const pscr_plan *p, int d, PSCR_SCALAR c, int j, int jp,
                               const PSCR_SCALAR *y, PSCR_SCALAR *out, int subtract,
                               PSCR_SCALAR *mass, PSCR_SCALAR *stiff)
{
  const PSCR_SUF(pscr_factor) *F = &p->PSCR_SUF(fac)[d];
  int o = j < jp ? j : jp;
  PSCR_SCALAR alpha = F->a.off[o] + c * F->m.off[o], beta = F->m.off[o];
  size_t S = pscr_plan_slab(p, d);
  if (d + 2 == p->ndim) {
    /* The rest is one tridiagonal pencil: alpha M + beta A in one pass. */
    const PSCR_SUF(pscr_factor) *R = &p->PSCR_SUF(fac)[d + 1];
    const int n = R->a.n;
    const PSCR_SCALAR *ad = R->a.diag, *ao = R->a.off, *md = R->m.diag, *mo = R->m.off;
    for (int t = 0; t < n; t++) {
      PSCR_SCALAR v = (alpha * md[t] + beta * ad[t]) * y[t];
      if (t > 0)
        v += (alpha * mo[t - 1] + beta * ao[t - 1]) * y[t - 1];
      if (t < n - 1)
        v += (alpha * mo[t] + beta * ao[t]) * y[t + 1];
      /* A branch, not keep * out[t]: out may be scratch holding NaN bits. */
      if (subtract)
        out[t] -= v;
      else
        out[t] = v;
    }
    return;
  }
  PSCR_SUF(pscr_kron_mass_stiff)(p->ndim - d - 1, &p->PSCR_SUF(fac)[d + 1], y, mass, stiff);
  if (subtract)
    for (size_t t = 0; t < S; t++)
      out[t] -= alpha * mass[t] + beta * stiff[t];
  else
    for (size_t t = 0; t < S; t++)
      out[t] = alpha * mass[t] + beta * stiff[t];
}

static int PSCR_SUF(solve_dim)(const pscr_plan *p, int d, PSCR_SCALAR c, PSCR_SCALAR *x,
                               int owner, int nt);

/*
 * A group of g <= lanes eigenpairs of one block, e0 .. e0+g-1 (eqs. 25-29):
 *   r_l = sum_q w_l[q] src_q, with sources F_s (s in D(B)) and, in the back
 *   substitution, the neighbour couplings gL, gR weighted by -w[first],
 *   -w[last]; then solve the subproblem of dimensions d+1.. with shift
 *   c + lambda_l for every lane, and add sum_l v_l[o] r_l into each output.
 * Lanes past g get zero weights and lane 0's shift: they solve a zero
 * right-hand side and contribute nothing.
 */
typedef struct PSCR_SUF(group) {
  int nsrc, nout;
  const PSCR_SCALAR *src[PSCR_D_MAX + 2];
  PSCR_SCALAR cin[PSCR_D_MAX + 2][PSCR_LANES];
  PSCR_SCALAR *out[PSCR_D_MAX];
  PSCR_SCALAR cout[PSCR_D_MAX][PSCR_LANES];
  PSCR_SCALAR shift[PSCR_LANES];
} PSCR_SUF(group);

static inline int PSCR_SUF(group_run)(const pscr_plan *p, int d, const PSCR_SUF(group) * G,
                                      PSCR_SCALAR *restrict r, int owner, const int lanes)
{
  const pscr_cpu_ws *ws = p->backend_data;
  const size_t S = pscr_plan_slab(p, d);
  for (size_t t = 0; t < S; t++) {
    PSCR_SCALAR v[PSCR_LANES] = {0};
    for (int q = 0; q < G->nsrc; q++) {
      const PSCR_SCALAR xs = G->src[q][t];
      for (int l = 0; l < lanes; l++)
        v[l] += G->cin[q][l] * xs;
    }
    for (int l = 0; l < lanes; l++)
      r[t * lanes + l] = v[l];
  }
  int bad;
  if (d + 1 == p->ndim - 1)
    bad = PSCR_SUF(thomas)(&p->PSCR_SUF(fac)[d + 1], G->shift, r,
                           (PSCR_SCALAR *)ws->thomas_buf + (size_t)owner * ws->thomas_stride,
                           lanes);
  else
    bad = PSCR_SUF(solve_dim)(p, d + 1, G->shift[0], r, owner, 1); /* lanes == 1 */
  for (int o = 0; o < G->nout; o++) {
    PSCR_SCALAR *restrict out = G->out[o];
    for (size_t t = 0; t < S; t++) {
      PSCR_SCALAR v = out[t];
      for (int l = 0; l < lanes; l++)
        v += G->cout[o][l] * r[t * lanes + l];
      out[t] = v;
    }
  }
  return bad;
}

/*
 * Fill a group for eigenpairs e0 .. e0+g-1 of block B. back: include the
 * neighbour couplings (gl, gr may be NULL) and write into u_acc; otherwise
 * accumulate L_B, R_B into lr[0], lr[1].
 */
static void PSCR_SUF(group_fill)(PSCR_SUF(group) * G, const pscr_plan *p, int d, PSCR_SCALAR c,
                                 const pscr_block *B, int e0, int g, const PSCR_SCALAR *x,
                                 const PSCR_SCALAR *gl, const PSCR_SCALAR *gr,
                                 PSCR_SCALAR *const *outs, int back, int lanes)
{
  const PSCR_SCALAR *lam = p->lambda[d], *W = p->w[d];
  const size_t S = pscr_plan_slab(p, d);
  G->nsrc = 0;
  for (int q = 0; q < B->nd; q++)
    G->src[G->nsrc++] = x + (size_t)B->d[q] * S;
  int first_src = -1, last_src = -1;
  if (back && gl) {
    first_src = G->nsrc;
    G->src[G->nsrc++] = gl;
  }
  if (back && gr) {
    last_src = G->nsrc;
    G->src[G->nsrc++] = gr;
  }
  G->nout = back ? B->nd : 2;
  for (int o = 0; o < G->nout; o++)
    G->out[o] = outs[o];
  for (int l = 0; l < lanes; l++) {
    const int live = l < g;
    const size_t e = B->eig + (size_t)e0 + (size_t)(live ? l : 0);
    const PSCR_SCALAR *w = W + e * PSCR_W_SLOTS;
    G->shift[l] = c + lam[e];
    for (int q = 0; q < B->nd; q++)
      G->cin[q][l] = live ? w[pscr_d_slot(q)] : 0;
    if (first_src >= 0)
      G->cin[first_src][l] = live ? -w[PSCR_W_FIRST] : 0;
    if (last_src >= 0)
      G->cin[last_src][l] = live ? -w[PSCR_W_LAST] : 0;
    for (int o = 0; o < G->nout; o++)
      G->cout[o][l] = !live  ? 0
                      : back ? w[pscr_d_slot(o)]
                             : w[o == 0 ? PSCR_W_FIRST : PSCR_W_LAST];
  }
}

/* Remember the first singular subproblem of a solve for the detail message. */
static void PSCR_SUF(record_failure)(const pscr_plan *p, int d, int level, const pscr_block *B,
                                     int e, PSCR_SCALAR shift)
{
  pscr_cpu_ws *ws = p->backend_data;
  /* The first thread to claim the record writes it; it is read after the
     parallel region. (An atomic claim, not a named critical section: those
     are global symbols that the library would export.) */
  int claimed;
#pragma omp atomic capture
  {
    claimed = ws->fail_claim;
    ws->fail_claim = 1;
  }
  if (!claimed)
    ws->fail = (pscr_cpu_failure){1, d, level, B->first, B->last, e, {creal(shift), cimag(shift)}};
}

/* All eigenpairs of one work item, in groups of `lanes`. */
static inline int PSCR_SUF(item_run)(const pscr_plan *p, int d, int level, PSCR_SCALAR c,
                                     const pscr_block *B, const pscr_item *item,
                                     const PSCR_SCALAR *x, const PSCR_SCALAR *gl,
                                     const PSCR_SCALAR *gr, PSCR_SCALAR *const *outs, int back,
                                     PSCR_SCALAR *r, int owner, const int lanes)
{
  int bad = 0;
  PSCR_SUF(group) G = {0};
  for (int e = item->e0; e < item->e1; e += lanes) {
    int g = item->e1 - e < lanes ? item->e1 - e : lanes;
    PSCR_SUF(group_fill)(&G, p, d, c, B, e, g, x, gl, gr, outs, back, lanes);
    int mask = PSCR_SUF(group_run)(p, d, &G, r, owner, lanes);
    if (mask) {
      int lane = 0;
      while (lane < lanes - 1 && !(mask >> lane & 1))
        lane++;
      PSCR_SUF(record_failure)(p, d, level, B, e + lane, G.shift[lane]);
      bad = 1;
    }
  }
  return bad;
}

/* Specialize on the lane count: interleaved Thomas at the last dimension,
   one lane when the subproblem is itself a PSCR solve. */
static int PSCR_SUF(item)(const pscr_plan *p, int d, int level, PSCR_SCALAR c, const pscr_block *B,
                          const pscr_item *item, const PSCR_SCALAR *x, const PSCR_SCALAR *gl,
                          const PSCR_SCALAR *gr, PSCR_SCALAR *const *outs, int back,
                          PSCR_SCALAR *r, int owner)
{
  if (d + 1 == p->ndim - 1)
    return PSCR_SUF(item_run)(p, d, level, c, B, item, x, gl, gr, outs, back, r, owner,
                              PSCR_LANES);
  return PSCR_SUF(item_run)(p, d, level, c, B, item, x, gl, gr, outs, back, r, owner, 1);
}

/* Per-thread scratch of dimension d: r (PSCR_LANES S), gL, gR, mass, stiff. */
static PSCR_SCALAR *PSCR_SUF(thread_buf)(const pscr_cpu_ws *ws, int d, int me)
{
  return (PSCR_SCALAR *)ws->thr_buf[d] + (size_t)me * ws->thr_stride[d];
}

/* The phases of one level (solve_dim): its work items, the sums of each
   block's items, the couplings; `me` is the thread whose scratch is used. */
typedef struct PSCR_SUF(level_ctx) {
  const pscr_plan *p;
  const pscr_cpu_ws *ws;
  const pscr_level *L;
  int d, i, n;
  PSCR_SCALAR c, *x, *items;
  size_t S, IS;
} PSCR_SUF(level_ctx);

/* Forward reduction, item it of level i: its L_B, R_B partial sums. */
static int PSCR_SUF(fwd_item)(const PSCR_SUF(level_ctx) * C, int it, int me)
{
  const size_t S = C->S;
  PSCR_SCALAR *r = PSCR_SUF(thread_buf)(C->ws, C->d, me);
  const pscr_item *item = &C->L->items[it];
  PSCR_SCALAR *lr[2] = {C->items + (size_t)it * C->IS, C->items + (size_t)it * C->IS + S};
  memset(lr[0], 0, 2 * S * sizeof *lr[0]);
  return PSCR_SUF(item)(C->p, C->d, C->i, C->c, &C->L->blocks[item->block], item, C->x, NULL,
                        NULL, lr, 0, r, me);
}

/* Sum the items of block b into its first item's buffers (in item order:
   the same bits for any number of threads). `nacc`: sums per item. */
static void PSCR_SUF(block_sum)(const PSCR_SUF(level_ctx) * C, int b, size_t nacc)
{
  const pscr_level *L = C->L;
  PSCR_SCALAR *acc = C->items + (size_t)L->block_item0[b] * C->IS;
  for (int it = L->block_item0[b] + 1; it < L->block_item0[b + 1]; it++) {
    const PSCR_SCALAR *part = C->items + (size_t)it * C->IS;
    for (size_t t = 0; t < nacc * C->S; t++)
      acc[t] += part[t];
  }
}

/* F_j -= T(j, j-1) R_{B-} + T(j, j+1) L_{B+} for the q-th j of J_i (eq. 27). */
static void PSCR_SUF(fwd_couple)(const PSCR_SUF(level_ctx) * C, int q, int me)
{
  const pscr_level *L = C->L;
  const size_t S = C->S;
  PSCR_SCALAR *r = PSCR_SUF(thread_buf)(C->ws, C->d, me);
  PSCR_SCALAR *mass = r + (PSCR_LANES + 2) * S, *stiff = mass + S;
  const int j = L->j[q];
  PSCR_SCALAR *xj = C->x + (size_t)j * S;
  if (L->jleft[q] >= 0) {
    const PSCR_SCALAR *rb = C->items + (size_t)L->block_item0[L->jleft[q]] * C->IS + S;
    PSCR_SUF(coupling)(C->p, C->d, C->c, j, j - 1, rb, xj, 1, mass, stiff);
  }
  if (L->jright[q] >= 0) {
    const PSCR_SCALAR *lb = C->items + (size_t)L->block_item0[L->jright[q]] * C->IS;
    PSCR_SUF(coupling)(C->p, C->d, C->c, j, j + 1, lb, xj, 1, mass, stiff);
  }
}

/* Back substitution, item it of level i: gL, gR, then its share of u on D(B). */
static int PSCR_SUF(back_item)(const PSCR_SUF(level_ctx) * C, int it, int me)
{
  const size_t S = C->S;
  PSCR_SCALAR *r = PSCR_SUF(thread_buf)(C->ws, C->d, me);
  PSCR_SCALAR *gl = r + PSCR_LANES * S, *gr = gl + S, *mass = gr + S, *stiff = mass + S;
  const pscr_item *item = &C->L->items[it];
  const pscr_block *B = &C->L->blocks[item->block];
  PSCR_SCALAR *acc = C->items + (size_t)it * C->IS;
  PSCR_SCALAR *outs[PSCR_D_MAX] = {acc, acc + S, acc + 2 * S, B->nd > 3 ? acc + 3 * S : NULL};
  memset(acc, 0, (size_t)B->nd * S * sizeof *acc);
  const int has_l = B->first > 0, has_r = B->last < C->n - 1;
  if (has_l)
    PSCR_SUF(coupling)(C->p, C->d, C->c, B->first, B->first - 1,
                       C->x + (size_t)(B->first - 1) * S, gl, 0, mass, stiff);
  if (has_r)
    PSCR_SUF(coupling)(C->p, C->d, C->c, B->last, B->last + 1,
                       C->x + (size_t)(B->last + 1) * S, gr, 0, mass, stiff);
  return PSCR_SUF(item)(C->p, C->d, C->i, C->c, B, item, C->x, has_l ? gl : NULL,
                        has_r ? gr : NULL, outs, 1, r, me);
}

/* u on D(B) of block b: its items' sums (every F_s of the level has been
   read by then, so u_s may replace it). */
static void PSCR_SUF(back_store)(const PSCR_SUF(level_ctx) * C, int b)
{
  const pscr_level *L = C->L;
  const pscr_block *B = &L->blocks[b];
  const size_t S = C->S;
  for (int q = 0; q < B->nd; q++) {
    PSCR_SCALAR *u = C->x + (size_t)B->d[q] * S;
    const PSCR_SCALAR *a0 = C->items + (size_t)L->block_item0[b] * C->IS + (size_t)q * S;
    memcpy(u, a0, S * sizeof *u);
    for (int it = L->block_item0[b] + 1; it < L->block_item0[b + 1]; it++) {
      const PSCR_SCALAR *a = C->items + (size_t)it * C->IS + (size_t)q * S;
      for (size_t t = 0; t < S; t++)
        u[t] += a[t];
    }
  }
}

/*
 * Dimension d by its dense transform (PSCR_METHOD_TRANSFORM,
 * docs/design.md): with W^T A_d W = Lambda and W^T M_d W = I, the operator
 * of dimensions d.. is W^-T [sum_k e_k e_k^T (x) (Arest + (c + lambda_k)
 * Mrest)] W^-1, so G = W^T X (one product), row k of G solved by the
 * remaining dimensions with shift c + lambda_k, and X = W G (one product).
 * p->w[d] is E = W^T, row-major. At dimension 1 the rows go to `nt`
 * threads as they come; deeper, the calling thread `owner` does all. The
 * rows do not depend on the thread count, nor does the result.
 */
/*
 * Rows k0 .. k0+lanes-1 of a transform of dimension d whose next dimension
 * is the last: row k0 + l at y + l n_{d+1}, solved in place by the
 * interleaved Thomas solver with shift[l] (lanes past `lanes` solve zeros
 * with lane 0's shift) in thread me's scratch. A failing row is recorded
 * (row k0 + l of the whole dimension d); returns 1 then.
 */
static int PSCR_SUF(transform_rows)(const pscr_plan *p, int d, PSCR_SCALAR *y, int k0, int lanes,
                                    const PSCR_SCALAR *shift, int me, int rec_d)
{
  const pscr_cpu_ws *ws = p->backend_data;
  const size_t len = (size_t)p->n[d + 1];
  PSCR_SCALAR *r = PSCR_SUF(thread_buf)(ws, d, me);
  for (size_t t = 0; t < len; t++)
    for (int l = 0; l < PSCR_LANES; l++)
      r[t * PSCR_LANES + l] = l < lanes ? y[(size_t)l * len + t] : 0;
  int mask = PSCR_SUF(thomas)(&p->PSCR_SUF(fac)[d + 1], shift, r,
                              (PSCR_SCALAR *)ws->thomas_buf + (size_t)me * ws->thomas_stride,
                              PSCR_LANES);
  for (size_t t = 0; t < len; t++)
    for (int l = 0; l < lanes; l++)
      y[(size_t)l * len + t] = r[t * PSCR_LANES + l];
  mask &= (1 << lanes) - 1;
  if (!mask)
    return 0;
  int l = 0;
  while (!(mask >> l & 1))
    l++;
  const pscr_block whole = {0, p->n[rec_d] - 1, 0, {0}, 0};
  PSCR_SUF(record_failure)(p, rec_d, 0, &whole, k0 + l, shift[l]);
  return 1;
}

/*
 * Rows of an n_rows x n_cols matrix of rows of len entries, from a to b
 * transposed as blocks: a[r][q][:] -> b[q][r][:], over the team (each row
 * of len entries is one memcpy).
 */
static void PSCR_SUF(swap_rows)(const PSCR_SCALAR *a, PSCR_SCALAR *b, int n_rows, int n_cols,
                                int len, int nt)
{
  const size_t row = (size_t)len * sizeof *a;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int q = 0; q < n_cols; q++)
    for (int r = 0; r < n_rows; r++)
      memcpy(b + ((size_t)q * n_rows + r) * len, a + ((size_t)r * n_cols + q) * len, row);
}

/*
 * The n1 n2 rows along dimension 3 of 3D transform x transform, over the
 * team: y holds n_out blocks of T entries, block o its n_lane rows of n3
 * (row (o, k) at y + o T + k n3), solved with shift (c + lambda1) +
 * lambda2 of the row's modes: lam_out[o] and lam_lane[k], which are
 * lambda1 and lambda2 where out_is_1, else the other way round. A failing
 * row is recorded as mode k of dimension rec_d + 1.
 */
static int PSCR_SUF(transform_tt_rows)(const pscr_plan *p, PSCR_SCALAR c, PSCR_SCALAR *y,
                                       size_t T, int n_out, int n_lane,
                                       const PSCR_SCALAR *lam_out, const PSCR_SCALAR *lam_lane,
                                       int out_is_1, int rec_d, int nt)
{
  const size_t n3 = (size_t)p->n[2];
  const int per = (n_lane + PSCR_LANES - 1) / PSCR_LANES, groups = n_out * per;
  int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (nt > 1) reduction(| : bad)
  for (int q = 0; q < groups; q++) {
    const int me = omp_get_thread_num(), o = q / per, l0 = q % per * PSCR_LANES;
    const int lanes = n_lane - l0 < PSCR_LANES ? n_lane - l0 : PSCR_LANES;
    PSCR_SCALAR shift[PSCR_LANES];
    for (int l = 0; l < PSCR_LANES; l++) {
      const PSCR_SCALAR lk = lam_lane[l0 + (l < lanes ? l : 0)];
      shift[l] = out_is_1 ? (c + lam_out[o]) + lk : (c + lk) + lam_out[o];
    }
    bad |= PSCR_SUF(transform_rows)(p, 1, y + (size_t)o * T + (size_t)l0 * n3, l0, lanes, shift,
                                    me, rec_d);
  }
  return bad;
}

/*
 * 3D with both reduced dimensions transformed, from the top, in five BLAS
 * products' worth of passes: g = E1 x (g[l][m][k]: l the eigenvector of
 * dimension 1); x = g with its first two indices swapped (x[m][l][k]);
 * g = E2 x, one product over all l at once (g[i][l][k]); the n1 n2 rows
 * along dimension 3, row (i, l) with shift (c + lambda1_l) + lambda2_i,
 * over the team; x = E2^T g; g = x swapped back; x = E1^T g. Each product
 * is one BLAS call from the calling thread, so that BLAS's own threads
 * serve it: the swap costs two copies of the data, and replaces the n1
 * small products per direction of one slab each (127 calls of 127^3 at 3D
 * 127^3), whose every call paid BLAS's thread start-up (and, called from
 * the team's threads at once, ran one after another).
 */
static int PSCR_SUF(transform_tt)(const pscr_plan *p, PSCR_SCALAR c, PSCR_SCALAR *x, int nt)
{
  const pscr_cpu_ws *ws = p->backend_data;
  const int n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
  const size_t S = (size_t)n1 * (size_t)n2, T = (size_t)n0 * (size_t)n2;
  const PSCR_SCALAR *E1 = p->w[0], *E2 = p->w[1], *lam1 = p->lambda[0], *lam2 = p->lambda[1];
  PSCR_SCALAR *g = (PSCR_SCALAR *)ws->tf_buf[0];
  PSCR_SUF(pscr_gemm)(0, n0, S, E1, x, g);
  PSCR_SUF(swap_rows)(g, x, n0, n1, n2, nt);
  PSCR_SUF(pscr_gemm)(0, n1, T, E2, x, g);
  /* g[i][l][k]: dimension 2's mode i outside, dimension 1's l in lanes. */
  const int bad = PSCR_SUF(transform_tt_rows)(p, c, g, T, n1, n0, lam2, lam1, 0, 0, nt);
  PSCR_SUF(pscr_gemm)(1, n1, T, E2, g, x);
  PSCR_SUF(swap_rows)(x, g, n1, n0, n2, nt);
  PSCR_SUF(pscr_gemm)(1, n0, S, E1, g, x);
  return bad;
}

/*
 * 3D with both reduced dimensions transformed by the fast sine transform
 * (pscr_cpu_sine): in place, no copy of the data: dimension 1's transform
 * over slabs of n2 n3 columns, dimension 2's over the n1 slabs' n3
 * columns, then the n1 n2 rows along dimension 3 (row (k1, k2) with shift
 * (c + lambda1_k1) + lambda2_k2) over the team, and the transforms back.
 */
static int PSCR_SUF(transform_tt_sine)(const pscr_plan *p, PSCR_SCALAR c, PSCR_SCALAR *x, int nt)
{
  const int n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
  const size_t S = (size_t)n1 * (size_t)n2;
  const PSCR_SCALAR *lam1 = p->lambda[0], *lam2 = p->lambda[1];
  PSCR_SUF(pscr_sine_apply)(p, 0, x, 1, 0, S, S, 0, nt, 0);
  PSCR_SUF(pscr_sine_apply)(p, 1, x, (size_t)n0, S, (size_t)n2, (size_t)n2, 0, nt, 0);
  /* x[k1][k2][k]: dimension 1's mode k1 outside, dimension 2's k2 in lanes. */
  const int bad = PSCR_SUF(transform_tt_rows)(p, c, x, S, n0, n1, lam1, lam2, 1, 1, nt);
  PSCR_SUF(pscr_sine_apply)(p, 1, x, (size_t)n0, S, (size_t)n2, (size_t)n2, 1, nt, 0);
  PSCR_SUF(pscr_sine_apply)(p, 0, x, 1, 0, S, S, 1, nt, 0);
  return bad;
}

/*
 * The n_d rows of a transform's coefficients g (row k at g + k S), each
 * solved in place by the remaining dimensions with shift c + lambda_k: the
 * last dimension's rows by the interleaved Thomas solver PSCR_LANES at a
 * time, deeper rows as whole problems of their own. At dimension 1 on the
 * team (rows as they come), deeper in the calling thread `owner`.
 */
static int PSCR_SUF(transform_coeff_rows)(const pscr_plan *p, int d, PSCR_SCALAR c,
                                          PSCR_SCALAR *g, int owner, int nt)
{
  const int n = p->n[d], top = d == 0, last = d + 1 == p->ndim - 1;
  const size_t S = pscr_plan_slab(p, d);
  const PSCR_SCALAR *lam = p->lambda[d];
  const int step = last ? PSCR_LANES : 1, groups = (n + step - 1) / step;
  int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt) if (top && nt > 1) reduction(| : bad)
  for (int q = 0; q < groups; q++) {
    const int me = top ? omp_get_thread_num() : owner;
    const int k0 = q * step, lanes = n - k0 < step ? n - k0 : step;
    if (!last) {
      bad |= PSCR_SUF(solve_dim)(p, d + 1, c + lam[k0], g + (size_t)k0 * S, me, 1);
      continue;
    }
    PSCR_SCALAR shift[PSCR_LANES];
    for (int l = 0; l < PSCR_LANES; l++)
      shift[l] = c + lam[k0 + (l < lanes ? l : 0)];
    bad |= PSCR_SUF(transform_rows)(p, d, g + (size_t)k0 * S, k0, lanes, shift, me, d);
  }
  return bad;
}

static int PSCR_SUF(transform_dim)(const pscr_plan *p, int d, PSCR_SCALAR c, PSCR_SCALAR *x,
                                   int owner, int nt)
{
  const pscr_cpu_ws *ws = p->backend_data;
  if (d == 0 && p->ndim == 3 && p->method[1] == PSCR_METHOD_TRANSFORM)
    return ws->sine[0] ? PSCR_SUF(transform_tt_sine)(p, c, x, nt)
                       : PSCR_SUF(transform_tt)(p, c, x, nt);
  const int top = d == 0, n = p->n[d];
  const size_t S = pscr_plan_slab(p, d);
  if (ws->sine[d]) {
    /* The fast sine transform (pscr_cpu_sine), in place: the rows of G =
       E X overwrite X, are solved there, and X = E^T G overwrites them. */
    const int tnt = top ? nt : 1;
    PSCR_SUF(pscr_sine_apply)(p, d, x, 1, 0, S, S, 0, tnt, owner);
    const int bad = PSCR_SUF(transform_coeff_rows)(p, d, c, x, owner, nt);
    PSCR_SUF(pscr_sine_apply)(p, d, x, 1, 0, S, S, 1, tnt, owner);
    return bad;
  }
  const PSCR_SCALAR *E = p->w[d];
  PSCR_SCALAR *g = (PSCR_SCALAR *)ws->tf_buf[d] + (size_t)(top ? 0 : owner) * ws->tf_stride[d];
  PSCR_SUF(pscr_gemm)(0, n, S, E, x, g);
  const int bad = PSCR_SUF(transform_coeff_rows)(p, d, c, g, owner, nt);
  PSCR_SUF(pscr_gemm)(1, n, S, E, g, x);
  return bad;
}

/*
 * Solve (A_d (x) Mrest + M_d (x) (Arest + c Mrest)) x = f in place along
 * dimension d. Dimension 0 runs on a team of `nt` threads in one parallel
 * region, its phases handed out item by item (pscr_team_phases; team.h
 * says why no barriers). Deeper
 * dimensions run in the calling thread `owner` with that thread's
 * workspace. The result does not depend on the thread count: every item
 * writes its own buffers and sums are added in item order.
 */
static int PSCR_SUF(solve_dim)(const pscr_plan *p, int d, PSCR_SCALAR c, PSCR_SCALAR *x,
                               int owner, int nt)
{
  if (p->method[d] == PSCR_METHOD_TRANSFORM)
    return PSCR_SUF(transform_dim)(p, d, c, x, owner, nt);
  const pscr_cpu_ws *ws = p->backend_data;
  const pscr_levels *lv = &p->lv[d];
  const int top = d == 0, k = lv->k;
  PSCR_SUF(level_ctx) C0 = {p, ws, NULL, d, 0, p->n[d], c, x, NULL, pscr_plan_slab(p, d), 0};
  /* Each work item's partial sums: IS = pscr_item_sums slabs. */
  C0.IS = (size_t)pscr_item_sums(lv) * C0.S;
  C0.items = (PSCR_SCALAR *)ws->item_buf[d] + (size_t)(top ? 0 : owner) * ws->item_stride[d];
  int bad = 0;

  if (!top || nt <= 1 || 5 * k > PSCR_TEAM_MAX_PHASES) {
    const int me = top ? 0 : owner;
    for (int i = 1; i < k; i++) {
      PSCR_SUF(level_ctx) C = C0;
      C.L = &lv->level[i - 1];
      C.i = i;
      for (int it = 0; it < C.L->nitems; it++)
        bad |= PSCR_SUF(fwd_item)(&C, it, me);
      for (int b = 0; b < C.L->nblocks; b++)
        PSCR_SUF(block_sum)(&C, b, 2);
      for (int q = 0; q < C.L->nj; q++)
        PSCR_SUF(fwd_couple)(&C, q, me);
    }
    for (int i = k; i >= 1; i--) {
      PSCR_SUF(level_ctx) C = C0;
      C.L = &lv->level[i - 1];
      C.i = i;
      for (int it = 0; it < C.L->nitems; it++)
        bad |= PSCR_SUF(back_item)(&C, it, me);
      for (int b = 0; b < C.L->nblocks; b++)
        PSCR_SUF(back_store)(&C, b);
    }
    return bad;
  }

  /* Phases in order: per forward level 1..k-1 the items, the block sums,
     the couplings; per back level k..1 the items, the stores (k <= 16 for
     n < 2^31: at most 77 phases). A thread awaits the previous phase and
     then takes items as they come; none waits for a thread that holds no
     item (team.h). */
  pscr_team_phases T;
  pscr_team_phases_init(&T);
#pragma omp parallel num_threads(nt) reduction(| : bad)
  {
    const int me = omp_get_thread_num();
    int p = 0, prev = 0; /* the phase, and the previous phase's items */
#define PSCR_PHASE(n, item)                                                                     \
  do {                                                                                          \
    const int n_ = (n);                                                                         \
    if (p > 0)                                                                                  \
      pscr_team_await(&T, p - 1, prev);                                                         \
    int count = 0;                                                                              \
    for (int j; (j = pscr_team_claim(&T, p, n_)) >= 0; count++)                                 \
      item;                                                                                     \
    pscr_team_finish(&T, p, count, n_);                                                         \
    prev = n_;                                                                                  \
    p++;                                                                                        \
  } while (0)
    for (int i = 1; i < k; i++) {
      PSCR_SUF(level_ctx) C = C0;
      C.L = &lv->level[i - 1];
      C.i = i;
      PSCR_PHASE(C.L->nitems, bad |= PSCR_SUF(fwd_item)(&C, j, me));
      PSCR_PHASE(C.L->nblocks, PSCR_SUF(block_sum)(&C, j, 2));
      PSCR_PHASE(C.L->nj, PSCR_SUF(fwd_couple)(&C, j, me));
    }
    for (int i = k; i >= 1; i--) {
      PSCR_SUF(level_ctx) C = C0;
      C.L = &lv->level[i - 1];
      C.i = i;
      PSCR_PHASE(C.L->nitems, bad |= PSCR_SUF(back_item)(&C, j, me));
      PSCR_PHASE(C.L->nblocks, PSCR_SUF(back_store)(&C, j));
    }
#undef PSCR_PHASE
  } /* the region's end joins the threads: every phase is done */
  return bad;
}

/* nt: the team of this solve (cpu_solve.c picks it by timing, team.h). */
static pscr_status PSCR_SUF(cpu_solve)(pscr_plan *p, const void *f, void *u, int nt)
{
  PSCR_SCALAR *x = u;
  if (u != f) {
    /* f -> u on the team: one thread's copy of a large vector costs a
       memory pass that the fast transforms' solves would notice. */
    const size_t block = (size_t)1 << 15, nblock = (p->total + block - 1) / block;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1 && nblock > 1)
    for (size_t b = 0; b < nblock; b++) {
      const size_t t0 = b * block, len = p->total - t0 < block ? p->total - t0 : block;
      memcpy(x + t0, (const PSCR_SCALAR *)f + t0, len * sizeof *x);
    }
  }
  PSCR_SCALAR c = p->shift[0];
#if PSCR_IS_COMPLEX
  c = CMPLX(p->shift[0], p->shift[1]);
#endif
  pscr_cpu_ws *ws = p->backend_data;
  ws->fail.set = 0;
  ws->fail_claim = 0;
  const char *why = NULL;
  if (PSCR_SUF(solve_dim)(p, 0, c, x, 0, nt)) {
    const pscr_cpu_failure *F = &ws->fail;
    for (size_t t = 0; t < p->total; t++)
      x[t] = NAN;
    if (F->level == 0) /* a transformed dimension (transform_dim) */
      return PSCR_ERROR(PSCR_ERROR_SINGULAR,
                        "shift c + lambda = %.17g%+.17gi makes subproblem %d of dimension %d's "
                        "transform singular (a zero pivot in the level-3 Thomas solve)",
                        F->shift[0], F->shift[1], F->eig + 1, F->dim + 1);
    return PSCR_ERROR(PSCR_ERROR_SINGULAR,
                      "shift c + lambda = %.17g%+.17gi makes subproblem %d of block %d..%d, level "
                      "%d, dimension %d singular (a zero pivot in the level-3 Thomas solve)",
                      F->shift[0], F->shift[1], F->eig + 1, F->first + 1, F->last + 1, F->level,
                      F->dim + 1);
  } else {
    /* A pivot just above the threshold, or data near the overflow limit, can
       still overflow: a success always carries a finite u (O(N), cheap
       beside the O(N log N) solve). */
    int finite = 1;
#pragma omp parallel for num_threads(nt) if (nt > 1) reduction(& : finite) schedule(static)
    for (size_t t = 0; t < p->total; t++)
      finite &= PSCR_IS_FINITE(x[t]);
    if (!finite)
      why = "the solution overflowed: the shifted subproblems are numerically singular or the "
          "data are too badly scaled";
  }
  if (why) {
    /* u holds no solution: make that impossible to miss. */
    for (size_t t = 0; t < p->total; t++)
      x[t] = NAN;
    return PSCR_ERROR(PSCR_ERROR_SINGULAR, "%s", why);
  }
  return PSCR_SUCCESS;
}
