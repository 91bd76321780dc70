/*
 * Level structure of the radix-4 reduction along one dimension
 * (docs/design.md, paper eq. 22 generalized to any n):
 *   J_0 = {1..n}; J_i = elements of J_{i-1} at 1-based positions 4, 8, ...;
 *   k = first i with J_i empty; the blocks of level i are the maximal runs of
 *   indices not in J_i, and D(B) = B intersect J_{i-1} (at most 3 indices).
 * One exception, n = 4^j (j >= 1): there J_{k-1} = {n} is the last row
 * alone, and level k (the whole range, D = {n}) would add a forward pass
 * (level k-1's block [1, n-1] reduced into row n) and a back pass (row n
 * alone) of full level-3 work, 2k-1 passes where 4^j - 1 needs 2k-3. So the
 * top two levels are merged: the top level is the one block [1, n] with
 * D(B) = J_{k-2} = {n/4, n/2, 3n/4, n}, four indices, the last of them
 * last(B) itself. Same arithmetic as level k-1 of order n - 1 with one more
 * source and sum (H100, 2D Poisson 4096^2: 13 passes of level 3 -> 11).
 * Indices here are 0-based. Blocks with D(B) empty need no work and are not
 * stored. Each block's eigenpairs are cut into work items of at most
 * `chunk` eigenpairs so that a level with one large block still spreads over
 * threads.
 */
#ifndef PSCR_LEVELS_H
#define PSCR_LEVELS_H

#include <stddef.h>

#include "pscr.h"

/* Eigenpairs per work item (plan.c builds the levels with it): small enough
   that one big block spreads over threads, large enough that per-item
   buffers stay a small fraction of a level's work. */
enum { PSCR_ITEM_EIGS = 32 };

/* Slots of the stored eigenvector components: D(B) (up to 3), first, last.
   A fourth element of D(B) is always last(B) (the merged top level above),
   so it needs no slot of its own: pscr_d_slot. */
enum { PSCR_W_FIRST = 3, PSCR_W_LAST = 4, PSCR_W_SLOTS = 5, PSCR_D_MAX = 4 };

/* The slot of d_q, the q-th element of D(B). */
static inline int pscr_d_slot(int q) { return q < 3 ? q : PSCR_W_LAST; }

typedef struct pscr_block {
  int first, last; /* B = first..last */
  int nd;          /* |D(B)|, 1..3 (4 at the merged top level, d[3] = last) */
  int d[PSCR_D_MAX]; /* D(B) */
  size_t eig;      /* index of the block's first eigenpair in the dimension's arrays */
} pscr_block;

typedef struct pscr_item {
  int block;  /* index into the level's blocks */
  int e0, e1; /* eigenpairs e0..e1-1 of that block (0-based within the block) */
} pscr_item;

typedef struct pscr_level {
  int nblocks;
  pscr_block *blocks;
  int nitems;
  pscr_item *items;
  int *block_item0; /* nblocks + 1 entries: items of block b are block_item0[b] .. [b+1]-1 */
  int nj;
  int *j;      /* J_i */
  int *jleft;  /* stored block ending at j-1, or -1 */
  int *jright; /* stored block starting at j+1, or -1 */
} pscr_level;

typedef struct pscr_levels {
  int n, k;
  pscr_level *level; /* level[i - 1] is level i, i = 1..k */
  size_t neig;       /* eigenpairs over all levels */
  int max_items;     /* largest nitems of any level */
  int max_nd;        /* largest |D(B)| of any block: 3, or 4 with a merged top level */
  size_t bytes;      /* memory owned */
} pscr_levels;

/* Partial sums a work item keeps (forward: L_B, R_B; back: one per element
   of D(B)): 3, or 4 with the merged top level. */
static inline int pscr_item_sums(const pscr_levels *lv) { return lv->max_nd > 3 ? 4 : 3; }

/* Build the structure for order n >= 1; merge: merge the top levels of
   n = 4^j (above; 0 keeps the plain sets, for tests). Returns PSCR_SUCCESS
   or PSCR_ERROR_HOST_ALLOC. */
pscr_status pscr_levels_build(pscr_levels *lv, int n, int chunk, int merge);

/* Free; safe on a zeroed or partially built structure. */
void pscr_levels_free(pscr_levels *lv);

#endif
