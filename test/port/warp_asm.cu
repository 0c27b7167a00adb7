// Inline PTX of the warp-level family, as CUDA libraries write it (test/port.test.ts).
__device__ unsigned bcast(unsigned v, int src) {
  unsigned r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(src), "r"(0x1f), "r"(0xffffffffu));
  return r;
}
__device__ unsigned up1(unsigned v) {
  unsigned r;
  asm("{ .reg .pred p; shfl.sync.up.b32 %0|p, %1, 1, 0, 0xffffffff; }" : "=r"(r) : "r"(v));
  return r;
}
__device__ unsigned members(unsigned m) { unsigned d; asm("vote.sync.ballot.b32 %0, 1, %1;" : "=r"(d) : "r"(m)); return d; }
__device__ unsigned am() { unsigned m; asm volatile("activemask.b32 %0;" : "=r"(m)); return m; }
__device__ unsigned sum(unsigned v) { unsigned d; asm("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(d) : "r"(v)); return d; }
__device__ void sync_all() { asm volatile("bar.warp.sync 0xffffffff;"); }
extern "C" __global__ void k(unsigned *o) {
  unsigned v = o[0];
  o[1] = bcast(v, 3) + up1(v) + members(am()) + sum(v);
  sync_all();
}
// Left (setp is no family instruction); the compile test leaves it out with -DPORT_TEST_REWRITTEN_ONLY.
#ifndef PORT_TEST_REWRITTEN_ONLY
__device__ unsigned nonzero(unsigned v) { unsigned d; asm("{ .reg .pred q; setp.ne.u32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }" : "=r"(d) : "r"(v)); return d; }
#endif
