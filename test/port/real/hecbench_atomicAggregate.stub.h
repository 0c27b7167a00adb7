// HeCBench's atomicAggregate main.cu needs nothing beyond the CUDA/HIP runtime for its device
// function. Written for test/port_real.test.ts.
#pragma once
#include "common.stub.h"
