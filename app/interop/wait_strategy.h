// How the frame loop hands a semaphore wait to the side that waits
// (docs/benchmarks.md, "Wait strategies"):
//
//   poll (the default): the host first spins until the value is reached
//            (counter, fence or CUDA event, each read without blocking),
//            then submits the wait, already satisfied.
//   enqueue: submit each wait at once, while its value may still be
//            unreached; the queue or stream holds it and the host sleeps
//            in vkWaitForFences at the top of the next frame.
//
// Either way the wait is submitted and carries the dependency; the strategy
// only decides when the host hands it over, so the value schedule is the
// same. What a frame pays for the handoff does not depend on it: on the H200
// (driver 580.159.04, 2026-12-01) each frame crosses between the Vulkan
// device's GPU context and the CUDA context twice, ~162 us Vulkan -> CUDA and
// ~166 us CUDA -> Vulkan, measured with GPU timestamps in a ping-pong of
// empty work that used no semaphore at all. With the real waits, one render
// and one sim step at 512^2 (17 us of GPU work) took 343 us a round trip
// with both waits pending when submitted and 347 us with both already
// satisfied. Measured in this program on that H200 (two 1200-frame captures
// each at 512^2, alternating, docs/benchmarks.md "Which strategy"): the
// medians differ by 0.5 % (enqueue 1.123-1.127 ms, poll 1.130 ms) but
// enqueue's P99 is 1.38-1.50 ms against poll's 1.155-1.157 ms: its host
// sleeps in vkWaitForFences, whose wake-up the probe measured at ~60 us a
// frame over a spin. So poll, the tighter frame pacing, is the default, and
// enqueue stays for a run that must leave every CPU core free. A blocking
// vkWaitSemaphores on a value CUDA signals took 5-10 ms on that driver: the
// host never blocks on one.
#pragma once
#include <chrono>
#include <cstdint>

#include "base/host_clock.h"

namespace vksim {

enum class WaitStrategy { poll, enqueue };
const char* toString(WaitStrategy strategy);  // "poll", "enqueue"

// Spins until reached() returns true, at most timeoutNs; false on timeout.
// Between checks a short pause (the CPU's spin-wait hint), then a yield: the
// thread stays ready to see the value within a microsecond or so, and never
// sleeps for milliseconds. reached() must be cheap and non-blocking
// (vkGetSemaphoreCounterValue, vkGetFenceStatus, cudaEventQuery).
template <typename Reached>
bool waitUntilReached(Reached&& reached, uint64_t timeoutNs);

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

template <typename Reached>
bool waitUntilReached(Reached&& reached, uint64_t timeoutNs) {
  return waitUntilReached(reached, timeoutNs, hostNowNs);
}

}  // namespace vksim
