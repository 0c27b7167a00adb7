// Stub of faiss/gpu/utils/DeviceDefs.cuh (the warp width default) and of the CUDA version
// <cuda.h> gives, so that the CUDA >= 9 branches (the ones port rewrites) are the ones compiled.
// Written for test/port_real.test.ts.
#pragma once
#include "common.stub.h"
#ifndef CUDA_VERSION
#define CUDA_VERSION (13 * 1000)
#endif
namespace { constexpr int kWarpSize = 4 * 8; }
