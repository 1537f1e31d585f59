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
// same, and so is what a frame pays for the handoff: the GPU switching
// between the Vulkan device's context and the CUDA context twice a frame.
// poll is the default because its frames are steadier: enqueue's host
// sleeps in vkWaitForFences, whose wake-up lands in the frame's tail;
// enqueue stays for a run that must leave every CPU core free. The host
// never blocks in vkWaitSemaphores on a value CUDA signals: that wait wakes
// milliseconds late. The measurements behind each of these are in
// docs/benchmarks.md ("Wait strategies", "Which strategy").
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
