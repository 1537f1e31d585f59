// How the frame loop hands a semaphore wait to the side that waits
// (docs/benchmarks.md, "Wait strategies"):
//
//   enqueue: submit each wait at once, still pending; the GPU wakes it when
//            the other side signals.
//   poll:    the host first spins until the value is reached (it sees a
//            signal within tens of microseconds), then submits the wait,
//            already satisfied.
//
// Measured on an H200 (../shared/gpu/README.md, "Figures measured there"): a
// CUDA stream or Vulkan queue whose wait is still pending when it is enqueued
// wakes about 0.3 ms after the signal, a wait already satisfied when enqueued
// costs about 10 us, and a blocking vkWaitSemaphores on a CUDA-signalled value
// about 5 ms. With both of a frame's waits pending, enqueue pays about 0.65 ms
// per frame for synchronisation alone; poll pays a few tens of microseconds.
// The schedule of values is the same either way: the enqueued wait still
// carries the dependency, polling only decides when it is enqueued.
#pragma once
#include <chrono>
#include <cstdint>

namespace vksim {

enum class WaitStrategy { poll, enqueue };
const char* toString(WaitStrategy strategy);  // "poll", "enqueue"

// steady_clock now, in nanoseconds since its epoch: the host clock of every
// timing in app/ (CLOCK_MONOTONIC, the clock VK_EXT_calibrated_timestamps and
// the CUDA anchor are converted to).
int64_t hostNowNs();

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
