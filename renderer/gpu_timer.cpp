#include "renderer/gpu_timer.h"

#include <array>

#include "renderer/vk_check.h"

namespace vksim {
namespace {
constexpr uint32_t kQueriesPerSlot = 2;  // begin, end

uint64_t maskOfBits(uint32_t bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}
}  // namespace

GpuTimer createGpuTimer(const Device& device, uint32_t slotCount) {
  GpuTimer timer;
  if (device.timestampValidBits == 0) return timer;  // the queue family writes no timestamps
  timer.validMask = maskOfBits(device.timestampValidBits);
  timer.nanosecondsPerTick = device.timestampPeriod;
  timer.hostReset = device.hostQueryReset;
  timer.calibrated = device.calibratedTimestamps;
  VkQueryPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  poolInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
  poolInfo.queryCount = kQueriesPerSlot;
  timer.pools.resize(slotCount, VK_NULL_HANDLE);
  timer.written.assign(slotCount, false);
  for (VkQueryPool& pool : timer.pools) {
    VK_CHECK(vkCreateQueryPool(device.device, &poolInfo, nullptr, &pool));
    // Queries start in an undefined state and must be reset before their
    // first use (VUID-vkCmdWriteTimestamp-None-00830); a host reset here keeps
    // the invariant that every pool is reset whenever its slot is not in use.
    if (timer.hostReset) vkResetQueryPool(device.device, pool, 0, kQueriesPerSlot);
  }
  return timer;
}

void destroyGpuTimer(const Device& device, GpuTimer& timer) {
  for (VkQueryPool pool : timer.pools)
    if (pool != VK_NULL_HANDLE) vkDestroyQueryPool(device.device, pool, nullptr);
  timer = GpuTimer{};
}

bool gpuTimerSupported(const GpuTimer& timer) {
  return !timer.pools.empty();
}

void beginGpuTimer(const Device& device, GpuTimer& timer, uint32_t slot, VkCommandBuffer commandBuffer) {
  if (!gpuTimerSupported(timer)) return;
  VkQueryPool pool = timer.pools[slot];
  // A query must be reset before it is written again. From the host this is
  // valid only once no submitted command still uses the query
  // (VUID-vkResetQueryPool-firstQuery-02741): the caller has seen this slot's
  // fence signalled. Without hostQueryReset the reset is a command, which must
  // come outside a render pass (VUID-vkCmdResetQueryPool-renderpass).
  if (timer.hostReset)
    vkResetQueryPool(device.device, pool, 0, kQueriesPerSlot);
  else
    vkCmdResetQueryPool(commandBuffer, pool, 0, kQueriesPerSlot);
  vkCmdWriteTimestamp(commandBuffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 0);
  timer.written[slot] = true;
}

void endGpuTimer(const GpuTimer& timer, uint32_t slot, VkCommandBuffer commandBuffer) {
  if (!gpuTimerSupported(timer)) return;
  // BOTTOM_OF_PIPE: written once every earlier command in submission order
  // has completed all its stages, so the span covers the whole render.
  vkCmdWriteTimestamp(commandBuffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timer.pools[slot], 1);
}

std::optional<GpuTicks> readGpuTimer(const Device& device, GpuTimer& timer, uint32_t slot) {
  if (!gpuTimerSupported(timer) || !timer.written[slot]) return std::nullopt;
  // Each query as a pair (value, availability), 64-bit, without WAIT: a frame
  // never stalls on its timers. VK_NOT_READY is the expected answer when a
  // result is not available yet; the availability words say which.
  std::array<uint64_t, 2 * kQueriesPerSlot> values{};
  const VkResult result = vkGetQueryPoolResults(
      device.device, timer.pools[slot], 0, kQueriesPerSlot, sizeof(values), values.data(),
      2 * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  if (result != VK_SUCCESS && result != VK_NOT_READY)
    failVulkanCall("vkGetQueryPoolResults", result, __FILE__, __LINE__);
  if (values[1] == 0 || values[3] == 0) return std::nullopt;
  timer.written[slot] = false;
  // Bits above timestampValidBits are undefined (spec: "Timestamps").
  return GpuTicks{values[0] & timer.validMask, values[2] & timer.validMask};
}

double gpuTicksToNanoseconds(const GpuTimer& timer, uint64_t beginTicks, uint64_t endTicks) {
  // Unsigned subtraction within the valid bits also covers a counter that
  // wrapped between the two timestamps.
  return double((endTicks - beginTicks) & timer.validMask) * timer.nanosecondsPerTick;
}

std::optional<GpuClockCalibration> calibrateGpuClock(const Device& device, const GpuTimer& timer) {
  if (!timer.calibrated) return std::nullopt;
  std::array<VkCalibratedTimestampInfoEXT, 2> infos{};
  infos[0] = {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_DEVICE_EXT};
  infos[1] = {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT};
  std::array<uint64_t, 2> timestamps{};
  uint64_t maxDeviation = 0;
  if (vkGetCalibratedTimestampsEXT(device.device, uint32_t(infos.size()), infos.data(), timestamps.data(),
                                   &maxDeviation) != VK_SUCCESS)
    return std::nullopt;
  // CLOCK_MONOTONIC in nanoseconds, the clock and unit of libstdc++'s
  // steady_clock, so hostNs compares directly with steady_clock::now().
  return GpuClockCalibration{timestamps[0] & timer.validMask, int64_t(timestamps[1]), maxDeviation};
}

const std::optional<GpuClockCalibration>& currentGpuClockCalibration(CachedGpuClockCalibration& cache,
                                                                    const Device& device, const GpuTimer& timer,
                                                                    int64_t nowNs) {
  if (timer.calibrated &&
      (!cache.calibration || nowNs - cache.calibratedAtNs > CachedGpuClockCalibration::kRecalibrateAfterNs)) {
    cache.calibration = calibrateGpuClock(device, timer);
    cache.calibratedAtNs = nowNs;
  }
  return cache.calibration;
}

int64_t gpuTicksToHostNanoseconds(const GpuTimer& timer, const GpuClockCalibration& calibration,
                                  uint64_t ticks) {
  // Signed distance within the valid bits: the timestamp may lie before or
  // after the calibration point.
  uint64_t forward = (ticks - calibration.deviceTicks) & timer.validMask;
  double deltaTicks = double(forward);
  if (forward > timer.validMask / 2)
    deltaTicks = -double((calibration.deviceTicks - ticks) & timer.validMask);
  return calibration.hostNs + int64_t(deltaTicks * timer.nanosecondsPerTick);
}

}  // namespace vksim
