// The host's bounded spin wait: what the poll strategy
// (app/interop/wait_strategy.h) and the loop's other short waits spin on
// before they hand a wait over.
#pragma once
#include <cstdint>
#include <functional>

namespace vksim {

// Spins until reached() returns true, at most timeoutNs; false on timeout.
// Between checks a short pause (the CPU's spin-wait hint), then a yield: the
// thread stays ready to see the value within a microsecond or so, and never
// sleeps for milliseconds. reached() must be cheap and non-blocking
// (vkGetSemaphoreCounterValue, vkGetFenceStatus, cudaEventQuery).
// On the host clock (hostNowNs, base/host_clock.h), which every span of a
// run is timed on.
bool waitUntilReached(const std::function<bool()>& reached, uint64_t timeoutNs);

// The same loop on a clock of the caller's: now() returns nanoseconds on any
// monotonic scale. The frame loop uses hostNowNs; tests pass a fake clock so
// that the timeout is checked by counting, not by measuring.
template <typename Reached, typename Now>
bool waitUntilReached(Reached&& reached, uint64_t timeoutNs, Now&& now);

void spinPause();  // one short pause of the spin loop above

template <typename Reached, typename Now>
bool waitUntilReached(Reached&& reached, uint64_t timeoutNs, Now&& now) {
  if (reached()) return true;
  const int64_t deadline = now() + int64_t(timeoutNs);
  for (;;) {
    spinPause();
    if (reached()) return true;
    if (now() >= deadline) return false;
  }
}

}  // namespace vksim
