// The one host clock that every timestamp in a run is taken on: the frame
// loop's spans, the simulation's step records, captures and traces. Steady
// (never jumps with the wall clock), in nanoseconds from an arbitrary origin.
#pragma once
#include <chrono>
#include <cstdint>

namespace vksim {

// Now, on the host clock, in nanoseconds.
inline int64_t hostNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace vksim
