// The switch probe's Vulkan side on the CI device (lavapipe), with the
// validation layer and its synchronization validation on: two marked
// submissions play the ping-pong on one queue. Both read the one device
// clock, so a clock tie of 0 is exact there whether or not the driver offers
// calibrated timestamps; the probe's own checks must then pass (no start
// before the previous end), and the layer must stay silent about the
// recording, the host query resets and the fences.
#include <gtest/gtest.h>

#include "app/capture/switch_probe.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

// A peer that answers tieClock with "the same clock as the host": right for
// two peers on one device, which is all this test compares.
class SameClockPeer final : public SwitchProbePeer {
 public:
  explicit SameClockPeer(SwitchProbePeer& peer) : peer_(peer) {}
  std::string apiName() const override { return peer_.apiName(); }
  bool launchMarked() override { return peer_.launchMarked(); }
  bool isMarkedDone() override { return peer_.isMarkedDone(); }
  bool readMarked(PeerInterval* interval) override { return peer_.readMarked(interval); }
  Result<ClockTie> tieClock(uint64_t) override { return ClockTie{0, 0}; }

 private:
  SwitchProbePeer& peer_;
};

TEST(SwitchProbeVulkan, TwoMarkedSubmissionsPlayThePingPongUnderValidation) {
  ValidationWatch watch;
  InstanceOptions options;
  options.validation = options.synchronizationValidation = true;
  Instance instance = createInstance(options);
  const std::vector<PhysicalDeviceInfo> devices = listPhysicalDevices(instance);
  ASSERT_FALSE(devices.empty());
  Device device = createDevice(instance, devices.front(), {});
  {
    Result<std::unique_ptr<SwitchProbePeer>> first = createVulkanSwitchProbePeer(device);
    Result<std::unique_ptr<SwitchProbePeer>> second = createVulkanSwitchProbePeer(device);
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_TRUE(second) << second.error().message;
    SameClockPeer a(**first), b(**second);
    SwitchProbeOptions probeOptions;
    probeOptions.rounds = 20;
    probeOptions.warmupRounds = 2;
    const Result<SwitchCost> cost = measureSwitchCost(a, b, probeOptions);
    ASSERT_TRUE(cost) << cost.error().message;
    EXPECT_EQ(cost->first, "vulkan");
    EXPECT_EQ(cost->firstToSecond.samples, 20u);
    EXPECT_EQ(cost->secondToFirst.samples, 20u);
    EXPECT_EQ(cost->firstToFirst.samples, 20u);
    EXPECT_EQ(cost->impossibleGaps, 0u);
    EXPECT_TRUE(cost->assumptionsHeld);
    // One queue runs one submission after another: no gap below zero.
    EXPECT_GE(cost->firstToFirst.p10Us, 0.0);
    EXPECT_GE(cost->secondToSecond.p10Us, 0.0);
    EXPECT_GE(cost->firstToSecond.p10Us, 0.0);

    // The real tie: through VK_EXT_calibrated_timestamps where the device
    // has it; otherwise an environment error that says so.
    const Result<ClockTie> tie = (*first)->tieClock(kDefaultWaitTimeoutNs);
    if (device.calibratedTimestamps) {
      EXPECT_TRUE(tie) << tie.error().message;
    } else {
      ASSERT_FALSE(tie);
      EXPECT_EQ(tie.error().exitCode, kExitEnvironment);
      EXPECT_NE(tie.error().message.find("VK_EXT_calibrated_timestamps"), std::string::npos);
    }
  }
  vkDeviceWaitIdle(device.device);
  destroyDevice(device);
  destroyInstance(instance);
  EXPECT_EQ(watch.newWarnings(), 0u) << "validation warnings (printed above)";
  EXPECT_EQ(watch.newErrors(), 0u) << "validation errors (printed above)";
}

}  // namespace
}  // namespace vksim
