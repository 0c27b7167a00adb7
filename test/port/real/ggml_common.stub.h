// Stub of what ggml-cuda/common.cuh's warp reductions use from the rest of that file and its
// includes: the warp width default, fp16 availability, the no-device-code trap, the physical
// warp size query and a half2 maximum. Written for test/port_real.test.ts.
#pragma once
#include "common.stub.h"
#ifndef WARP_SIZE
#define WARP_SIZE (4 * 8)
#endif
#define FP16_AVAILABLE 1
#define GGML_UNUSED(v) ((void)(v))
#define NO_DEVICE_CODE __builtin_trap()
static constexpr __device__ int ggml_cuda_get_physical_warp_size() { return 8 * 4; }
static __device__ inline half2 ggml_cuda_hmax2(half2 p, half2 q) {
  const float2 a = __half22float2(p), b = __half22float2(q);
  return __floats2half2_rn(fmaxf(a.x, b.x), fmaxf(a.y, b.y));
}
