/*
 * The batched DST-I of sine.h, written once for double and float
 * (sine_impl.h).
 *
 * Algorithm. With N = n + 1, the odd extension z of a column (z_0 = z_N = 0,
 * z_j = x_j, z_{2N-j} = -x_j) has the DFT of length 2N
 *
 *   Z_k = sum_j z_j e^{-i pi j k / N} = -2i y_k,
 *
 * y the DST-I of x. Two real columns a, b packed as z = z_a + i z_b give
 * Z = -2i y_a + 2 y_b: y_a = -Im Z / 2 and y_b = Re Z / 2, so one complex
 * FFT serves two columns. Its first radix-2 step of decimation in frequency
 * (even and odd k) is done while the columns are read, because z's second
 * half is the first half mirrored:
 *
 *   Z_{2m}   = DFT_N(u)_m,  u_j = x_j - x_{N-j},
 *   Z_{2m+1} = DFT_N(v)_m,  v_j = (x_j + x_{N-j}) e^{-i pi j / N},
 *
 * (x_0 = x_N = 0), which leaves two complex FFTs of length N per pair of
 * columns, one complex FFT of length N per column: the work of a real FFT of
 * length 2N. They run together in place
 * (radix-4 decimation in frequency, a radix-2 step last when log2 N is
 * odd), which leaves DFT_N(u)_m and DFT_N(v)_m in row bitrev(m); the last
 * step computes only the rows of m < N/2 (k <= n) and writes them straight
 * back to x in natural order.
 *
 * Why this route: every step is an FFT butterfly with twiddle factors
 * rounded once, so the error is O(log2 N eps) relative to the column's norm
 * (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., sec.
 * 24.1). The classic half-length trick (pre-process x with sin(pi j / N)
 * weights, a real FFT of length N, then recover the odd outputs by a running
 * sum) costs half as much, but the running sum lets errors grow like
 * sqrt(N) eps (tests/test_sine.c has the numbers). The twiddle factors
 * are sines and cosines of angles in the first octant, computed in double and
 * mapped to the rest of the circle by exact symmetries.
 *
 * Layout. The columns are contiguous, so the FFT runs across them: a work
 * item loads a chunk of columns (a batch's rows, strided by ld) into the
 * thread's scratch as split real and imaginary planes, N rows of `lanes`
 * entries (lanes [0, H) hold u of the H pairs of columns, lanes [H, 2H)
 * their v), and every butterfly is a loop over those lanes that the compiler
 * vectorizes. A chunk's planes are sized to stay in L2 (sine_width).
 */
#include "sine.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>

/* Bytes of a chunk's two planes: about half the L2 of current x86 and Arm
   server cores (1 to 2 MiB), which leaves room for the reads and writes of
   x. At least PSCR_SINE_MIN_WIDTH columns (a full vector of doubles with
   AVX-512), so chunks of N = n + 1 above 4096 (double) or 8192 (float)
   take more; at most PSCR_SINE_MAX_WIDTH, beyond which wider rows gained
   nothing (on a core with 1 MiB of L2, 512 KiB and 128 columns were faster
   for n = 127 and 1023 than 256 KiB or 512 columns). */
#define PSCR_SINE_CHUNK_BYTES (512u * 1024u)
#define PSCR_SINE_MIN_WIDTH 8
#define PSCR_SINE_MAX_WIDTH 128
#define PSCR_SINE_MAX_ORDER ((1 << 24) - 1)
#define PSCR_SINE_PI 3.14159265358979323846

int pscr_sine_supported(int n) { return n >= 1 && n <= PSCR_SINE_MAX_ORDER && ((n + 1) & n) == 0; }

/* log2 of N, a power of two. */
static int sine_log2(int N)
{
  int lg = 0;
  while ((1 << lg) < N)
    lg++;
  return lg;
}

/* Columns per chunk for length N and elements of `elem` bytes: a power of
   two (so a multiple of 8) whose planes fill PSCR_SINE_CHUNK_BYTES, within
   [PSCR_SINE_MIN_WIDTH, PSCR_SINE_MAX_WIDTH]. Depends on N and the type
   only, never on the threads: the chunking fixes the rounding. */
static size_t sine_width(int N, size_t elem)
{
  const size_t fit = PSCR_SINE_CHUNK_BYTES / (2 * (size_t)N * elem);
  size_t w = PSCR_SINE_MIN_WIDTH;
  while (2 * w <= fit && 2 * w <= PSCR_SINE_MAX_WIDTH)
    w *= 2;
  return w;
}

/* Entries of each twiddle array (3N/2 used), padded to 64 bytes of floats. */
static size_t sine_table_len(int N) { return ((size_t)3 * (size_t)N / 2 + 15) & ~(size_t)15; }

/* Scratch elements of one thread: the chunk's two planes, then the
   twiddle factors' cosines and sines. */
static size_t sine_scratch_for(int N, size_t elem)
{
  return 2 * (size_t)N * sine_width(N, elem) + 2 * sine_table_len(N);
}

size_t pscr_sine_scratch(int n)
{
  if (!pscr_sine_supported(n))
    return 0;
  const size_t d = sine_scratch_for(n + 1, sizeof(double)),
               s = sine_scratch_for(n + 1, sizeof(float));
  return d > s ? d : s;
}

/* cos(pi r / N) and sin(pi r / N) for 0 <= r <= N/4, N a power of two: the
   angle is at most pi/4 and r / N is exact, so both are accurate to an ulp
   or so (no argument reduction of a large angle). */
static void sine_octant(int r, int N, double *c, double *s)
{
  const double t = PSCR_SINE_PI * ((double)r / (double)N);
  *c = cos(t);
  *s = sin(t);
}

/* m's lowest lg bits in reverse order (1 <= lg <= 32). */
static inline uint32_t sine_bitrev(uint32_t m, int lg)
{
  m = ((m >> 1) & 0x55555555u) | ((m & 0x55555555u) << 1);
  m = ((m >> 2) & 0x33333333u) | ((m & 0x33333333u) << 2);
  m = ((m >> 4) & 0x0f0f0f0fu) | ((m & 0x0f0f0f0fu) << 4);
  m = ((m >> 8) & 0x00ff00ffu) | ((m & 0x00ff00ffu) << 8);
  m = (m >> 16) | (m << 16);
  return m >> (32 - lg);
}

#include "scalar_real.h"
#include "sine_impl.h"
#include "scalar_undef.h"

#include "scalar_float.h"
#include "sine_impl.h"
#include "scalar_undef.h"
