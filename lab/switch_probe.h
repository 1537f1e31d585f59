// The GPU context-switch probe's view of one API: the peer interface that
// each simulation backend with a GPU context of its own implements (CUDA in
// lab/cuda/cuda_switch_probe.h, OpenCL in lab/opencl/opencl_switch_probe.h),
// and that app/ also implements for the Vulkan side. No Vulkan, CUDA or
// OpenCL type appears here.
//
// The probe (app/capture/switch_probe.h) plays a ping-pong between two peers
// with no semaphores at all: it launches one side's marked work, waits on the
// host until it is done, launches the other side's, and so on. Each piece of
// marked work records its own start and end on its API's GPU clock; with each
// clock tied to the host clock, the gap from one side's end to the other's
// start is the time the GPU took to turn from one context to the other (plus
// the host's own turnaround, which the same ping-pong within one peer
// measures, so that the two can be told apart).
#pragma once
#include <cstdint>
#include <string>

#include "base/result.h"

namespace vksim {

// When one piece of marked work ran, on the peer's own GPU clock, in
// nanoseconds (CUDA: %globaltimer; Vulkan: timestamps times timestampPeriod;
// OpenCL: the event's profiling start and end).
struct PeerInterval {
  uint64_t startNs = 0;
  uint64_t endNs = 0;
};

// How the peer's GPU clock maps onto the host clock (base/host_clock.h,
// hostNowNs): hostNs = peerNs + offsetNs, true to within +- uncertaintyNs
// (half the width of the host window that bracketed the reading, or the
// driver's own maximum deviation where the API gives one).
struct ClockTie {
  int64_t offsetNs = 0;
  uint64_t uncertaintyNs = 0;
};

class SwitchProbePeer {
 public:
  virtual ~SwitchProbePeer() = default;

  // The API's name for reports: "vulkan", "cuda", "opencl".
  virtual std::string apiName() const = 0;

  // Enqueues one piece of marked work: the smallest the API offers (an empty
  // kernel, a command buffer of two timestamps) that records its start and
  // end on the peer's clock. No semaphore, no wait on the GPU: it only
  // enqueues and returns. At most one piece is outstanding; launching again
  // before isMarkedDone() said true is an error (false). False when the
  // enqueue failed.
  virtual bool launchMarked() = 0;

  // Whether the last launched piece has completed; never blocks. The probe
  // spins on this (a host poll, like the frame loop's), so it must be cheap.
  virtual bool isMarkedDone() = 0;

  // The interval of the last piece, once isMarkedDone() said true; false
  // before that, or when its marks could not be read.
  virtual bool readMarked(PeerInterval* interval) = 0;

  // Ties the peer's clock to the host clock, blocking at most timeoutNs.
  // Called before and after the ping-pong; the probe reports how far the two
  // ties disagree (drift) next to their uncertainty. An Error says why the
  // clock cannot be tied (exit code 3: the API lacks the means).
  virtual Result<ClockTie> tieClock(uint64_t timeoutNs) = 0;
};

}  // namespace vksim
