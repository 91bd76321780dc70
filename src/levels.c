/* Sets J_i, blocks B, D(B) and work items of the radix-4 reduction. */
#include "levels.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

/* Host bytes of a level's tables (pscr_levels_build's allocations). */
static size_t pscr_level_bytes(int nj, int nitems)
{
  return (size_t)(nj + 1) * sizeof(pscr_block) + (size_t)nitems * sizeof(pscr_item) +
         (size_t)(3 * nj + nj + 2) * sizeof(int);
}

/* Free one level's tables. */
static void pscr_level_free(pscr_level *L)
{
  free(L->blocks);
  free(L->items);
  free(L->block_item0);
  free(L->j);
  free(L->jleft);
  free(L->jright);
  memset(L, 0, sizeof *L);
}

void pscr_levels_free(pscr_levels *lv)
{
  if (!lv || !lv->level)
    return;
  for (int i = 0; i < lv->k; i++)
    pscr_level_free(&lv->level[i]);
  free(lv->level);
  memset(lv, 0, sizeof *lv);
}

/* Number of levels: the first i with J_i empty (k = floor(log4 n) + 1). */
static int pscr_levels_count(int n)
{
  int k = 0;
  for (long m = n; m > 0; m /= 4)
    k++;
  return k;
}

/*
 * n = 4^j (levels.h): the top level is the block 0..n-1 with D = {n-1}, the
 * level below it the one block 0..n-2 with 3 elements of D. Make the latter
 * the block 0..n-1 with D(B) + {n-1} and drop the former. The merged block's
 * eigenpairs are the top block's (n of them, where it had n - 1): the
 * eigen data of the dropped level were the last lv->neig entries.
 */
static pscr_status pscr_levels_merge_top(pscr_levels *lv, int chunk)
{
  const int n = lv->n;
  if (lv->k < 2)
    return PSCR_SUCCESS;
  pscr_level *top = &lv->level[lv->k - 1], *below = &lv->level[lv->k - 2];
  if (top->nblocks != 1 || top->blocks[0].nd != 1 || top->blocks[0].d[0] != n - 1 ||
      below->nblocks != 1 || below->blocks[0].last != n - 2 || below->blocks[0].nd != 3)
    return PSCR_SUCCESS; /* not n = 4^j */
  int nitems = (n + chunk - 1) / chunk;
  pscr_item *items = malloc((size_t)nitems * sizeof *items);
  if (!items)
    return PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate level %d of order %d", lv->k - 1, n);
  for (int t = 0, e = 0; e < n; t++, e += chunk)
    items[t] = (pscr_item){.block = 0, .e0 = e, .e1 = e + chunk < n ? e + chunk : n};
  pscr_block *B = &below->blocks[0];
  lv->neig -= (size_t)(B->last - B->first + 1); /* B's n - 1 eigenpairs become n */
  B->last = n - 1;
  B->d[B->nd++] = n - 1;
  lv->bytes += (size_t)(nitems - below->nitems) * sizeof *items;
  free(below->items);
  below->items = items;
  below->nitems = nitems;
  below->block_item0[1] = nitems;
  below->nj = 0; /* the top level: J empty, as J_k above */
  lv->bytes -= pscr_level_bytes(top->nj, top->nitems);
  pscr_level_free(top);
  lv->k--;
  lv->max_nd = PSCR_D_MAX;
  lv->max_items = 0;
  for (int i = 0; i < lv->k; i++)
    if (lv->level[i].nitems > lv->max_items)
      lv->max_items = lv->level[i].nitems;
  return PSCR_SUCCESS;
}

pscr_status pscr_levels_build(pscr_levels *lv, int n, int chunk, int merge)
{
  pscr_status st = PSCR_SUCCESS;
  memset(lv, 0, sizeof *lv);
  lv->n = n;
  lv->k = pscr_levels_count(n);
  lv->max_nd = 1;
  /* in_prev[x]: x in J_{i-1}; in_cur[x]: x in J_i; blk_end/blk_start: stored
     block ending / starting at x. */
  char *in_prev = calloc((size_t)n, 1), *in_cur = calloc((size_t)n, 1);
  int *blk_end = malloc((size_t)n * sizeof(int)), *blk_start = malloc((size_t)n * sizeof(int));
  lv->level = calloc((size_t)lv->k, sizeof *lv->level);
  if (!in_prev || !in_cur || !blk_end || !blk_start || !lv->level) {
    st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate the level structure of order %d", n);
    goto out;
  }
  lv->bytes = (size_t)lv->k * sizeof *lv->level;
  memset(in_prev, 1, (size_t)n);
  for (int i = 1; i <= lv->k; i++) {
    pscr_level *L = &lv->level[i - 1];
    /* J_i: every 4th element of J_{i-1}. */
    int pos = 0, nj = 0;
    memset(in_cur, 0, (size_t)n);
    for (int x = 0; x < n; x++)
      if (in_prev[x] && ++pos % 4 == 0) {
        in_cur[x] = 1;
        nj++;
      }
    /* Blocks: maximal runs of indices not in J_i; at most nj + 1 of them. */
    L->blocks = malloc((size_t)(nj + 1) * sizeof *L->blocks);
    L->j = malloc((size_t)(nj > 0 ? nj : 1) * sizeof(int));
    L->jleft = malloc((size_t)(nj > 0 ? nj : 1) * sizeof(int));
    L->jright = malloc((size_t)(nj > 0 ? nj : 1) * sizeof(int));
    L->block_item0 = malloc((size_t)(nj + 2) * sizeof(int));
    if (!L->blocks || !L->j || !L->jleft || !L->jright || !L->block_item0) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate level %d of order %d", i, n);
      goto out;
    }
    for (int x = 0; x < n; x++)
      blk_end[x] = blk_start[x] = -1;
    int nitems = 0;
    for (int x = 0; x < n;) {
      if (in_cur[x]) {
        x++;
        continue;
      }
      pscr_block B = {.first = x, .nd = 0};
      while (x < n && !in_cur[x]) {
        if (in_prev[x])
          B.d[B.nd++] = x; /* at most 3: J_i takes every 4th of J_{i-1} */
        x++;
      }
      B.last = x - 1;
      if (B.nd > lv->max_nd)
        lv->max_nd = B.nd;
      if (B.nd == 0)
        continue; /* D(B) empty: no work at this level (e.g. n = 17, level 2, B = {17}) */
      B.eig = lv->neig;
      lv->neig += (size_t)(B.last - B.first + 1);
      blk_start[B.first] = blk_end[B.last] = L->nblocks;
      L->block_item0[L->nblocks] = nitems;
      nitems += (B.last - B.first + 1 + chunk - 1) / chunk;
      L->blocks[L->nblocks++] = B;
    }
    L->block_item0[L->nblocks] = nitems;
    L->nitems = nitems;
    L->items = malloc((size_t)(nitems > 0 ? nitems : 1) * sizeof *L->items);
    if (!L->items) {
      st = PSCR_ERROR(PSCR_ERROR_HOST_ALLOC, "cannot allocate level %d of order %d", i, n);
      goto out;
    }
    for (int b = 0; b < L->nblocks; b++) {
      int m = L->blocks[b].last - L->blocks[b].first + 1;
      for (int t = 0, e = 0; e < m; t++, e += chunk)
        L->items[L->block_item0[b] + t] =
            (pscr_item){.block = b, .e0 = e, .e1 = e + chunk < m ? e + chunk : m};
    }
    if (nitems > lv->max_items)
      lv->max_items = nitems;
    for (int x = 0; x < n; x++)
      if (in_cur[x]) {
        L->j[L->nj] = x;
        L->jleft[L->nj] = x > 0 ? blk_end[x - 1] : -1;
        L->jright[L->nj] = x < n - 1 ? blk_start[x + 1] : -1;
        L->nj++;
      }
    lv->bytes += pscr_level_bytes(nj, nitems);
    char *t = in_prev;
    in_prev = in_cur;
    in_cur = t;
  }
  if (merge)
    st = pscr_levels_merge_top(lv, chunk);
out:
  free(in_prev);
  free(in_cur);
  free(blk_end);
  free(blk_start);
  if (st != PSCR_SUCCESS)
    pscr_levels_free(lv);
  return st;
}
