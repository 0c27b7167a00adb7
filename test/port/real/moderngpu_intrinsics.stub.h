// Stub of moderngpu's operators.hxx / meta.hxx as intrinsics.hxx uses them: the function
// qualifier macros, the warp size, div_up, iterate<N>, the operator types, and the switch the
// file sets on a device compile (USE_SHFL_SYNC). Written for test/port_real.test.ts.
#pragma once
#include "common.stub.h"
#define MGPU_HOST_DEVICE __host__ __device__
#define MGPU_DEVICE __device__
#define MEMBERMASK 0xffffffffu
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define USE_SHFL_SYNC 1
#endif
enum { warp_size = 2 * 16 };
template <class T>
constexpr __host__ __device__ T div_up(T n, T d) { return (n + d - 1) / d; }
template <int N, class F>
__device__ inline void iterate(F f) {
  for (int k = 0; k < N; ++k) f(k);
}
template <class T> struct plus_t { __device__ T operator()(T p, T q) const { return p + q; } };
template <class T> struct maximum_t { __device__ T operator()(T p, T q) const { return q < p ? p : q; } };
template <class T> struct minimum_t { __device__ T operator()(T p, T q) const { return p < q ? p : q; } };
