#include "renderer/gpu_timer.h"

#include <array>
#include <cstring>

#include "renderer/vk_check.h"

namespace vksim {
namespace {
constexpr uint32_t kQueriesPerSlot = 2;  // begin, end
// Each query as a pair (value, availability) of 64-bit words.
constexpr VkDeviceSize kResultStride = 2 * sizeof(uint64_t);
constexpr VkDeviceSize kResultBytes = kQueriesPerSlot * kResultStride;

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
  timer.copiesResults = device.info.driverId == VK_DRIVER_ID_MESA_LLVMPIPE;  // see the header
  VkQueryPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  poolInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
  poolInfo.queryCount = kQueriesPerSlot;
  timer.pools.resize(slotCount, VK_NULL_HANDLE);
  timer.written.assign(slotCount, false);
  for (uint32_t slot = 0; timer.copiesResults && slot < slotCount; ++slot) {
    // Coherent: the GPU's copy needs no invalidate before the host reads it,
    // the host's clearing no flush before the next submission.
    timer.results.push_back(createGpuBuffer(device, kResultBytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
  }
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
  for (GpuBuffer& results : timer.results) destroyGpuBuffer(device, results);
  timer = GpuTimer{};
}

bool gpuTimerSupported(const GpuTimer& timer) {
  return !timer.pools.empty();
}

void beginGpuTimer(const Device& device, GpuTimer& timer, uint32_t slot, VkCommandBuffer commandBuffer) {
  if (!gpuTimerSupported(timer)) return;
  VkQueryPool pool = timer.pools[slot];
  // Availability 0 until this recording's copy lands: a read before the
  // slot's fence has signalled finds nothing rather than the last frame's
  // results. The host's write is visible to the device's copy through the
  // submission (host write ordering), and the slot's fence has signalled, so
  // no copy of the last recording is still writing.
  if (timer.copiesResults) std::memset(timer.results[slot].mapped, 0, kResultBytes);
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
  if (!timer.copiesResults) return;
  // WAIT: the copy (a transfer command) waits on the GPU until both queries
  // are available, so the host finds them complete once the fence has
  // signalled. The availability words stay for readGpuTimer to check.
  const GpuBuffer& results = timer.results[slot];
  vkCmdCopyQueryPoolResults(commandBuffer, timer.pools[slot], 0, kQueriesPerSlot, results.buffer, 0, kResultStride,
                            VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT | VK_QUERY_RESULT_WAIT_BIT);
  // The synchronization chapter's "Host access to device memory".
  barrierTransferToHost(commandBuffer, results.buffer);
}

std::optional<GpuTicks> readGpuTimer(const Device& device, GpuTimer& timer, uint32_t slot) {
  if (!gpuTimerSupported(timer) || !timer.written[slot]) return std::nullopt;
  // Each query as a pair (value, availability), 64-bit. Without WAIT a frame
  // never stalls on its timers: VK_NOT_READY is the expected answer when a
  // result is not available yet, and the availability words say which.
  std::array<uint64_t, 2 * kQueriesPerSlot> values{};
  if (timer.copiesResults) {
    std::memcpy(values.data(), timer.results[slot].mapped, sizeof(values));
  } else {
    const VkResult result =
        vkGetQueryPoolResults(device.device, timer.pools[slot], 0, kQueriesPerSlot, sizeof(values), values.data(),
                              kResultStride, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
    if (result != VK_SUCCESS && result != VK_NOT_READY)
      failVulkanCall("vkGetQueryPoolResults", result, __FILE__, __LINE__);
  }
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
