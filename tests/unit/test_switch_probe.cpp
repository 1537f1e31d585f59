// The switch probe's arithmetic (app/capture/switch_probe.h) on fake peers
// that share a fake GPU: each launch starts after the host's launch latency,
// plus the peer's switch-in cost when the GPU last ran the other peer, and
// each peer reports its times on a clock of its own. The host clock is
// injected, so every gap is known exactly.
#include <gtest/gtest.h>

#include <algorithm>

#include "app/capture/switch_probe.h"

namespace vksim {
namespace {

struct FakeGpu {
  int64_t nowNs = 7'000'000'000;  // the host clock; only differences count
  const void* lastContext = nullptr;
};

class FakePeer final : public SwitchProbePeer {
 public:
  struct Setup {
    const char* name;
    int64_t clockOffsetNs;  // host = peer clock + this
    int64_t launchLatencyNs, switchInNs, durationNs;
  };
  FakePeer(FakeGpu& gpu, Setup setup) : gpu_(gpu), setup_(setup) {}

  std::string apiName() const override { return setup_.name; }
  bool launchMarked() override {
    if (outstanding_) return false;
    const bool switching = gpu_.lastContext != nullptr && gpu_.lastContext != this;
    startNs_ = gpu_.nowNs + setup_.launchLatencyNs + (switching ? setup_.switchInNs : 0);
    endNs_ = startNs_ + setup_.durationNs;
    gpu_.lastContext = this;
    outstanding_ = true;
    return true;
  }
  bool isMarkedDone() override {
    if (!outstanding_) return true;
    if (hangs) return false;
    gpu_.nowNs = std::max(gpu_.nowNs, endNs_);  // the host saw it done at its end
    outstanding_ = false;
    return true;
  }
  bool readMarked(PeerInterval* interval) override {
    if (outstanding_) return false;
    interval->startNs = uint64_t(startNs_ - setup_.clockOffsetNs);
    interval->endNs = uint64_t(endNs_ - setup_.clockOffsetNs);
    return true;
  }
  Result<ClockTie> tieClock(uint64_t) override {
    const int64_t error = ties++ == 0 ? tieErrorBeforeNs : tieErrorAfterNs;
    return ClockTie{setup_.clockOffsetNs + error, 500};
  }

  bool hangs = false;
  int64_t tieErrorBeforeNs = 0, tieErrorAfterNs = 0;  // what the tie gets wrong
  int ties = 0;

 private:
  FakeGpu& gpu_;
  Setup setup_;
  bool outstanding_ = false;
  int64_t startNs_ = 0, endNs_ = 0;
};

SwitchProbeOptions optionsOn(FakeGpu& gpu) {
  SwitchProbeOptions options;
  options.rounds = 50;
  options.warmupRounds = 3;
  options.hostNow = [&gpu] { return gpu.nowNs; };
  return options;
}

// Vulkan's clock is far from the host's, CUDA's a little behind: a sign or
// an offset mixed up would move every cross gap by milliseconds.
constexpr FakePeer::Setup kVulkan{"vulkan", 123'456'789'000, 4'000, 166'000, 2'000};
constexpr FakePeer::Setup kCuda{"cuda", -25'000, 6'000, 162'000, 1'000};

TEST(SwitchProbe, CrossGapsAreLatencyPlusSwitchAndSameSideGapsLatencyAlone) {
  FakeGpu gpu;
  FakePeer vulkan(gpu, kVulkan), cuda(gpu, kCuda);
  const Result<SwitchCost> cost = measureSwitchCost(vulkan, cuda, optionsOn(gpu));
  ASSERT_TRUE(cost) << cost.error().message;
  EXPECT_EQ(cost->first, "vulkan");
  EXPECT_EQ(cost->second, "cuda");
  EXPECT_EQ(cost->firstToSecond.samples, 50u);
  EXPECT_EQ(cost->secondToFirst.samples, 50u);
  EXPECT_DOUBLE_EQ(cost->firstToSecond.medianUs, 6.0 + 162.0);  // CUDA's latency + its switch-in
  EXPECT_DOUBLE_EQ(cost->secondToFirst.medianUs, 4.0 + 166.0);
  EXPECT_DOUBLE_EQ(cost->firstToSecond.p10Us, 168.0);
  EXPECT_DOUBLE_EQ(cost->secondToFirst.p90Us, 170.0);
  EXPECT_DOUBLE_EQ(cost->firstToFirst.medianUs, 4.0);
  EXPECT_DOUBLE_EQ(cost->secondToSecond.medianUs, 6.0);
  EXPECT_DOUBLE_EQ(cost->pairUs, 338.0);
  EXPECT_DOUBLE_EQ(cost->clockUncertaintyUs, 1.0);
  EXPECT_DOUBLE_EQ(cost->clockDriftUs, 0.0);
  EXPECT_DOUBLE_EQ(cost->clockOffsetUs, (-25'000.0 - 123'456'789'000.0) * 1e-3);
  EXPECT_EQ(cost->impossibleGaps, 0u);
  EXPECT_TRUE(cost->assumptionsHeld);
  EXPECT_EQ(vulkan.ties, 2);  // before and after
  EXPECT_EQ(cuda.ties, 2);
}

TEST(SwitchProbe, ATieThatIsWrongShowsAsImpossibleGaps) {
  FakeGpu gpu;
  FakePeer vulkan(gpu, kVulkan), cuda(gpu, kCuda);
  // CUDA's tie 400 µs too small: its starts appear before Vulkan's ends.
  cuda.tieErrorBeforeNs = cuda.tieErrorAfterNs = -400'000;
  const Result<SwitchCost> cost = measureSwitchCost(vulkan, cuda, optionsOn(gpu));
  ASSERT_TRUE(cost) << cost.error().message;
  EXPECT_DOUBLE_EQ(cost->firstToSecond.medianUs, 168.0 - 400.0);
  EXPECT_EQ(cost->impossibleGaps, 50u);
  EXPECT_FALSE(cost->assumptionsHeld);
  EXPECT_NE(formatSwitchCost(*cost).find("ASSUMPTIONS BROKEN"), std::string::npos);
}

TEST(SwitchProbe, DriftBetweenTheTiesIsReportedAndBeyondTheUncertaintyFails) {
  FakeGpu gpu;
  FakePeer vulkan(gpu, kVulkan), cuda(gpu, kCuda);
  cuda.tieErrorAfterNs = 3'000;  // the second tie moved 3 µs: more than the 1 µs the ties claim
  const Result<SwitchCost> cost = measureSwitchCost(vulkan, cuda, optionsOn(gpu));
  ASSERT_TRUE(cost) << cost.error().message;
  EXPECT_DOUBLE_EQ(cost->clockDriftUs, 3.0);
  EXPECT_EQ(cost->impossibleGaps, 0u);
  EXPECT_FALSE(cost->assumptionsHeld);
}

TEST(SwitchProbe, WorkThatNeverFinishesTimesOutWithExitCode4) {
  FakeGpu gpu;
  FakePeer vulkan(gpu, kVulkan), cuda(gpu, kCuda);
  cuda.hangs = true;
  SwitchProbeOptions options = optionsOn(gpu);
  int reads = 0;
  options.timeoutNs = 50'000'000;
  options.hostNow = [&] {
    ++reads;
    return gpu.nowNs += 1'000'000;  // 1 ms a read: the timeout is a count of reads
  };
  const Result<SwitchCost> cost = measureSwitchCost(vulkan, cuda, options);
  ASSERT_FALSE(cost);
  EXPECT_EQ(cost.error().exitCode, kExitRuntime);
  EXPECT_NE(cost.error().message.find("timeout: the cuda side"), std::string::npos) << cost.error().message;
  EXPECT_LT(reads, 60);
}

TEST(SwitchProbe, JsonNamesBothDirectionsAfterThePeers) {
  FakeGpu gpu;
  FakePeer vulkan(gpu, kVulkan), cuda(gpu, kCuda);
  const Result<SwitchCost> cost = measureSwitchCost(vulkan, cuda, optionsOn(gpu));
  ASSERT_TRUE(cost) << cost.error().message;
  const nlohmann::ordered_json json = switchCostJson(*cost);
  EXPECT_DOUBLE_EQ(json.at("vulkanToCuda").at("medianUs").get<double>(), 168.0);
  EXPECT_DOUBLE_EQ(json.at("cudaToVulkan").at("medianUs").get<double>(), 170.0);
  EXPECT_DOUBLE_EQ(json.at("vulkanAlone").at("medianUs").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(json.at("pairUs").get<double>(), 338.0);
  EXPECT_TRUE(json.at("assumptionsHeld").get<bool>());
}

TEST(SwitchProbe, GapStatisticsUseNearestRank) {
  const GapStats stats = summarizeGaps({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_EQ(stats.samples, 10u);
  EXPECT_DOUBLE_EQ(stats.medianUs, 5.0);
  EXPECT_DOUBLE_EQ(stats.p10Us, 1.0);
  EXPECT_DOUBLE_EQ(stats.p90Us, 9.0);
  EXPECT_EQ(summarizeGaps({}).samples, 0u);
}

}  // namespace
}  // namespace vksim
