#include "app/capture/switch_probe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

#include "renderer/frame_sync.h"
#include "renderer/marked_submission.h"
#include "lab/cuda/cuda_switch_probe.h"
#include "lab/opencl/opencl_switch_probe.h"

namespace vksim {
namespace {

struct HostInterval {
  int64_t startNs = 0, endNs = 0;  // on the host clock
};

// Launches each peer of `order` in turn; each is polled to completion before
// the next launches. A peer's marks are read after the next peer's launch when
// that is another peer (so that reading stays out of the gap), before it when
// it is the same one (its marks would be overwritten).
Result<std::vector<PeerInterval>> playSequence(const std::vector<SwitchProbePeer*>& order,
                                               const SwitchProbeOptions& options) {
  std::vector<PeerInterval> intervals(order.size());
  const auto read = [&](size_t index) -> Result<> {
    if (!order[index]->readMarked(&intervals[index]))
      return fail("the " + order[index]->apiName() + " side's marks could not be read", kExitRuntime);
    return {};
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const bool samePeer = i > 0 && order[i] == order[i - 1];
    if (samePeer)
      if (Result<> done = read(i - 1); !done) return tl::unexpected(done.error());
    if (!order[i]->launchMarked())
      return fail("the " + order[i]->apiName() + " side's marked work could not be launched", kExitRuntime);
    if (i > 0 && !samePeer)
      if (Result<> done = read(i - 1); !done) return tl::unexpected(done.error());
    const int64_t waitStart = options.hostNow();
    while (!order[i]->isMarkedDone())
      if (options.hostNow() - waitStart > int64_t(options.timeoutNs))
        return fail(fmt::format("timeout: the {} side's marked work did not finish within {} ms",
                                order[i]->apiName(), options.timeoutNs / 1'000'000),
                    kExitRuntime);
  }
  if (!order.empty())
    if (Result<> done = read(order.size() - 1); !done) return tl::unexpected(done.error());
  return intervals;
}

HostInterval onHostClock(const PeerInterval& interval, int64_t offsetNs) {
  return {int64_t(interval.startNs) + offsetNs, int64_t(interval.endNs) + offsetNs};
}

// gaps[k] = start of k+1 minus end of k, µs, for the pairs that `keep` selects.
template <typename Keep>
std::vector<double> gapsOf(const std::vector<HostInterval>& intervals, Keep&& keep) {
  std::vector<double> gaps;
  for (size_t k = 0; k + 1 < intervals.size(); ++k)
    if (keep(k)) gaps.push_back(double(intervals[k + 1].startNs - intervals[k].endNs) * 1e-3);
  return gaps;
}

double percentile(const std::vector<double>& sorted, double fraction) {
  const size_t rank = size_t(std::ceil(fraction * double(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

// The Vulkan peer: renderer/marked_submission.h behind the peer interface.
class VulkanSwitchProbePeer final : public SwitchProbePeer {
 public:
  VulkanSwitchProbePeer(const Device& device, MarkedSubmission marked) : device_(device), marked_(marked) {}
  ~VulkanSwitchProbePeer() override {
    // The fence of a submission still outstanding is waited for (bounded)
    // before its command buffer is freed.
    if (marked_.outstanding) waitForFenceOrLoss(device_, marked_.fence, kDefaultWaitTimeoutNs);
    destroyMarkedSubmission(device_, marked_);
  }

  std::string apiName() const override { return "vulkan"; }
  bool launchMarked() override { return submitMarked(device_, marked_); }
  bool isMarkedDone() override { return isMarkedSubmissionDone(device_, marked_); }

  bool readMarked(PeerInterval* interval) override {
    const std::optional<GpuTicks> ticks = readMarkedSubmission(device_, marked_);
    if (!ticks) return false;
    interval->startNs = toNanoseconds(ticks->begin);
    interval->endNs = interval->startNs + uint64_t(gpuTicksToNanoseconds(marked_.timer, ticks->begin, ticks->end));
    return true;
  }

  Result<ClockTie> tieClock(uint64_t timeoutNs) override {
    (void)timeoutNs;  // vkGetCalibratedTimestampsEXT does not wait
    if (!marked_.timer.calibrated)
      return fail("the Vulkan device '" + device_.info.name +
                      "' lacks VK_EXT_calibrated_timestamps with CLOCK_MONOTONIC, so its clock cannot be tied",
                  kExitEnvironment);
    std::optional<GpuClockCalibration> best;
    for (int attempt = 0; attempt < 8; ++attempt) {
      const std::optional<GpuClockCalibration> sample = calibrateGpuClock(device_, marked_.timer);
      if (sample && (!best || sample->maxDeviationNs < best->maxDeviationNs)) best = sample;
    }
    if (!best) return fail("vkGetCalibratedTimestampsEXT failed", kExitRuntime);
    return ClockTie{best->hostNs - int64_t(toNanoseconds(best->deviceTicks)), best->maxDeviationNs};
  }

 private:
  // Ticks to nanoseconds on the device's clock; exact when a tick is 1 ns (as
  // on NVIDIA), long double otherwise (a double would lose nanoseconds on
  // tick counts past 2^53).
  uint64_t toNanoseconds(uint64_t ticks) const {
    if (marked_.timer.nanosecondsPerTick == 1.0) return ticks;
    return uint64_t(static_cast<long double>(ticks) * marked_.timer.nanosecondsPerTick);
  }

  const Device& device_;
  MarkedSubmission marked_;
};

}  // namespace

GapStats summarizeGaps(std::vector<double> gapsUs) {
  GapStats stats;
  if (gapsUs.empty()) return stats;
  std::sort(gapsUs.begin(), gapsUs.end());
  stats.samples = uint32_t(gapsUs.size());
  stats.medianUs = percentile(gapsUs, 0.5);
  stats.p10Us = percentile(gapsUs, 0.1);
  stats.p90Us = percentile(gapsUs, 0.9);
  return stats;
}

Result<SwitchCost> measureSwitchCost(SwitchProbePeer& first, SwitchProbePeer& second,
                                     const SwitchProbeOptions& options) {
  Result<ClockTie> firstBefore = first.tieClock(options.timeoutNs);
  if (!firstBefore) return tl::unexpected(firstBefore.error());
  Result<ClockTie> secondBefore = second.tieClock(options.timeoutNs);
  if (!secondBefore) return tl::unexpected(secondBefore.error());

  std::vector<SwitchProbePeer*> warmup, crossing, firstAlone, secondAlone;
  for (uint32_t r = 0; r < options.warmupRounds; ++r) warmup.insert(warmup.end(), {&first, &second});
  for (uint32_t r = 0; r < options.rounds; ++r) crossing.insert(crossing.end(), {&first, &second});
  crossing.push_back(&first);  // rounds gaps in each direction
  firstAlone.assign(options.rounds + 1, &first);
  secondAlone.assign(options.rounds + 1, &second);
  Result<std::vector<PeerInterval>> played = playSequence(warmup, options);
  if (!played) return tl::unexpected(played.error());
  Result<std::vector<PeerInterval>> crossed = playSequence(crossing, options);
  if (!crossed) return tl::unexpected(crossed.error());
  Result<std::vector<PeerInterval>> firstOnly = playSequence(firstAlone, options);
  if (!firstOnly) return tl::unexpected(firstOnly.error());
  Result<std::vector<PeerInterval>> secondOnly = playSequence(secondAlone, options);
  if (!secondOnly) return tl::unexpected(secondOnly.error());

  Result<ClockTie> firstAfter = first.tieClock(options.timeoutNs);
  if (!firstAfter) return tl::unexpected(firstAfter.error());
  Result<ClockTie> secondAfter = second.tieClock(options.timeoutNs);
  if (!secondAfter) return tl::unexpected(secondAfter.error());

  // Each peer's offset: the mean of its two ties (midpoint in time of the
  // ping-pong); their difference before and after is the drift.
  const int64_t firstOffset = firstBefore->offsetNs + (firstAfter->offsetNs - firstBefore->offsetNs) / 2;
  const int64_t secondOffset = secondBefore->offsetNs + (secondAfter->offsetNs - secondBefore->offsetNs) / 2;
  const uint64_t uncertaintyNs = std::max(firstBefore->uncertaintyNs, firstAfter->uncertaintyNs) +
                                 std::max(secondBefore->uncertaintyNs, secondAfter->uncertaintyNs);

  std::vector<HostInterval> crossIntervals, firstIntervals, secondIntervals;
  for (size_t k = 0; k < crossed->size(); ++k)
    crossIntervals.push_back(onHostClock((*crossed)[k], k % 2 == 0 ? firstOffset : secondOffset));
  for (const PeerInterval& interval : *firstOnly) firstIntervals.push_back(onHostClock(interval, firstOffset));
  for (const PeerInterval& interval : *secondOnly) secondIntervals.push_back(onHostClock(interval, secondOffset));

  SwitchCost cost;
  cost.first = first.apiName();
  cost.second = second.apiName();
  const std::vector<double> toSecond = gapsOf(crossIntervals, [](size_t k) { return k % 2 == 0; });
  const std::vector<double> toFirst = gapsOf(crossIntervals, [](size_t k) { return k % 2 == 1; });
  cost.firstToSecond = summarizeGaps(toSecond);
  cost.secondToFirst = summarizeGaps(toFirst);
  cost.firstToFirst = summarizeGaps(gapsOf(firstIntervals, [](size_t) { return true; }));
  cost.secondToSecond = summarizeGaps(gapsOf(secondIntervals, [](size_t) { return true; }));
  cost.pairUs = cost.firstToSecond.medianUs + cost.secondToFirst.medianUs;
  cost.clockUncertaintyUs = double(uncertaintyNs) * 1e-3;
  cost.clockDriftUs = double((secondAfter->offsetNs - firstAfter->offsetNs) -
                             (secondBefore->offsetNs - firstBefore->offsetNs)) *
                      1e-3;
  cost.clockOffsetUs = double(secondOffset - firstOffset) * 1e-3;
  for (const std::vector<double>* gaps : {&toSecond, &toFirst})
    for (double gap : *gaps)
      if (gap < -cost.clockUncertaintyUs) ++cost.impossibleGaps;
  cost.assumptionsHeld = cost.impossibleGaps == 0 && std::fabs(cost.clockDriftUs) <= cost.clockUncertaintyUs;
  return cost;
}

Result<std::unique_ptr<SwitchProbePeer>> createVulkanSwitchProbePeer(const Device& device) {
  std::optional<MarkedSubmission> marked = createMarkedSubmission(device);
  if (!marked)
    return fail("the Vulkan device '" + device.info.name + "' has no timestamps on its queue", kExitEnvironment);
  return std::unique_ptr<SwitchProbePeer>(std::make_unique<VulkanSwitchProbePeer>(device, *marked));
}

Result<SwitchCost> probeVulkanCudaSwitch(const Device& device, int cudaOrdinal, const SwitchProbeOptions& options) {
  Result<std::unique_ptr<SwitchProbePeer>> vulkan = createVulkanSwitchProbePeer(device);
  if (!vulkan) return tl::unexpected(vulkan.error());
  Result<std::unique_ptr<SwitchProbePeer>> cuda = createCudaSwitchProbePeer(cudaOrdinal);
  if (!cuda) return tl::unexpected(cuda.error());
  return measureSwitchCost(**vulkan, **cuda, options);
}

Result<SwitchCost> probeVulkanOpenClSwitch(const Device& device, const OpenClDeviceInfo& opencl,
                                           const SwitchProbeOptions& options) {
  Result<std::unique_ptr<SwitchProbePeer>> vulkan = createVulkanSwitchProbePeer(device);
  if (!vulkan) return tl::unexpected(vulkan.error());
  Result<std::unique_ptr<SwitchProbePeer>> peer = createOpenClSwitchProbePeer(opencl);
  if (!peer) return tl::unexpected(peer.error());
  return measureSwitchCost(**vulkan, **peer, options);
}

nlohmann::ordered_json switchCostJson(const SwitchCost& cost) {
  const auto gaps = [](const GapStats& stats) {
    return nlohmann::ordered_json{{"medianUs", stats.medianUs}, {"p10Us", stats.p10Us}, {"p90Us", stats.p90Us},
                                  {"samples", stats.samples}};
  };
  nlohmann::ordered_json json;
  json["first"] = cost.first;
  json["second"] = cost.second;
  json[cost.first + "To" + char(std::toupper(cost.second[0])) + cost.second.substr(1)] = gaps(cost.firstToSecond);
  json[cost.second + "To" + char(std::toupper(cost.first[0])) + cost.first.substr(1)] = gaps(cost.secondToFirst);
  json[cost.first + "Alone"] = gaps(cost.firstToFirst);
  json[cost.second + "Alone"] = gaps(cost.secondToSecond);
  json["pairUs"] = cost.pairUs;
  json["clockUncertaintyUs"] = cost.clockUncertaintyUs;
  json["clockDriftUs"] = cost.clockDriftUs;
  json["clockOffsetUs"] = cost.clockOffsetUs;
  json["impossibleGaps"] = cost.impossibleGaps;
  json["assumptionsHeld"] = cost.assumptionsHeld;
  return json;
}

std::string formatSwitchCost(const SwitchCost& cost) {
  return fmt::format(
      "switch probe: {0}->{1} {2:.1f} us, {1}->{0} {3:.1f} us (pair {4:.1f} us); same-side gaps {0} {5:.1f} us, "
      "{1} {6:.1f} us (medians of {7}); clocks: offset {8:.2f} us, uncertainty {9:.2f} us, drift {10:.2f} us, "
      "{11} impossible gap(s): {12}",
      cost.first, cost.second, cost.firstToSecond.medianUs, cost.secondToFirst.medianUs, cost.pairUs,
      cost.firstToFirst.medianUs, cost.secondToSecond.medianUs, cost.firstToSecond.samples, cost.clockOffsetUs,
      cost.clockUncertaintyUs, cost.clockDriftUs, cost.impossibleGaps,
      cost.assumptionsHeld ? "assumptions held" : "ASSUMPTIONS BROKEN, read the gaps with care");
}

}  // namespace vksim
