/*
 * A STUB of ROCm >= 6's <hip/hip_bf16.h> (test only; test/port_header.test.ts, passed with
 * -I test/port/bf16): Debian's HIP 5.2 has no CUDA-like bfloat16 type. Written from the public
 * shape of ROCm/clr hipamd/include/hip/amd_detail/amd_hip_bf16.h (commit 02289a3a), no code
 * copied: `struct __hip_bfloat16` (aligned 2) holds 16 bits, built from float, with a defaulted
 * default constructor; `struct __hip_bfloat162` (aligned 4) holds two of them and has a
 * USER-PROVIDED copy constructor, so it is not trivially copyable and `__builtin_bit_cast`
 * rejects it — the stub keeps that, so a drop-in that bit-casts it fails here as against ROCm.
 * The conversions here truncate the float (the stub needs bits in and out, not rounding).
 */
#ifndef PTXL_TEST_HIP_BF16_STUB
#define PTXL_TEST_HIP_BF16_STUB

struct __attribute__((aligned(2))) __hip_bfloat16 {
 protected:
  unsigned short __x;

 public:
  __attribute__((host, device)) __hip_bfloat16() = default;
  __attribute__((host, device)) __hip_bfloat16(float f) : __x((unsigned short)(__builtin_bit_cast(unsigned int, f) >> 16)) {}
  __attribute__((host, device)) operator float() const { return __builtin_bit_cast(float, (unsigned int)__x << 16); }
};

struct __attribute__((aligned(4))) __hip_bfloat162 {
  __hip_bfloat16 x;
  __hip_bfloat16 y;
  __attribute__((host, device)) __hip_bfloat162() = default;
  __attribute__((host, device)) __hip_bfloat162(const __hip_bfloat16 &a, const __hip_bfloat16 &b) : x(a), y(b) {}
  __attribute__((host, device)) __hip_bfloat162(const __hip_bfloat162 &v) : x(v.x), y(v.y) {}
  __attribute__((host, device)) __hip_bfloat162 &operator=(const __hip_bfloat162 &v) {
    x = v.x;
    y = v.y;
    return *this;
  }
};

#endif
