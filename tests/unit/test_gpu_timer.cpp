// The GPU timer's tick arithmetic: valid-bits wrap-around, period, and the
// placement of device timestamps on the host clock. No device needed.
#include <gtest/gtest.h>

#include "renderer/gpu_timer.h"

namespace vksim {
namespace {

GpuTimer timerWithBits(uint64_t mask, double period) {
  GpuTimer timer;
  timer.validMask = mask;
  timer.nanosecondsPerTick = period;
  return timer;
}

TEST(GpuTimer, DurationAppliesThePeriod) {
  const GpuTimer timer = timerWithBits(~uint64_t(0), 1.5);
  EXPECT_DOUBLE_EQ(gpuTicksToNanoseconds(timer, 1000, 3000), 3000.0);
}

TEST(GpuTimer, DurationSurvivesACounterThatWrappedWithinItsValidBits) {
  const GpuTimer timer = timerWithBits((uint64_t(1) << 36) - 1, 1.0);  // 36 valid bits
  const uint64_t begin = (uint64_t(1) << 36) - 100;
  EXPECT_DOUBLE_EQ(gpuTicksToNanoseconds(timer, begin, 50), 150.0);
}

TEST(GpuTimer, HostPlacementWorksBeforeAndAfterTheCalibrationPoint) {
  const GpuTimer timer = timerWithBits((uint64_t(1) << 40) - 1, 2.0);
  const GpuClockCalibration calibration{10'000, 5'000'000, 0};
  EXPECT_EQ(gpuTicksToHostNanoseconds(timer, calibration, 10'500), 5'001'000);
  EXPECT_EQ(gpuTicksToHostNanoseconds(timer, calibration, 9'000), 4'998'000);
  // Across a wrap of the valid bits, still a small signed distance.
  const GpuClockCalibration nearTop{(uint64_t(1) << 40) - 10, 1'000'000, 0};
  EXPECT_EQ(gpuTicksToHostNanoseconds(timer, nearTop, 5), 1'000'030);
}

TEST(GpuTimer, AnEmptyTimerIsUnsupported) {
  EXPECT_FALSE(gpuTimerSupported(GpuTimer{}));
}

}  // namespace
}  // namespace vksim
