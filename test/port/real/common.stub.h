// Stubs for test/port_real.test.ts: what every minimal unit cut from a real file needs besides
// the cut itself, written for these tests (no line of a project's header). Both sides: the HIP
// compile (clang-19 -x hip, hip/hip_runtime.h included first) and nvcc -arch=sm_90.
#pragma once
#include <stdint.h>
#if defined(__HIP__)
#include <hip/hip_fp16.h>
#else
#include <cuda_fp16.h>
#endif
