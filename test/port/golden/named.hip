// GNU spellings nvcc does not take but clang and GCC do: named operands, `asm inline`,
// qualifiers in another order, `::` for empty outputs, a matching constraint.
#if defined(__HIP__) /* ptx-lower port */
#include "named.hip.h"
#endif /* ptx-lower port */
__device__ unsigned named(unsigned v, unsigned n)
{
    unsigned d, e = 5;
#if defined(__HIP__) /* ptx-lower port */
    d = szext_wrap_s32__v_v(v, n);
#else
    asm inline volatile("szext.wrap.s32 %[out], %[in], %[width];" : [out] "=r"(d) : [in] "r"(v), [width] "r"(n));
#endif /* ptx-lower port */
#if defined(__HIP__) /* ptx-lower port */
    {
      unsigned int ptxl_0 = e;
      ptxl_0 = szext_clamp_u32__v_v(ptxl_0, n);
      e = ptxl_0;
    }
#else
    __asm volatile inline ("szext.clamp.u32 %0, %1, %2;" : "=r"(e) : "0"(e), "r"(n));
#endif /* ptx-lower port */
    asm volatile ("membar.gl;" ::: "memory");
    return d + e;
}
extern int renamed asm("other_name");
