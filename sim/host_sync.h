// The host-side semaphore operations through which a CPU simulation takes part
// in the value schedule. sim/ declares this interface; app/interop/
// implements it (host_semaphores.h) with renderer/'s Vulkan calls
// (vkWaitSemaphores / vkSignalSemaphore for the timeline, queue submissions
// for the binary pair), so sim/ never sees a Vulkan type.
#pragma once
#include <cstdint>

namespace vksim {

class HostSemaphoreOps {
 public:
  virtual ~HostSemaphoreOps() = default;
  // Blocks until the timeline semaphore's counter is >= value, at most
  // timeoutNs nanoseconds. Returns false on timeout.
  virtual bool waitTimeline(uint64_t value, uint64_t timeoutNs) = 0;
  // Sets the timeline counter to value from the host (value must exceed the
  // current counter and lie below every pending signal: vkSignalSemaphore
  // executes at once, ahead of them).
  virtual void signalTimeline(uint64_t value) = 0;
  // Consumes the pending signal of the binary semaphore renderDone (a queue
  // submission that waits on it, then a fence wait of at most timeoutNs).
  // Returns false on timeout.
  virtual bool waitRenderDone(uint64_t timeoutNs) = 0;
  // Signals the binary semaphore simDone through a queue submission; all host
  // writes made before this call are visible to work that waits on it.
  virtual void signalSimDone() = 0;
};

}  // namespace vksim
