#include <cstdio>
#include "cuda_args.cuh"
using namespace pscr_cuda;
int main() {
  size_t S[] = {1, 17, 65, 127, 255, 256, 1023, 4095, 65025};
  for (size_t s : S) for (size_t per : {1, 4}) {
    SlabGrid g = slab_grid(s, 10000, per);
    // every entry t < S visited exactly once by (x thread, pass)
    size_t stride = (size_t)g.grid.x * g.block.x, cnt = 0;
    for (size_t t0 = 0; t0 < stride; t0++) for (size_t t = t0; t < s; t += stride) cnt++;
    printf("S=%zu per=%zu block %ux%u grid %ux%u passes<=%zu ok=%d\n", s, per, g.block.x, g.block.y, g.grid.x, g.grid.y, (s + stride - 1) / stride, cnt == s);
  }
}
