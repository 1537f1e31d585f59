// Subnormal floats on the host, switched off for the length of a scope.
//
// Why: the ripple field holds subnormal values (below 1.2e-38) for hundreds
// of steps after the first drop: the Gaussian's tail underflows through
// them, and the leapfrog spreads tiny values ahead of the wave front until it
// has crossed the grid. On the Intel host of the H200 machine an arithmetic
// operation that reads or produces a subnormal takes a microcode assist, so
// the CPU backend's step time followed how many cells were subnormal, not the
// grid, and fell several-fold over a run as they died out (measured in
// docs/results/2026-12-03-cpu-backend.md, "The CPU backend: what its frames
// were made of"). Flush-to-zero (results) and
// denormals-are-zero (inputs) make every step cost the same. The kernels keep
// IEEE subnormals: a flush moves a value by less than 1.2e-38 and the stable
// scheme does not amplify it, far inside the bounds the agreement tests
// derive (docs/interop-walkthrough.md).
//
// x86-64 only (the MXCSR register of SSE); elsewhere the scope changes
// nothing and the host keeps IEEE subnormals.
#pragma once

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace vksim {

class FlushSubnormalsScope {
 public:
#if defined(__SSE2__)
  // MXCSR bit 15 is flush-to-zero, bit 6 denormals-are-zero.
  static constexpr unsigned kFlushBits = 0x8040u;
  FlushSubnormalsScope() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | kFlushBits);
  }
  ~FlushSubnormalsScope() {
    _mm_setcsr(saved_);
  }
#else
  FlushSubnormalsScope() = default;
#endif
  FlushSubnormalsScope(const FlushSubnormalsScope&) = delete;
  FlushSubnormalsScope& operator=(const FlushSubnormalsScope&) = delete;

 private:
#if defined(__SSE2__)
  unsigned saved_;
#endif
};

}  // namespace vksim
