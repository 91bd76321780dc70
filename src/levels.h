/*
 * Level structure of the radix-4 reduction along one dimension
 * (DESIGN.md section 2, paper eq. 22 generalized to any n):
 *   J_0 = {1..n}; J_i = elements of J_{i-1} at 1-based positions 4, 8, ...;
 *   k = first i with J_i empty; the blocks of level i are the maximal runs of
 *   indices not in J_i, and D(B) = B intersect J_{i-1} (at most 3 indices).
 * Indices here are 0-based. Blocks with D(B) empty need no work and are not
 * stored. Each block's eigenpairs are cut into work items of at most
 * `chunk` eigenpairs so that a level with one large block still spreads over
 * threads.
 */
#ifndef PSCR_LEVELS_H
#define PSCR_LEVELS_H

#include <stddef.h>

#include "pscr.h"

/* Slots of the stored eigenvector components: D(B) (up to 3), first, last. */
enum { PSCR_W_FIRST = 3, PSCR_W_LAST = 4, PSCR_W_SLOTS = 5 };

typedef struct pscr_block {
  int first, last; /* B = first..last */
  int nd;          /* |D(B)|, 1..3 */
  int d[3];        /* D(B) */
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
  size_t bytes;      /* memory owned */
} pscr_levels;

/* Build the structure for order n >= 1. Returns PSCR_SUCCESS or PSCR_ERROR_HOST_ALLOC. */
pscr_status pscr_levels_build(pscr_levels *lv, int n, int chunk);

/* Free; safe on a zeroed or partially built structure. */
void pscr_levels_free(pscr_levels *lv);

#endif
