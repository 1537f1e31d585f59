// The CUDA side of the context-switch probe (lab/switch_probe.h), behind a
// header with no CUDA type.
#pragma once
#include <memory>

#include "base/result.h"
#include "lab/switch_probe.h"

namespace vksim {

// A peer on CUDA device `ordinal`, in the device's primary context (the one
// the CUDA backend runs in), with a stream of its own. Its marked work is one
// kernel of one thread that reads %globaltimer (nanoseconds) on entry and on
// exit and writes both into pinned, mapped host memory; done is an event
// recorded after it. tieClock launches a kernel that, once it is running,
// waits for a flag the host sets between two host clock readings and answers
// with %globaltimer: the GPU reading lies inside that host window. The best
// of several tries is kept; the timer's own step is added to the
// uncertainty. Fails with exit code 3 when the device cannot be used.
// The peer must be destroyed before the device is reset; it synchronises its
// stream first.
Result<std::unique_ptr<SwitchProbePeer>> createCudaSwitchProbePeer(int ordinal);

}  // namespace vksim
