// GNU spellings nvcc does not take but clang and GCC do: named operands, `asm inline`,
// qualifiers in another order, `::` for empty outputs, a matching constraint.
__device__ unsigned named(unsigned v, unsigned n)
{
    unsigned d, e = 5;
    asm inline volatile("szext.wrap.s32 %[out], %[in], %[width];" : [out] "=r"(d) : [in] "r"(v), [width] "r"(n));
    __asm volatile inline ("szext.clamp.u32 %0, %1, %2;" : "=r"(e) : "0"(e), "r"(n));
    asm volatile ("membar.gl;" ::: "memory");
    return d + e;
}
extern int renamed asm("other_name");
