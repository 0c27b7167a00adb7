// Stub of what libcu++'s cuda/__ptx/instructions/shfl_sync.h takes from its includes: the
// device-function macro, the shuffle modes, the (here empty) argument checks and bit_cast.
// Written for test/port_real.test.ts.
#pragma once
#include "common.stub.h"
#define _CCCL_DEVICE __device__
enum class __dot_shfl_mode { __up, __down, __bfly, __idx };
namespace cuda {
namespace ptx {
template <class T>
__device__ inline void __shfl_sync_checks(__dot_shfl_mode, T, uint32_t, uint32_t, uint32_t) {}
}  // namespace ptx
namespace std {
template <class To, class From>
__device__ inline To bit_cast(const From& v) { return __builtin_bit_cast(To, v); }
}  // namespace std
}  // namespace cuda
