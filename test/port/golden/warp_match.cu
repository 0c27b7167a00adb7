// Warp-aggregated counting with __match_any_sync / __match_all_sync, and video shifts.
#if defined(__HIP__) /* ptx-lower port */
#include "warp_match.hip.h"
#else
#define ptxl_match_any_sync __match_any_sync
#define ptxl_activemask __activemask
#define ptxl_match_all_sync __match_all_sync
#endif /* ptx-lower port */
#include <cstdint>

extern "C" __global__ void count_keys(const uint32_t* keys, uint32_t* counts, uint32_t* leaders, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t k = keys[i];
  unsigned peers = ptxl_match_any_sync(ptxl_activemask(), k);
  int leader = __ffs(peers) - 1;
  if ((threadIdx.x & 31) == leader) atomicAdd(&counts[k & 255], __popc(peers));
  int pred;
  unsigned all = ptxl_match_all_sync(0xffffffffu, k >> 8, &pred);
  leaders[i] = pred ? all : peers;
}

extern "C" __global__ void match_ptr64(const unsigned long long* p, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = ptxl_match_any_sync(0xffffffffu, p[i]);
}

extern "C" __global__ void video_shifts(const uint32_t* a, const uint32_t* b, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t x = a[i], y = b[i], d0, d1, d2;
#if defined(__HIP__) /* ptx-lower port */
  d0 = vshl_u32_u32_clamp_add__v_v_v(x, y, x);
#else
  asm("vshl.u32.u32.u32.clamp.add %0, %1, %2, %3;" : "=r"(d0) : "r"(x), "r"(y), "r"(x));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
  d1 = vshr_s32_s32_wrap_ah1_bb0__v_v(x, y);
#else
  asm("vshr.s32.s32.u32.wrap %0, %1.h1, %2.b0;" : "=r"(d1) : "r"(x), "r"(y));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
  d2 = vshl_u32_u32_sat_clamp_db2__v_v_v(x, y, d0);
#else
  asm("vshl.u32.u32.u32.sat.clamp %0.b2, %1, %2, %3;" : "=r"(d2) : "r"(x), "r"(y), "r"(d0));
#endif /* ptx-lower port */
  out[i] = d0 ^ d1 ^ d2;
}
