// Bit-field helpers of a packed-record decoder: every szext form, with register and
// immediate operands (the PTX that nvcc produced is bitfields.sm_90.ptx beside this file).
#if defined(__HIP__) /* ptx-lower port */
#include "bitfields.hip.h"
#endif /* ptx-lower port */
#include <cstdint>

__device__ __forceinline__ int32_t sext_clamp(uint32_t a, uint32_t n) {
  int32_t d;
#if defined(__HIP__) /* ptx-lower port */
  d = szext_clamp_s32__v_v(a, n);
#else
  asm("szext.clamp.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(n));
#endif /* ptx-lower port */
  return d;
}
__device__ __forceinline__ int32_t sext_wrap(uint32_t a, uint32_t n) {
  int32_t d;
#if defined(__HIP__) /* ptx-lower port */
  d = szext_wrap_s32__v_v(a, n);
#else
  asm("szext.wrap.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(n));
#endif /* ptx-lower port */
  return d;
}
__device__ __forceinline__ uint32_t zext_clamp(uint32_t a, uint32_t n) {
  uint32_t d;
#if defined(__HIP__) /* ptx-lower port */
  d = szext_clamp_u32__v_v(a, n);
#else
  asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(n));
#endif /* ptx-lower port */
  return d;
}
__device__ __forceinline__ uint32_t zext_wrap(uint32_t a, uint32_t n) {
  uint32_t d;
#if defined(__HIP__) /* ptx-lower port */
  d = szext_wrap_u32__v_v(a, n);
#else
  asm("szext.wrap.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(n));
#endif /* ptx-lower port */
  return d;
}

// Decodes fields of per-thread records whose widths come from a per-thread width table.
extern "C" __global__ void decode_fields(const uint32_t* rec, const uint32_t* width, int32_t* s_out,
                                         uint32_t* u_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t r = rec[i], w = width[i];
  s_out[4 * i + 0] = sext_clamp(r, w);
  s_out[4 * i + 1] = sext_wrap(r, w);
  u_out[4 * i + 0] = zext_clamp(r, w);
  u_out[4 * i + 1] = zext_wrap(r, w);
}

// Uniform width (a kernel parameter): the width operand is uniform across the warp.
extern "C" __global__ void decode_uniform_width(const uint32_t* rec, int32_t* out, uint32_t w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = sext_wrap(rec[i], w) + (int32_t)zext_clamp(rec[i], w);
}

// Immediate widths and an immediate value.
extern "C" __global__ void decode_fixed(const uint32_t* rec, int32_t* out, uint32_t sel, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t r = rec[i];
  int32_t a, b, c, e, f, g;
#if defined(__HIP__) /* ptx-lower port */
  a = szext_clamp_s32__v_imm12(r);
#else
  asm("szext.clamp.s32 %0, %1, 12;" : "=r"(a) : "r"(r));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
  b = szext_wrap_s32__v_imm40(r);
#else
  asm("szext.wrap.s32 %0, %1, 40;" : "=r"(b) : "r"(r));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
  c = szext_clamp_u32__v_imm32(r);
#else
  asm("szext.clamp.u32 %0, %1, 32;" : "=r"(c) : "r"(r));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
  e = szext_wrap_u32__v_imm0(r);
#else
  asm("szext.wrap.u32 %0, %1, 0;" : "=r"(e) : "r"(r));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
  f = szext_clamp_s32__imm128_v(sel);
#else
  asm("szext.clamp.s32 %0, 0x80, %1;" : "=r"(f) : "r"(sel));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
  g = szext_wrap_u32__imm0xffffffff_imm7();
#else
  asm("szext.wrap.u32 %0, 0xffffffff, 7;" : "=r"(g));
#endif /* ptx-lower port */
  out[i] = a ^ b ^ c ^ e ^ f ^ g;
}
