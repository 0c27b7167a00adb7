// Inline-PTX patterns that CUDA libraries use, for `ptx-lower port` (test/port.test.ts).
// Not copied from any library: each function restates a pattern named in issue 14.
#if defined(__HIP__) /* ptx-lower port */
#include "patterns.hip.h"
#endif /* ptx-lower port */
#include <cstdint>

// A shift-right-then-add helper (the pattern of CUB's SHR_ADD), with the asm split over lines.
__device__ __forceinline__ unsigned int shr_add(unsigned int v, unsigned int by, unsigned int plus)
{
    unsigned int sum;
#if defined(__HIP__) /* ptx-lower port */
    sum = vshr_u32_u32_clamp_add__v_v_v(v, by, plus);
#else
    asm("vshr.u32.u32.u32.clamp.add %0, %1, %2, %3;" :
        "=r"(sum) : "r"(v), "r"(by), "r"(plus));
#endif /* ptx-lower port */
    return sum;
}

// A byte-selected shift accumulated into a mask, as the body of an if (tinybvh's pattern).
__device__ unsigned int hit_bits(unsigned int child_bits, unsigned int bit_index, float lo, float hi)
{
    unsigned int hit_mask = 0;
    if (lo <= hi)
#if defined(__HIP__) /* ptx-lower port */
        hit_mask = vshl_u32_u32_wrap_add_ab0_bb0__v_v_v(child_bits, bit_index, hit_mask);
#else
        asm("vshl.u32.u32.u32.wrap.add %0, %1.b0, %2.b0, %3;" : "=r"(hit_mask) : "r"(child_bits), "r"(bit_index), "r"(hit_mask));
#endif /* ptx-lower port */
    if (lo < hi)
#if defined(__HIP__) /* ptx-lower port */
    hit_mask = vshl_u32_u32_wrap_add_ab1_bb1__v_v_v(child_bits, bit_index, hit_mask);
#else
    asm volatile("vshl.u32.u32.u32.wrap.add %0, %1.b1, %2.b1, %0;" : "+r"(hit_mask) : "r"(child_bits), "r"(bit_index)); // the other byte
#endif /* ptx-lower port */
    return hit_mask;
}

// __asm with a preprocessor choice around it (gpuowl's pattern).
__device__ uint32_t low_bits(int32_t u, uint32_t bits)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    uint32_t res;
#if defined(__HIP__) /* ptx-lower port */
    res = szext_clamp_u32__v_v(u, bits);
#else
    __asm("szext.clamp.u32 %0, %1, %2;" : "=r"(res) : "r"(u), "r"(bits));
#endif /* ptx-lower port */
    return res;
#else
    return bits >= 32 ? (uint32_t)u : (uint32_t)u & ((1u << bits) - 1);
#endif
}

// Qualifiers, a template across string literals and lines, an operand used twice.
__device__ int32_t twice(uint32_t v, uint32_t n)
{
    int32_t d;
#if defined(__HIP__) /* ptx-lower port */
    d = szext_wrap_s32__v_v(v, n);
#else
    __asm__ __volatile__("szext.wrap.s32 "
                         "%0, %1, %2;"
                         : "=r"(d)
                         : "r"(v), "r"(n));
#endif /* ptx-lower port */
    uint32_t t;
#if defined(__HIP__) /* ptx-lower port */
    {
      unsigned int ptxl_0 = 0u;
      unsigned int ptxl_1 = (v + 1);
      ptxl_0 = vshl_u32_u32_clamp_add__v_v_v(ptxl_1, n, ptxl_1);
      t = ptxl_0;
    }
#else
    asm volatile("vshl.u32.u32.u32.clamp.add %0, %1, %2, %1;" : "=r"(t) : "r"(v + 1), "r"(n));
#endif /* ptx-lower port */
    return d + (int32_t)t;
}

// Several instructions in one template, with a { .reg } scope and an immediate operand.
__device__ uint32_t two_steps(uint32_t a, uint32_t b)
{
    uint32_t r;
#if defined(__HIP__) /* ptx-lower port */
    {
      unsigned int ptxl_0 = 0u;
      unsigned int ptxl_t_t = 0u;
      ptxl_t_t = szext_clamp_u32__v_imm12(a);
      ptxl_0 = vshl_u32_u32_clamp_add__v_v_v(ptxl_t_t, b, ptxl_t_t);
      r = ptxl_0;
    }
#else
    asm("{\n\t"
        ".reg .b32 t;\n\t"
        "szext.clamp.u32 t, %1, %3;\n\t"
        "vshl.u32.u32.u32.clamp.add %0, t, %2, t;\n\t"
        "}"
        : "=r"(r)
        : "r"(a), "r"(b), "n"(12));
#endif /* ptx-lower port */
    return r;
}

// Warp matching: an immediate membermask, a 64-bit key, and match.all's predicate as a guard.
__device__ unsigned int peers_of(unsigned int k, unsigned long long key, unsigned int mask)
{
    unsigned int any32, any64, all = 7;
#if defined(__HIP__) /* ptx-lower port */
    any32 = match_any_sync_b32__v_imm0xffffffff(k);
#else
    asm volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(any32) : "r"(k), "n"(0xffffffff));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
    any64 = match_any_sync_b64__v_v(key, mask);
#else
    asm volatile("match.any.sync.b64 %0, %1, %2;" : "=r"(any64) : "l"(key), "r"(mask));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
    {
      unsigned int ptxl_0 = all;
      unsigned int ptxl_t_m = 0u;
      bool ptxl_t_same = false;
      ptxl_t_m = match_all_sync_b32_dp__v_v(k, mask, &ptxl_t_same);
      if (ptxl_t_same) ptxl_0 = szext_wrap_u32__v_imm8(ptxl_t_m);
      all = ptxl_0;
    }
#else
    asm volatile("{ .reg .pred same; .reg .b32 m;\n"
                 "  match.all.sync.b32 m|same, %1, %2;\n"
                 "  @same szext.wrap.u32 %0, m, 8;\n"
                 "}" : "+r"(all) : "r"(k), "r"(mask));
#endif /* ptx-lower port */
    return any32 ^ any64 ^ all;
}

// A mixed template: szext is supported, mad.lo is not, so the statement stays as it is.
__device__ uint32_t mixed(uint32_t a, uint32_t b)
{
    uint32_t c;
    asm("{\n\t.reg .u32 t;\n\tmad.lo.s32 t, %1, %1, %1;\n\tszext.clamp.u32 %0, t, %2;\n\t}" : "=r"(c) : "r"(a), "r"(b));
    return c;
}

// Not code: asm("szext.clamp.u32 %0, %1, %2;") in a comment, and /* asm("x") */ here.
__device__ const char *not_code(void)
{
    const char *s = "asm(\"szext.clamp.u32 %0, %1, %2;\" : \"=r\"(d))";
    const char *raw = R"x(asm("vshl.u32.u32.u32.clamp %0, %1, %2;" : "=r"(d)); )x";
    char q = '"'; (void)q;
    int big = 1'000'000; (void)big;
    return big > 1 ? s : raw;
}

// Macros: a supported one whose "n" operand every use passes as a literal; one used with a
// variable (reported); a template built from a macro name (reported).
#if defined(__HIP__) /* ptx-lower port */
#define SEXT_IMM(d, a, N) (d) = szext_clamp_s32__v_v((a), (N))
#else
#define SEXT_IMM(d, a, N) asm("szext.clamp.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(N))
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
#define ZEXT_REG(d, a, b) \
    (d) = szext_wrap_u32__v_v((a), (b))
#else
#define ZEXT_REG(d, a, b) \
    asm("szext.wrap.u32 %0, %1, %2;" \
        : "=r"(d) : "r"(a), "r"(b))
#endif /* ptx-lower port */
#define SHIFT_N(d, a, N) asm("vshl.u32.u32.u32.clamp %0, %1, %2;" : "=r"(d) : "r"(a), "n"(N))
#define MODE "clamp"
__device__ int32_t macros(uint32_t a, uint32_t b)
{
    int32_t x, y;
    uint32_t z, w, v;
    SEXT_IMM(x, a, 8);
    SEXT_IMM(y, a, 0x10);
    ZEXT_REG(z, a, b);
    SHIFT_N(w, a, 3);
    SHIFT_N(w, w, sizeof(w));
    asm("szext." MODE ".u32 %0, %1, %2;" : "=r"(v) : "r"(a), "r"(b));
    return x + y + (int32_t)(z ^ w ^ v);
}

extern "C" __global__ void patterns(const uint32_t *in, uint32_t *out)
{
    uint32_t a = in[threadIdx.x], b = in[threadIdx.x + 32];
    out[threadIdx.x] = shr_add(a, b, 1) ^ hit_bits(a, b, 0.f, 1.f) ^ low_bits((int32_t)a, b) ^ (uint32_t)twice(a, b) ^ two_steps(a, b) ^
                       peers_of(a, b, 0xffffffffu) ^ mixed(a, b) ^ (uint32_t)macros(a, b) ^ (uint32_t)(uintptr_t)not_code();
}
