// tinybvh's traverse_cwbvh.cl is OpenCL C with nothing included; its NVIDIA paths (the inline
// PTX) are selected by ISNVIDIA, which the test defines on both sides. Written for
// test/port_real.test.ts.
