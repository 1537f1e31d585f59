// Capture statistics against values computed by hand (the arithmetic is in
// the comments) on small fixed series.
#include <gtest/gtest.h>

#include <vector>

#include "app/capture/capture_stats.h"

namespace vksim {
namespace {

constexpr double kTolerance = 1e-9;

TEST(CaptureStats, OneToTenMilliseconds) {
  const std::vector<double> times = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const FrameStats stats = computeFrameStats(times);
  EXPECT_EQ(stats.frameCount, 10u);
  EXPECT_EQ(stats.warmupFramesExcluded, 0u);
  EXPECT_NEAR(stats.totalMs, 55.0, kTolerance);  // 1 + 2 + ... + 10
  // 10 frames / 0.055 s
  EXPECT_NEAR(stats.averageFps, 10.0 / 0.055, 1e-9);
  // N - 1 = 9; sorted s[i] = i + 1.
  // P50:   h = 0.5   * 9 = 4.5    -> s[4] + 0.5   * (s[5] - s[4]) = 5 + 0.5   = 5.5
  // P90:   h = 0.9   * 9 = 8.1    -> s[8] + 0.1   * (s[9] - s[8]) = 9 + 0.1   = 9.1
  // P95:   h = 0.95  * 9 = 8.55   -> 9 + 0.55  = 9.55
  // P99:   h = 0.99  * 9 = 8.91   -> 9 + 0.91  = 9.91
  // P99.9: h = 0.999 * 9 = 8.991  -> 9 + 0.991 = 9.991
  EXPECT_NEAR(stats.p50Ms, 5.5, kTolerance);
  EXPECT_NEAR(stats.p90Ms, 9.1, kTolerance);
  EXPECT_NEAR(stats.p95Ms, 9.55, kTolerance);
  EXPECT_NEAR(stats.p99Ms, 9.91, kTolerance);
  EXPECT_NEAR(stats.p999Ms, 9.991, kTolerance);
  EXPECT_NEAR(stats.onePercentLowFps, 1000.0 / 9.91, 1e-9);  // = 100.908...
  EXPECT_NEAR(stats.pointOnePercentLowFps, 1000.0 / 9.991, 1e-9);
  // ceil(10 / 100) = 1 slowest frame: 10 ms.
  EXPECT_NEAR(stats.slowestOnePercentMeanMs, 10.0, kTolerance);
  // Frame i (value i+1) against the mean of frames 0..i-1 (value (i+1)/2):
  // i+1 > 2.5 * (i+1)/2 never holds.
  EXPECT_EQ(stats.stutterCount, 0u);
}

TEST(CaptureStats, OrderOfFramesDoesNotChangePercentiles) {
  const std::vector<double> shuffled = {7, 3, 10, 1, 5, 9, 2, 8, 4, 6};
  const FrameStats stats = computeFrameStats(shuffled);
  EXPECT_NEAR(stats.p50Ms, 5.5, kTolerance);
  EXPECT_NEAR(stats.p90Ms, 9.1, kTolerance);
  EXPECT_NEAR(stats.p999Ms, 9.991, kTolerance);
}

TEST(CaptureStats, WarmupFramesAreExcluded) {
  // The two 100 ms warm-up frames would dominate every statistic.
  const std::vector<double> times = {100, 100, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const FrameStats stats = computeFrameStats(times, 2);
  EXPECT_EQ(stats.warmupFramesExcluded, 2u);
  EXPECT_EQ(stats.frameCount, 10u);
  EXPECT_NEAR(stats.totalMs, 55.0, kTolerance);
  EXPECT_NEAR(stats.p50Ms, 5.5, kTolerance);
  EXPECT_NEAR(stats.slowestOnePercentMeanMs, 10.0, kTolerance);
}

TEST(CaptureStats, WarmupLongerThanTheSeriesLeavesNothing) {
  const std::vector<double> times = {1, 2, 3};
  const FrameStats stats = computeFrameStats(times, 5);
  EXPECT_EQ(stats.warmupFramesExcluded, 3u);
  EXPECT_EQ(stats.frameCount, 0u);
  EXPECT_EQ(stats.averageFps, 0.0);
  EXPECT_EQ(stats.p99Ms, 0.0);
}

TEST(CaptureStats, EmptySeriesGivesZerosWithoutCrashing) {
  const FrameStats stats = computeFrameStats({});
  EXPECT_EQ(stats.frameCount, 0u);
  EXPECT_EQ(stats.totalMs, 0.0);
  EXPECT_EQ(stats.averageFps, 0.0);
  EXPECT_EQ(stats.p50Ms, 0.0);
  EXPECT_EQ(stats.p999Ms, 0.0);
  EXPECT_EQ(stats.onePercentLowFps, 0.0);
  EXPECT_EQ(stats.pointOnePercentLowFps, 0.0);
  EXPECT_EQ(stats.slowestOnePercentMeanMs, 0.0);
  EXPECT_EQ(stats.stutterCount, 0u);
  EXPECT_EQ(interpolatedPercentile({}, 0.5), 0.0);
  EXPECT_EQ(countStutters({}), 0u);
}

TEST(CaptureStats, SingleFrame) {
  const std::vector<double> times = {16.0};
  const FrameStats stats = computeFrameStats(times);
  EXPECT_EQ(stats.frameCount, 1u);
  EXPECT_NEAR(stats.totalMs, 16.0, kTolerance);
  EXPECT_NEAR(stats.averageFps, 62.5, kTolerance);  // 1 / 0.016 s
  // N - 1 = 0: every h is 0, every percentile is s[0].
  EXPECT_NEAR(stats.p50Ms, 16.0, kTolerance);
  EXPECT_NEAR(stats.p999Ms, 16.0, kTolerance);
  EXPECT_NEAR(stats.onePercentLowFps, 62.5, kTolerance);
  EXPECT_NEAR(stats.slowestOnePercentMeanMs, 16.0, kTolerance);  // at least one frame
  EXPECT_EQ(stats.stutterCount, 0u);                             // frame 0 has no history
}

TEST(CaptureStats, ConstantSeries) {
  const std::vector<double> times(250, 4.0);
  const FrameStats stats = computeFrameStats(times);
  EXPECT_EQ(stats.frameCount, 250u);
  EXPECT_NEAR(stats.totalMs, 1000.0, kTolerance);  // 250 * 4 ms = 1 s
  EXPECT_NEAR(stats.averageFps, 250.0, kTolerance);
  EXPECT_NEAR(stats.p50Ms, 4.0, kTolerance);
  EXPECT_NEAR(stats.p99Ms, 4.0, kTolerance);
  EXPECT_NEAR(stats.p999Ms, 4.0, kTolerance);
  EXPECT_NEAR(stats.onePercentLowFps, 250.0, kTolerance);
  EXPECT_NEAR(stats.pointOnePercentLowFps, 250.0, kTolerance);
  EXPECT_NEAR(stats.slowestOnePercentMeanMs, 4.0, kTolerance);
  EXPECT_EQ(stats.stutterCount, 0u);
}

TEST(CaptureStats, AllZeroFrameTimesGiveZeroRatesNotInfinity) {
  const std::vector<double> times(5, 0.0);
  const FrameStats stats = computeFrameStats(times);
  EXPECT_EQ(stats.frameCount, 5u);
  EXPECT_EQ(stats.averageFps, 0.0);
  EXPECT_EQ(stats.onePercentLowFps, 0.0);
  EXPECT_EQ(stats.pointOnePercentLowFps, 0.0);
  EXPECT_EQ(stats.stutterCount, 0u);  // 0 > 2.5 * 0 is false
}

TEST(CaptureStats, SlowestOnePercentTakesCeilOfNOverHundredFrames) {
  // 101 frames: 99 of 1 ms, then 50 ms and 30 ms. ceil(101 / 100) = 2 slowest:
  // (50 + 30) / 2 = 40 ms.
  std::vector<double> times(99, 1.0);
  times.push_back(50.0);
  times.push_back(30.0);
  const FrameStats stats = computeFrameStats(times);
  EXPECT_NEAR(stats.slowestOnePercentMeanMs, 40.0, kTolerance);
  // N - 1 = 100, sorted: s[0..98] = 1, s[99] = 30, s[100] = 50.
  // P99:   h = 99    -> s[99] = 30
  // P99.9: h = 99.9  -> 30 + 0.9 * (50 - 30) = 48
  // P95:   h = 95    -> 1
  EXPECT_NEAR(stats.p99Ms, 30.0, kTolerance);
  EXPECT_NEAR(stats.p999Ms, 48.0, kTolerance);
  EXPECT_NEAR(stats.p95Ms, 1.0, kTolerance);
  EXPECT_NEAR(stats.onePercentLowFps, 1000.0 / 30.0, 1e-9);
  EXPECT_NEAR(stats.pointOnePercentLowFps, 1000.0 / 48.0, 1e-9);
}

TEST(CaptureStats, PercentileClampsP) {
  const std::vector<double> sorted = {2, 4, 8};
  EXPECT_EQ(interpolatedPercentile(sorted, -1.0), 2.0);
  EXPECT_EQ(interpolatedPercentile(sorted, 0.0), 2.0);
  EXPECT_EQ(interpolatedPercentile(sorted, 1.0), 8.0);
  EXPECT_EQ(interpolatedPercentile(sorted, 2.0), 8.0);
  // h = 0.75 * 2 = 1.5 -> 4 + 0.5 * (8 - 4) = 6
  EXPECT_NEAR(interpolatedPercentile(sorted, 0.75), 6.0, kTolerance);
}

TEST(CaptureStats, KnownStuttersAgainstThirtyFrameMovingAverage) {
  // 40 frames of 10 ms with spikes at frames 35 (30 ms) and 38 (24 ms).
  std::vector<double> times(40, 10.0);
  times[35] = 30.0;
  times[38] = 24.0;
  // Frame 35: mean of frames 5..34 = 10; 30 > 2.5 * 10 = 25 -> stutter.
  // Frame 38: mean of frames 8..37 = (29 * 10 + 30) / 30 = 320 / 30 = 10.667;
  //           2.5 * 10.667 = 26.67; 24 is not above -> not a stutter (the
  //           first spike raised the average, as documented).
  // Frames 36, 37, 39 are 10 ms: no.
  EXPECT_EQ(countStutters(times), 1u);
  EXPECT_EQ(computeFrameStats(times).stutterCount, 1u);

  // Without the first spike, frame 38 is judged against a mean of 10: 24 is
  // not above 25 either; at 26 it is.
  times[35] = 10.0;
  times[38] = 26.0;
  EXPECT_EQ(countStutters(times), 1u);
}

TEST(CaptureStats, StutterIsExactlyAboveTheThresholdNotAtIt) {
  std::vector<double> times(31, 4.0);
  times[30] = 10.0;  // mean of frames 0..29 = 4; 2.5 * 4 = 10; 10 > 10 is false
  EXPECT_EQ(countStutters(times), 0u);
  times[30] = 10.001;
  EXPECT_EQ(countStutters(times), 1u);
}

TEST(CaptureStats, EarlyFramesUseTheFramesBeforeThem) {
  // Frame 1: mean of {2} = 2, 6 > 5 -> stutter.
  // Frame 2: mean of {2, 6} = 4, threshold 10; 2 -> no.
  // Frame 3: mean of {2, 6, 2} = 3.333, threshold 8.333; 9 -> stutter.
  const std::vector<double> times = {2, 6, 2, 9};
  EXPECT_EQ(countStutters(times), 2u);
}

TEST(CaptureStats, WindowOnlyLooksBackThirtyFrames) {
  // 30 frames of 100 ms, then 30 frames of 1 ms, then a 3 ms frame (index 60).
  // Frame 60's window is frames 30..59, all 1 ms: 3 > 2.5 -> stutter. A
  // window reaching back to the 100 ms frames would hide it.
  std::vector<double> times(30, 100.0);
  times.insert(times.end(), 30, 1.0);
  times.push_back(3.0);
  EXPECT_EQ(countStutters(times), 1u);
  // With a 31-frame window frame 60 sees one 100 ms frame: mean = 130/31 = 4.19.
  EXPECT_EQ(countStutters(times, kStutterFactor, 31), 0u);
}

}  // namespace
}  // namespace vksim
