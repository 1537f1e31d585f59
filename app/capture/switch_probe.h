// The GPU context-switch probe: how long the GPU takes to turn from the
// Vulkan device's context to the simulation API's context and back, measured
// once per bench run, next to each configuration's unexplained time
// (docs/benchmarks.md, "A frame's budget").
//
// Method: a ping-pong between two peers (lab/switch_probe.h) with no
// semaphore at all. The host launches one side's marked work, polls until it
// is done, launches the other side's, and so on; each piece records its own
// start and end on its API's GPU clock. With both clocks tied to the host
// clock, a cross gap (one side's end to the other side's start) holds the
// host's turnaround (see the poll, launch) and the context switch; a same-side
// gap (the same ping-pong within one peer) holds the turnaround alone.
//
// What it assumes, and how it checks each:
//  - each clock tie is right within its uncertainty: the host order makes every
//    start come after the previous end, so a cross gap below minus the summed
//    uncertainty refutes the ties (counted in impossibleGaps);
//  - the clocks do not drift apart during the probe: the ties are taken
//    before and after, and their difference is reported (clockDriftUs);
//  - the marked work is too short to be preempted: it is a few timer reads.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>

#include "base/config.h"
#include "base/host_clock.h"
#include "base/result.h"
#include "renderer/vulkan_context.h"
#include "sim/opencl/opencl_simulation.h"
#include "lab/switch_probe.h"

namespace vksim {

struct SwitchProbeOptions {
  // Cross gaps per direction, and same-side gaps per peer. 200 gaps of
  // ~0.2 ms take well under a second; medians settle after a few dozen.
  uint32_t rounds = 200;
  // Ping-pong rounds run first and thrown away: first launches pay for
  // module loading and clocks ramping up.
  uint32_t warmupRounds = 20;
  uint64_t timeoutNs = kDefaultWaitTimeoutNs;  // per wait for one piece of work, and per clock tie
  std::function<int64_t()> hostNow = hostNowNs;  // the host clock; tests inject one
};

// Median, 10th and 90th percentile (nearest rank) of a set of gaps, µs.
struct GapStats {
  uint32_t samples = 0;
  double medianUs = 0.0, p10Us = 0.0, p90Us = 0.0;
};
GapStats summarizeGaps(std::vector<double> gapsUs);

struct SwitchCost {
  std::string first, second;              // the peers' apiName(): "vulkan", "cuda"
  GapStats firstToSecond, secondToFirst;  // cross gaps: turnaround + context switch
  GapStats firstToFirst, secondToSecond;  // same-side gaps: turnaround alone
  double pairUs = 0.0;  // firstToSecond.medianUs + secondToFirst.medianUs: a frame's two switches
  // Each peer's clock tie uncertainty, added: how far any cross gap may be off.
  double clockUncertaintyUs = 0.0;
  // How much (second's offset - first's offset) moved between the ties taken
  // before and after the ping-pong.
  double clockDriftUs = 0.0;
  // second's offset - first's offset: about 0 when both APIs read one timer.
  double clockOffsetUs = 0.0;
  uint32_t impossibleGaps = 0;  // cross gaps below -clockUncertaintyUs
  bool assumptionsHeld = false;  // impossibleGaps == 0 and |drift| <= uncertainty
};

// Plays the ping-pong between `first` and `second` (SwitchProbeOptions).
// Blocks; every wait is bounded by options.timeoutNs. An Error says which
// wait timed out or which call failed (exit code 4), or that a clock cannot be
// tied (the peer's error, exit code 3). The peers must have no other work
// outstanding on the GPU, or the gaps measure that work.
Result<SwitchCost> measureSwitchCost(SwitchProbePeer& first, SwitchProbePeer& second,
                                     const SwitchProbeOptions& options = {});

// The Vulkan peer: a marked submission (renderer/marked_submission.h) on
// device.queue, its clock tied through VK_EXT_calibrated_timestamps
// (device domain against CLOCK_MONOTONIC, the host clock; the uncertainty is
// the driver's maxDeviation of the best of several samples). Fails with exit
// code 3 when the queue has no timestamps. The device must outlive the peer.
Result<std::unique_ptr<SwitchProbePeer>> createVulkanSwitchProbePeer(const Device& device);

// The probe between the Vulkan device and CUDA device `cudaOrdinal`:
// measureSwitchCost(vulkan, cuda). Nothing else may be outstanding on either.
Result<SwitchCost> probeVulkanCudaSwitch(const Device& device, int cudaOrdinal,
                                         const SwitchProbeOptions& options = {});

// The probe between the Vulkan device and OpenCL device `opencl`
// (lab/opencl/opencl_switch_probe.h): measureSwitchCost(vulkan, opencl).
// Nothing else may be outstanding on either.
Result<SwitchCost> probeVulkanOpenClSwitch(const Device& device, const OpenClDeviceInfo& opencl,
                                           const SwitchProbeOptions& options = {});

// The bench JSON's "switchProbe" object: every figure above, µs.
nlohmann::ordered_json switchCostJson(const SwitchCost& cost);
// One line for the bench's output: both directions, the pair, the baseline
// and the clock check.
std::string formatSwitchCost(const SwitchCost& cost);

}  // namespace vksim
