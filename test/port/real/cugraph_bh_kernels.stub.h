// Stub of what cuGraph's bh_kernels.cuh takes from its includes and build: the launch-bound
// constants and the C99 `restrict` spelling. Written for test/port_real.test.ts.
#pragma once
#include "common.stub.h"
#define restrict __restrict__ /* the C99 keyword, as CUDA spells it */
enum { THREADS5 = 4 * 64, FACTOR5 = 2 };
