/*
 * Level structure (DESIGN.md section 2) against a direct transcription of the
 * definitions for every n up to 1100 and around powers of 4, and the merged
 * top level of n = 4^j against the plain structure.
 */
#include <stdlib.h>
#include <string.h>

#include "levels.h"
#include "test_util.h"

static void check_levels(int n, int chunk)
{
  pscr_levels lv;
  ck_assert_int_eq(pscr_levels_build(&lv, n, chunk, 0), PSCR_SUCCESS);
  int k = 0;
  for (long m = n; m > 0; m /= 4)
    k++;
  ck_assert_int_eq(lv.k, k); /* k = floor(log4 n) + 1 */
  /* J sets by the definition, kept as membership arrays. */
  char *prev = malloc((size_t)n), *cur = malloc((size_t)n);
  int *covered = calloc((size_t)n, sizeof(int));
  memset(prev, 1, (size_t)n);
  size_t neig = 0;
  for (int i = 1; i <= k; i++) {
    const pscr_level *L = &lv.level[i - 1];
    int pos = 0, nj = 0;
    for (int x = 0; x < n; x++) {
      cur[x] = prev[x] && (++pos % 4 == 0);
      nj += cur[x];
    }
    ck_assert_int_eq(L->nj, nj);
    for (int q = 0; q < L->nj; q++)
      ck_assert(cur[L->j[q]]);
    if (i == k)
      ck_assert_int_eq(nj, 0); /* J_k is empty */
    memset(covered, 0, (size_t)n * sizeof(int));
    for (int b = 0; b < L->nblocks; b++) {
      const pscr_block *B = &L->blocks[b];
      ck_assert(B->first <= B->last);
      ck_assert(B->nd >= 1 && B->nd <= 3);
      /* B is a maximal run outside J_i. */
      for (int x = B->first; x <= B->last; x++) {
        ck_assert(!cur[x]);
        covered[x]++;
      }
      ck_assert(B->first == 0 || cur[B->first - 1]);
      ck_assert(B->last == n - 1 || cur[B->last + 1]);
      ck_assert_int_le(B->last - B->first + 1, (1 << (2 * i)) - 1); /* m_B <= 4^i - 1 */
      /* D(B) = B intersect J_{i-1}, in order. */
      int nd = 0;
      for (int x = B->first; x <= B->last; x++)
        if (prev[x]) {
          ck_assert(nd < B->nd);
          ck_assert_int_eq(B->d[nd++], x);
        }
      ck_assert_int_eq(nd, B->nd);
      ck_assert_int_eq((long)B->eig, (long)neig);
      neig += (size_t)(B->last - B->first + 1);
      /* Items cover the block's eigenpairs in order, each <= chunk. */
      int e = 0;
      for (int it = L->block_item0[b]; it < L->block_item0[b + 1]; it++) {
        ck_assert_int_eq(L->items[it].block, b);
        ck_assert_int_eq(L->items[it].e0, e);
        ck_assert_int_le(L->items[it].e1 - L->items[it].e0, chunk);
        e = L->items[it].e1;
      }
      ck_assert_int_eq(e, B->last - B->first + 1);
    }
    /* Unstored runs are exactly those with D(B) empty. */
    for (int x = 0; x < n; x++)
      if (!cur[x] && !covered[x])
        ck_assert(!prev[x]);
    /* Neighbours of each j in J_i. */
    for (int q = 0; q < L->nj; q++) {
      int j = L->j[q];
      if (L->jleft[q] >= 0)
        ck_assert_int_eq(L->blocks[L->jleft[q]].last, j - 1);
      else
        ck_assert(j == 0 || !covered[j - 1]);
      if (L->jright[q] >= 0)
        ck_assert_int_eq(L->blocks[L->jright[q]].first, j + 1);
      else
        ck_assert(j == n - 1 || !covered[j + 1]);
    }
    memcpy(prev, cur, (size_t)n);
  }
  ck_assert_int_eq((long)lv.neig, (long)neig);
  /* Level k: one block, the whole range, D = J_{k-1}. */
  ck_assert_int_eq(lv.level[k - 1].nblocks, 1);
  ck_assert_int_eq(lv.level[k - 1].blocks[0].first, 0);
  ck_assert_int_eq(lv.level[k - 1].blocks[0].last, n - 1);
  free(prev);
  free(cur);
  free(covered);
  pscr_levels_free(&lv);
}

START_TEST(all_small_n)
{
  /* Under AddressSanitizer up to 300 (every structure with up to five
     levels; 1100 took 89 s there). */
  for (int n = 1; n <= (TU_SANITIZED ? 300 : 1100); n++)
    check_levels(n, n % 3 == 0 ? 1 : 32);
}
END_TEST

START_TEST(powers_of_four)
{
  for (int k = 1; k <= 7; k++) {
    int p = 1 << (2 * k);
    check_levels(p - 1, 32);
    check_levels(p, 32);
    check_levels(p + 1, 32);
  }
}
END_TEST

/* Levels 0 .. count-1 of a and b are the same. */
static void check_same_levels(const pscr_levels *a, const pscr_levels *b, int count)
{
  for (int i = 0; i < count; i++) {
    const pscr_level *x = &a->level[i], *y = &b->level[i];
    ck_assert_int_eq(x->nblocks, y->nblocks);
    ck_assert_int_eq(x->nitems, y->nitems);
    ck_assert_int_eq(x->nj, y->nj);
    ck_assert(!memcmp(x->blocks, y->blocks, (size_t)x->nblocks * sizeof *x->blocks));
    ck_assert(!memcmp(x->items, y->items, (size_t)x->nitems * sizeof *x->items));
    ck_assert(!memcmp(x->j, y->j, (size_t)x->nj * sizeof(int)));
    ck_assert(!memcmp(x->jleft, y->jleft, (size_t)x->nj * sizeof(int)));
    ck_assert(!memcmp(x->jright, y->jright, (size_t)x->nj * sizeof(int)));
  }
}

/* The merged structure (levels.h): the plain one unless n = 4^j; for 4^j the
   plain levels below the top two, then one block 0..n-1 with D = {n/4,
   n/2, 3n/4, n} (1-based) and n eigenpairs. */
START_TEST(merged_top_level)
{
  int sizes[1100 + 3 * 8], ns = 0;
  for (int n = 1; n <= 1100; n++)
    sizes[ns++] = n;
  for (int j = 6; j <= 8; j++)
    for (int o = -1; o <= 1; o++)
      sizes[ns++] = (1 << (2 * j)) + o;
  for (int at = 0; at < ns; at++) {
    const int n = sizes[at];
    int pow4 = 0;
    for (long p = 4; p <= n; p *= 4)
      pow4 |= p == n;
    for (int chunk = 1; chunk <= 32; chunk += 31) {
      pscr_levels plain, merged;
      ck_assert_int_eq(pscr_levels_build(&plain, n, chunk, 0), PSCR_SUCCESS);
      ck_assert_int_eq(pscr_levels_build(&merged, n, chunk, 1), PSCR_SUCCESS);
      ck_assert_int_le(plain.max_nd, 3);
      if (!pow4) {
        ck_assert_int_eq(merged.k, plain.k);
        ck_assert_int_eq((long)merged.neig, (long)plain.neig);
        ck_assert_int_eq(merged.max_nd, plain.max_nd);
        ck_assert_int_eq(merged.max_items, plain.max_items);
        check_same_levels(&merged, &plain, plain.k);
      } else {
        const int k = merged.k;
        ck_assert_int_eq(k, plain.k - 1);
        ck_assert_int_eq(merged.max_nd, 4);
        ck_assert_int_eq((long)merged.neig, (long)plain.neig - (n - 1));
        check_same_levels(&merged, &plain, k - 1);
        const pscr_level *T = &merged.level[k - 1];
        ck_assert_int_eq(T->nblocks, 1);
        ck_assert_int_eq(T->nj, 0);
        const pscr_block *B = &T->blocks[0];
        ck_assert_int_eq(B->first, 0);
        ck_assert_int_eq(B->last, n - 1);
        ck_assert_int_eq(B->nd, 4);
        for (int q = 0; q < 4; q++)
          ck_assert_int_eq(B->d[q], (q + 1) * (n / 4) - 1);
        ck_assert_int_eq((long)B->eig, (long)plain.level[k - 1].blocks[0].eig);
        ck_assert_int_eq((long)(B->eig + (size_t)n), (long)merged.neig);
        int e = 0, most = 0;
        for (int it = 0; it < T->nitems; it++) {
          ck_assert_int_eq(T->items[it].block, 0);
          ck_assert_int_eq(T->items[it].e0, e);
          ck_assert_int_le(T->items[it].e1 - T->items[it].e0, chunk);
          e = T->items[it].e1;
        }
        ck_assert_int_eq(e, n);
        for (int i = 0; i < k; i++)
          most = merged.level[i].nitems > most ? merged.level[i].nitems : most;
        ck_assert_int_eq(merged.max_items, most);
      }
      pscr_levels_free(&plain);
      pscr_levels_free(&merged);
    }
  }
}
END_TEST

START_TEST(paper_example)
{
  /* n = 17 (DESIGN.md): J_1 = {4,8,12,16}, J_2 = {16}; level 2 block {17} has
     D(B) empty and is not stored, so level 2 holds the single block 1..15. */
  pscr_levels lv;
  ck_assert_int_eq(pscr_levels_build(&lv, 17, 32, 1), PSCR_SUCCESS);
  ck_assert_int_eq(lv.k, 3);
  ck_assert_int_eq(lv.level[1].nblocks, 1);
  ck_assert_int_eq(lv.level[1].blocks[0].first, 0);
  ck_assert_int_eq(lv.level[1].blocks[0].last, 14);
  ck_assert_int_eq(lv.level[1].blocks[0].nd, 3); /* 4, 8, 12 (1-based) */
  ck_assert_int_eq(lv.level[1].jright[0], -1);
  pscr_levels_free(&lv);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("levels");
  TCase *tc = tcase_create("levels");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, all_small_n);
  tcase_add_test(tc, powers_of_four);
  tcase_add_test(tc, paper_example);
  tcase_add_test(tc, merged_top_level);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
