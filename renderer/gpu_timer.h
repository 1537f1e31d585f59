// GPU timestamps around the frame's render commands: one query pool per frame
// in flight (two queries: begin, end), reset from the host when the device has
// hostQueryReset, read back without ever waiting, and placed on the host's
// clock (std::chrono::steady_clock, CLOCK_MONOTONIC) through
// VK_EXT_calibrated_timestamps when the device offers it.
//
// How the results reach the host depends on one driver's behaviour. Most
// answer vkGetQueryPoolResults (no WAIT bit) at once. lavapipe waits inside
// that call for its whole device to be idle, so a frame loop whose queue is
// stuck on a semaphore nobody signals would never reach its own timeout.
// There the command buffer copies the results into a small host-visible
// buffer of the slot (vkCmdCopyQueryPoolResults) and the host reads that
// memory once the slot's fence has signalled: no Vulkan call. The copy adds
// to every frame's GPU tail (measured on the H200:
// docs/results/2026-12-02-render-timer-ab.md), so drivers that do not block keep
// the plain read.
#pragma once
#include <volk.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "renderer/gpu_buffer.h"
#include "renderer/vulkan_context.h"

namespace vksim {

struct GpuTimer {
  std::vector<VkQueryPool> pools;   // one per frame slot, 2 timestamp queries each
  std::vector<GpuBuffer> results;   // copiesResults: per slot, (value, availability) of each query
  std::vector<bool> written;        // the slot's timestamps were recorded since its last reset
  uint64_t validMask = 0;           // timestampValidBits as a mask: a timestamp's meaningful bits
  double nanosecondsPerTick = 0.0;  // VkPhysicalDeviceLimits::timestampPeriod
  bool hostReset = false;           // vkResetQueryPool; otherwise vkCmdResetQueryPool in the command buffer
  bool calibrated = false;          // calibrateGpuClock works (VK_EXT_calibrated_timestamps)
  bool copiesResults = false;       // results reach the host through `results` (lavapipe), not vkGetQueryPoolResults
};

// One pool per slot (slotCount = frames in flight). A device whose queue
// family has timestampValidBits = 0 gets an empty timer: every call below is
// then a no-op and readGpuTimer returns nothing.
GpuTimer createGpuTimer(const Device& device, uint32_t slotCount);
// After the device has finished every command buffer that wrote to it.
void destroyGpuTimer(const Device& device, GpuTimer& timer);
bool gpuTimerSupported(const GpuTimer& timer);

// Starts the slot's timed region at the beginning of commandBuffer (outside a
// render pass): clears the slot's copied results (copiesResults), resets the slot's queries
// (from the host, or by a command when there is no hostQueryReset) and
// records the begin timestamp at TOP_OF_PIPE. The slot's previous results
// must have been read, or given up: its fence has signalled (a host reset of
// a query still in use is invalid, and the host writes the results buffer).
void beginGpuTimer(const Device& device, GpuTimer& timer, uint32_t slot, VkCommandBuffer commandBuffer);
// Ends the slot's timed region (outside a render pass): the end timestamp at
// BOTTOM_OF_PIPE, once every earlier command of the command buffer has
// completed; with copiesResults, then the copy of both results into the
// slot's host-visible buffer, made visible to the host.
void endGpuTimer(const GpuTimer& timer, uint32_t slot, VkCommandBuffer commandBuffer);

// Raw timestamps of one slot, in device ticks (already masked).
struct GpuTicks {
  uint64_t begin = 0, end = 0;
};

// The slot's two timestamps when both are available; never waits (no
// VK_QUERY_RESULT_WAIT_BIT: availability is asked for and checked), and with
// copiesResults makes no Vulkan call at all. Call it once the slot's
// submission is known complete (its fence seen signalled) to get a result;
// earlier it returns nothing. A slot is read at most once per recording:
// afterwards it returns nothing until beginGpuTimer runs again.
std::optional<GpuTicks> readGpuTimer(const Device& device, GpuTimer& timer, uint32_t slot);

// Nanoseconds between two timestamps of the timer, wrap-around of the valid
// bits taken into account.
double gpuTicksToNanoseconds(const GpuTimer& timer, uint64_t beginTicks, uint64_t endTicks);

// A device timestamp and a CLOCK_MONOTONIC time sampled together
// (vkGetCalibratedTimestampsEXT). hostNs is on std::chrono::steady_clock's
// scale (nanoseconds since its epoch); maxDeviationNs is the driver's bound on
// how far apart the two samples may be.
struct GpuClockCalibration {
  uint64_t deviceTicks = 0;
  int64_t hostNs = 0;
  uint64_t maxDeviationNs = 0;
};

// Samples the pair; nothing when the timer is not calibrated or the call
// fails. Cheap (a few microseconds); resample every so often, since the two
// clocks drift apart by parts per million.
std::optional<GpuClockCalibration> calibrateGpuClock(const Device& device, const GpuTimer& timer);

// A calibration kept between calls and sampled again once it is older than
// kRecalibrateAfterNs: the clocks drift apart by parts per million, so one
// 100 ms old is off by well under a microsecond, while sampling for every
// timestamp would add a driver call (and its microseconds) to each.
struct CachedGpuClockCalibration {
  static constexpr int64_t kRecalibrateAfterNs = 100'000'000;
  std::optional<GpuClockCalibration> calibration;
  int64_t calibratedAtNs = 0;
};

// The cached calibration, sampled again first when there is none or it is
// too old at host time `nowNs` (steady_clock nanoseconds); none when the timer
// is not calibrated.
const std::optional<GpuClockCalibration>& currentGpuClockCalibration(CachedGpuClockCalibration& cache,
                                                                    const Device& device, const GpuTimer& timer,
                                                                    int64_t nowNs);

// A device timestamp on the host clock (steady_clock nanoseconds), through a
// calibration taken close to it in time.
int64_t gpuTicksToHostNanoseconds(const GpuTimer& timer, const GpuClockCalibration& calibration,
                                  uint64_t ticks);

}  // namespace vksim
