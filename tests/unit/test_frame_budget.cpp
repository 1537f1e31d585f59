// The bench's budget inside each frame's interval (app/capture/frame_budget.h).
#include <gtest/gtest.h>

#include <vector>

#include "app/capture/bench.h"
#include "app/capture/frame_budget.h"

namespace vksim {
namespace {

constexpr int64_t kMs = 1'000'000;

TEST(FrameBudget, UnionsIntersectionsAndCoverage) {
  const std::vector<TimeSpan> renders = unionOfSpans({{5, 9}, {0, 3}, {2, 4}, {9, 9}, {8, 12}});
  ASSERT_EQ(renders.size(), 2u);
  EXPECT_EQ(renders[0].beginNs, 0);
  EXPECT_EQ(renders[0].endNs, 4);
  EXPECT_EQ(renders[1].beginNs, 5);
  EXPECT_EQ(renders[1].endNs, 12);
  const std::vector<TimeSpan> both = intersectionOfSpans(renders, unionOfSpans({{3, 6}, {11, 20}}));
  ASSERT_EQ(both.size(), 3u);  // [3,4) [5,6) [11,12)
  EXPECT_EQ(coveredNs(both, 0, 100), 3);
  EXPECT_EQ(coveredNs(renders, 3, 6), 2);  // [3,4) and [5,6)
  EXPECT_EQ(coveredNs(renders, 12, 50), 0);
}

// A frame loop like the CPU backend's: frame k renders, presents, then runs
// the step recorded with it, which lies in frame k+1's interval. Every fourth
// step is heavy. Averaging the step over the frames that recorded it pairs
// each frame with its neighbour's step; over a short run that ends on a
// heavy step the parts then exceed the frame. Counted inside the intervals
// they add up, and the rest is the host's own time.
TEST(FrameBudget, AStepRecordedWithOneFrameIsCountedInTheIntervalItRanIn) {
  std::vector<FrameTiming> timings;
  int64_t now = 0;
  int64_t previousPresent = 0;
  for (uint64_t frame = 0; frame < 8; ++frame) {
    FrameTiming timing;
    timing.frame = frame;
    timing.previousPresentNs = previousPresent;
    timing.renderGpu = TimeSpan{now, now + 1 * kMs};  // starts at submission, runs past the present
    now += kMs / 2;                                   // host work until the present
    timing.present = TimeSpan{now, now};
    previousPresent = now;
    now += kMs;  // the rest of the render, which the step waits for
    const int64_t step = (frame % 4 == 3 ? 8 : 2) * kMs;
    timing.simWork = TimeSpan{now, now + step};
    now += step + kMs / 4;  // host work after the step
    timings.push_back(timing);
  }
  const uint64_t firstMeasured = 5;  // frames 5..7; frame 7's heavy step falls after the last present
  BenchSamples perRecord;
  for (const FrameTiming& timing : timings)
    if (timing.frame >= firstMeasured) {
      perRecord.frameMs.push_back(double(timing.present.beginNs - timing.previousPresentNs) * 1e-6);
      perRecord.renderGpuMs.push_back(timing.renderGpu->milliseconds());
      perRecord.simGpuMs.push_back(timing.simWork->milliseconds());
    }
  const BenchConfiguration configuration{64, TransferMode::zeroCopy, SyncMode::timeline, WaitStrategy::poll};
  EXPECT_LT(summarizeBench(configuration, "cpu", perRecord).unexplainedMs, 0.0)
      << "the pairing this replaces";

  const std::vector<IntervalBudget> budgets = intervalBudgets(timings, firstMeasured);
  ASSERT_EQ(budgets.size(), 3u);
  BenchSamples inside;
  for (const IntervalBudget& budget : budgets) {
    ASSERT_TRUE(budget.renderMs && budget.simMs && budget.overlapMs);
    EXPECT_NEAR(*budget.overlapMs, 0.0, 1e-12);
    // Inside the interval: the render's tail and head (1 ms), the step that
    // ran there, and 0.75 ms of the host's own work.
    EXPECT_NEAR(budget.frameMs - *budget.renderMs - *budget.simMs, 0.75, 1e-9);
    inside.frameMs.push_back(budget.frameMs);
    inside.renderGpuMs.push_back(*budget.renderMs);
    inside.simGpuMs.push_back(*budget.simMs);
    inside.overlapMs.push_back(*budget.overlapMs);
  }
  const BenchResult result = summarizeBench(configuration, "cpu", inside);
  EXPECT_NEAR(result.unexplainedMs, 0.75, 1e-9);
  EXPECT_NEAR(*result.renderGpuMs + *result.simGpuMs - *result.overlapMs + result.unexplainedMs,
              result.meanMs, 1e-9);
}

// Two renders in flight whose timestamps overlap are counted once, so the
// parts never exceed the interval.
TEST(FrameBudget, OverlappingRendersAreCountedOnce) {
  std::vector<FrameTiming> timings(2);
  timings[0].frame = 0;
  timings[0].present = TimeSpan{10 * kMs, 10 * kMs};
  timings[0].renderGpu = TimeSpan{11 * kMs, 15 * kMs};
  timings[1].frame = 1;
  timings[1].previousPresentNs = 10 * kMs;
  timings[1].present = TimeSpan{16 * kMs, 16 * kMs};
  timings[1].renderGpu = TimeSpan{12 * kMs, 16 * kMs};
  timings[1].simWork = TimeSpan{14 * kMs, 17 * kMs};
  const std::vector<IntervalBudget> budgets = intervalBudgets(timings, 1);
  ASSERT_EQ(budgets.size(), 1u);
  EXPECT_DOUBLE_EQ(budgets[0].frameMs, 6.0);
  EXPECT_DOUBLE_EQ(*budgets[0].renderMs, 5.0);   // [11, 16)
  EXPECT_DOUBLE_EQ(*budgets[0].simMs, 2.0);      // [14, 16)
  EXPECT_DOUBLE_EQ(*budgets[0].overlapMs, 2.0);  // [14, 16)
}

TEST(FrameBudget, APathWithoutStepSpansHasNone) {
  std::vector<FrameTiming> timings(2);
  timings[1].frame = 1;
  timings[1].previousPresentNs = 1 * kMs;
  timings[1].present = TimeSpan{3 * kMs, 3 * kMs};
  timings[1].renderGpu = TimeSpan{1 * kMs, 2 * kMs};
  const std::vector<IntervalBudget> budgets = intervalBudgets(timings, 0);
  ASSERT_EQ(budgets.size(), 1u);  // frame 0 has no present before it
  EXPECT_TRUE(budgets[0].renderMs);
  EXPECT_FALSE(budgets[0].simMs);
  EXPECT_FALSE(budgets[0].overlapMs);
}

}  // namespace
}  // namespace vksim
