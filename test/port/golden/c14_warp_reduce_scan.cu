// Warp-level primitives as CUDA code uses them: reductions, scans, ballots, broadcasts.
#if defined(__HIP__) /* ptx-lower port */
#include "c14_warp_reduce_scan.hip.h"
#else
#define ptxl_shfl_down_sync __shfl_down_sync
#define ptxl_shfl_xor_sync __shfl_xor_sync
#define ptxl_shfl_up_sync __shfl_up_sync
#define ptxl_shfl_sync __shfl_sync
#define ptxl_activemask __activemask
#define ptxl_ballot_sync __ballot_sync
#define ptxl_all_sync __all_sync
#define ptxl_any_sync __any_sync
#define ptxl_uni_sync __uni_sync
#define ptxl_reduce_add_sync __reduce_add_sync
#define ptxl_reduce_min_sync __reduce_min_sync
#define ptxl_reduce_max_sync __reduce_max_sync
#define ptxl_reduce_and_sync __reduce_and_sync
#define ptxl_reduce_xor_sync __reduce_xor_sync
#define ptxl_match_any_sync __match_any_sync
#endif /* ptx-lower port */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void warp_sum_down(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += ptxl_shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = v;
}
extern "C" __global__ void warp_max_xor(const int *in, int *out) {
  int v = in[threadIdx.x];
  for (int m = 16; m > 0; m >>= 1) v = max(v, ptxl_shfl_xor_sync(0xffffffffu, v, m));
  out[threadIdx.x] = v;
}
extern "C" __global__ void warp_inclusive_scan(const unsigned *in, unsigned *out) {
  unsigned v = in[threadIdx.x], lane = threadIdx.x & 31;
  for (int o = 1; o < 32; o <<= 1) { unsigned t = ptxl_shfl_up_sync(0xffffffffu, v, o); if (lane >= o) v += t; }
  out[threadIdx.x] = v;
}
extern "C" __global__ void width16_broadcast(const float *in, float *out, int src) {
  out[threadIdx.x] = ptxl_shfl_sync(0xffffffffu, in[threadIdx.x], src, 16);
}
extern "C" __global__ void ballot_count(const int *in, unsigned *out, int n) {
  int i = threadIdx.x;
  if (i >= n) return;
  unsigned active = ptxl_activemask();
  unsigned b = ptxl_ballot_sync(active, in[i] > 0);
  int all = ptxl_all_sync(active, in[i] != 0), any = ptxl_any_sync(active, in[i] < 0);
  out[i] = __popc(b) + (all << 8) + (any << 9);
}
extern "C" __global__ void vote_uniform(const int *in, int *out) {
  out[threadIdx.x] = ptxl_uni_sync(0xffffffffu, in[threadIdx.x] == 7) ? 1 : 0;
}
extern "C" __global__ void redux_all(const unsigned *in, unsigned *out) {
  unsigned v = in[threadIdx.x];
  out[5 * threadIdx.x + 0] = ptxl_reduce_add_sync(0xffffffffu, v);
  out[5 * threadIdx.x + 1] = ptxl_reduce_min_sync(0xffffffffu, v);
  out[5 * threadIdx.x + 2] = (unsigned)ptxl_reduce_max_sync(0xffffffffu, (int)v);
  out[5 * threadIdx.x + 3] = ptxl_reduce_and_sync(0xffffffffu, v);
  out[5 * threadIdx.x + 4] = ptxl_reduce_xor_sync(0x0000ffffu, v);
}
extern "C" __global__ void tile8_reduce(const int *in, int *out) {
  auto t = cg::tiled_partition<8>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(t, in[threadIdx.x], cg::plus<int>());
}
extern "C" __global__ void leader_broadcast(unsigned *ctr, unsigned *out, const unsigned *key) {
  unsigned k = key[threadIdx.x];
  unsigned peers = ptxl_match_any_sync(ptxl_activemask(), k);
  int leader = __ffs(peers) - 1;
  unsigned base = 0;
  if ((threadIdx.x & 31) == leader) base = atomicAdd(&ctr[k & 15], __popc(peers));
  base = ptxl_shfl_sync(peers, base, leader);
  out[threadIdx.x] = base + __popc(peers & ((1u << (threadIdx.x & 31)) - 1));
}
