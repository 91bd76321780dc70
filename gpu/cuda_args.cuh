// Kernel arguments of the CUDA backend, passed by value: the factors of every
// dimension and one reduction level of one dimension (pointers already offset
// to the level, indices level-relative). See cuda_view.h for the tables.
#ifndef PSCR_CUDA_ARGS_CUH
#define PSCR_CUDA_ARGS_CUH

#include <stddef.h>

#include "cuda_scalar.cuh"
#include "cuda_view.h"

namespace pscr_cuda {

// Eigenvector slots (levels.h: PSCR_W_FIRST, PSCR_W_LAST, PSCR_W_SLOTS).
constexpr int W_FIRST = 3, W_LAST = 4, W_SLOTS = 5;

// Factors on the device: per dimension 4 n entries, a_diag | a_off | m_diag |
// m_off, the off-diagonals zero-padded to n entries.
template <class T> struct FacDim {
  const T *ad, *ao, *md, *mo;
  int n;
};

// Named members and a select, not an array indexed by the (runtime)
// dimension: a kernel parameter indexed at run time is copied to local
// memory by every thread. That copy (112 bytes per thread) made k_couple_*
// write more local memory than slab data (H100 4095^2 Poisson, ncu).
template <class T> struct Facs {
  FacDim<T> f0, f1, f2;
  int ndim;

  __host__ __device__ FacDim<T> dim(int r) const { return r == 0 ? f0 : (r == 1 ? f1 : f2); }
};

// One level i of dimension d.
template <class T> struct LevelArgs {
  const int *blk;  // nb blocks, PSCR_CUDA_BLK_INTS each
  const int *eblk; // ne: level-relative block of each eigenpair
  const int *jl;   // nj * 3: j, left block, right block (-1: none)
  const T *lam;    // ne eigenvalues
  const T *w;      // ne * W_SLOTS eigenvector components
  const int *items; // nit * 3: block, first and end eigenpair (level-relative)
  const int *bitem; // nb * 2: first item and item count of each block
  int nb, nj, ne, nit;
  int nds; // largest |D(B)| of the level: the back sums per entry (4 at the merged top level)
  int ps;  // partial sums per item in `part` (the dimension's most: 3 or 4)
  int direct; // every block is one item: the first reduction pass writes the result
  int d;      // dimension (0-based)
  int n;    // n_d
  size_t S; // slab length below d: prod_{e > d} n_e
  // Distance in elements between consecutive batch vectors of x: n_d S when
  // they are contiguous (every inner dimension), ldu for the right-hand sides
  // of pscr_solve_device_batch, which may leave gaps between vectors.
  size_t xs;
  // The same for the level's source vectors F (the kernels' `f` / `src`):
  // xs, but ldf at level 1 of the top dimension, which reads the caller's
  // f instead of a copy of it in u.
  size_t fs;
  // k_part's pivot table of the level's systems (partition.cuh,
  // part_tab_stride entries each), NULL where the kernel eliminates itself.
  const T *ptab;
  // k_part's boundary systems: 1 refines every one after PCR, 0 only those
  // with a weakly dominant row (partition.cuh, part_solve).
  int pcr_all;
};

// Threads per block of every kernel; kernels loop grid-stride, so the grid
// only needs to be large enough to fill the device.
constexpr int THREADS = 256;

// Blocks of `per` work items each for `count` items, between 1 and cap (the
// loops are grid-stride, so a capped grid still covers everything).
inline unsigned blocks_capped(size_t count, size_t per, size_t cap)
{
  const size_t g = (count + per - 1) / per;
  return (unsigned)(g < cap ? (g > 0 ? g : 1) : cap);
}

inline unsigned grid_of(size_t count) { return blocks_capped(count, THREADS, (size_t)1 << 24); }

// Launch shape of the coupling and gather kernels (levels_kernels.cuh): x
// runs over the S entries t of a slab, y over `rows` slabs, so that no entry
// divides a flat 64-bit index by S. A block is THREADS threads, bx of them
// along t (a multiple of 32, at most the next power of two >= S / per, so
// that the short slabs of 3D levels do not idle half a block) and
// THREADS / bx along the rows. (The reduction kernels keep flat grids: on
// this shape the float weighted sums ran 6% slower, H100.)
struct SlabGrid {
  dim3 grid, block;
};

// per: entries of a slab per thread (the coupling kernels, whose row
// set-up is made once per row and thread: COUPLE_PER). bx covers S in per
// passes, so short slabs take several rows per block: a 3D plan's inner
// slabs (S = n3 <= 256) had bx = 256, one entry per thread whatever per,
// and a row set-up for every entry.
#ifndef PSCR_COUPLE_PER
#define PSCR_COUPLE_PER 4
#endif
constexpr size_t COUPLE_PER = PSCR_COUPLE_PER;

inline SlabGrid slab_grid(size_t S, size_t rows, size_t per = 1)
{
  const size_t span = (S + per - 1) / per; // entries t with t < S, t = t0 + k bx, k < per
  unsigned bx = 32;
  while (bx < (unsigned)THREADS && (size_t)bx < span)
    bx <<= 1;
  const unsigned by = (unsigned)THREADS / bx;
  SlabGrid g;
  g.block = dim3(bx, by);
  g.grid = dim3(blocks_capped(S, bx * per, (size_t)1 << 24), blocks_capped(rows, by, 65535));
  return g;
}

} // namespace pscr_cuda

#endif
