/*
 * MEASURE's probe values (backend.h, time_solves): word t of a plan's
 * right-hand side is a fixed value in [-1, 1) from a 64-bit mixing hash of
 * t (splitmix64's finalizer), the same on every call, with no state and no
 * correlation between neighbours. One definition for the host fill
 * (pscr_plan_probe_values) and the device one (gpu/cuda_time.cu), so both
 * backends time the same right-hand side.
 */
#ifndef PSCR_PROBE_H
#define PSCR_PROBE_H

#include <stdint.h>

#ifdef __CUDACC__
#define PSCR_PROBE_FN static inline __host__ __device__
#else
#define PSCR_PROBE_FN static inline
#endif

PSCR_PROBE_FN double pscr_probe_value(uint64_t t)
{
  uint64_t x = t * 0x9e3779b97f4a7c15u + 0x2545f4914f6cdd1du;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
  x ^= x >> 31;
  return (double)(x >> 11) * 0x1.0p-52 - 1.0;
}

#endif
