/*
 * A STUB of the warp-sync declarations ROCm >= 6.2's hip_runtime.h makes global (test only;
 * test/dropins.test.ts). Written from their public signatures, no code copied:
 *   ROCm/clr hipamd/include/hip/amd_detail/amd_warp_sync_functions.h (commit 009b009e) and
 *   ROCm/rocm-systems projects/clr/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h
 *   (commit 00efd150): templates over the mask type whose static_assert wants a 64-bit
 *   integer mask, all under `#if !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)` —
 *     unsigned long long __ballot_sync(MaskT, int); int __all_sync(MaskT, int);
 *     int __any_sync(MaskT, int); unsigned long long __match_any_sync(MaskT, T);
 *     unsigned long long __match_all_sync(MaskT, T, int *);
 *     T __shfl_sync(MaskT, T, int srcLane, int width = warpSize);
 *     T __shfl_up_sync(MaskT, T, unsigned int delta, int width = warpSize);
 *     T __shfl_down_sync(MaskT, T, unsigned int delta, int width = warpSize);
 *     T __shfl_xor_sync(MaskT, T, int laneMask, int width = warpSize);
 *     int/unsigned int __reduce_{add,min,max}_sync(MaskT, int/unsigned int);
 *     unsigned int __reduce_{and,or,xor}_sync(MaskT, unsigned int);
 *     void __syncwarp(); void __syncwarp(MaskT) (rocm-systems 00efd150);
 *   and amd_warp_functions.h (ROCm/clr commit 059a89ae): unsigned long long __activemask(),
 *   enabled with the same switch ("This arrangement also applies to the __activemask() builtin").
 * ROCm has no __uni_sync. The bodies only hold the mask check, so that a CUDA-style call
 * (a 32-bit mask) fails here as it fails against ROCm.
 */
#ifndef PTXL_TEST_ROCM_WARP_SYNC_STUB
#define PTXL_TEST_ROCM_WARP_SYNC_STUB
#if !defined(HIP_DISABLE_WARP_SYNC_BUILTINS)

#define PTXL_STUB_DEV __attribute__((device)) inline
#define PTXL_STUB_MASK(M) static_assert(__is_integral(M) && sizeof(M) == 8, "The mask must be a 64-bit integer (stub of ROCm >= 6.2)")

PTXL_STUB_DEV unsigned long long __activemask();
PTXL_STUB_DEV void __syncwarp();
template <typename M> PTXL_STUB_DEV void __syncwarp(M mask) { PTXL_STUB_MASK(M); }

template <typename M> PTXL_STUB_DEV unsigned long long __ballot_sync(M mask, int predicate) { PTXL_STUB_MASK(M); return 0; }
template <typename M> PTXL_STUB_DEV int __all_sync(M mask, int predicate) { PTXL_STUB_MASK(M); return 0; }
template <typename M> PTXL_STUB_DEV int __any_sync(M mask, int predicate) { PTXL_STUB_MASK(M); return 0; }

template <typename M, typename T> PTXL_STUB_DEV unsigned long long __match_any_sync(M mask, T value) { PTXL_STUB_MASK(M); return 0; }
template <typename M, typename T> PTXL_STUB_DEV unsigned long long __match_all_sync(M mask, T value, int *pred) { PTXL_STUB_MASK(M); return 0; }

template <typename M, typename T> PTXL_STUB_DEV T __shfl_sync(M mask, T var, int srcLane, int width = __AMDGCN_WAVEFRONT_SIZE) { PTXL_STUB_MASK(M); return var; }
template <typename M, typename T> PTXL_STUB_DEV T __shfl_up_sync(M mask, T var, unsigned int delta, int width = __AMDGCN_WAVEFRONT_SIZE) { PTXL_STUB_MASK(M); return var; }
template <typename M, typename T> PTXL_STUB_DEV T __shfl_down_sync(M mask, T var, unsigned int delta, int width = __AMDGCN_WAVEFRONT_SIZE) { PTXL_STUB_MASK(M); return var; }
template <typename M, typename T> PTXL_STUB_DEV T __shfl_xor_sync(M mask, T var, int laneMask, int width = __AMDGCN_WAVEFRONT_SIZE) { PTXL_STUB_MASK(M); return var; }

template <typename M> PTXL_STUB_DEV int __reduce_add_sync(M mask, int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV unsigned int __reduce_add_sync(M mask, unsigned int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV int __reduce_min_sync(M mask, int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV unsigned int __reduce_min_sync(M mask, unsigned int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV int __reduce_max_sync(M mask, int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV unsigned int __reduce_max_sync(M mask, unsigned int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV unsigned int __reduce_and_sync(M mask, unsigned int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV unsigned int __reduce_or_sync(M mask, unsigned int value) { PTXL_STUB_MASK(M); return value; }
template <typename M> PTXL_STUB_DEV unsigned int __reduce_xor_sync(M mask, unsigned int value) { PTXL_STUB_MASK(M); return value; }

#endif
#endif
