// Stub of what cub/util_ptx.cuh's includes give its warp functions (util_arch.cuh: the warp
// width the matcher specializes on). Written for test/port_real.test.ts.
#pragma once
#include "common.stub.h"
enum { CUB_PTX_WARP_THREADS = 1 << 5 };
