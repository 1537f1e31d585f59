// The benchmark's matrix, summary and table, and the host's bounded spin wait.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "app/capture/bench.h"
#include "app/capture/capture_session.h"
#include "app/capture/frame_timing.h"
#include "app/interop/host_wait.h"
#include "app/interop/wait_strategy.h"

namespace vksim {
namespace {

TEST(BenchMatrix, ZeroCopyRunsEverySyncAndWaitAndCopyOncePerGrid) {
  BenchOptions options;
  options.grids = {16, 32};
  const std::vector<BenchConfiguration> matrix = benchMatrix(options);
  ASSERT_EQ(matrix.size(), 10u);
  EXPECT_EQ(matrix[0].grid, 16u);
  EXPECT_EQ(matrix[0].transfer, TransferMode::zeroCopy);
  EXPECT_EQ(matrix[0].sync, SyncMode::timeline);
  EXPECT_EQ(matrix[0].wait, WaitStrategy::poll);
  EXPECT_EQ(matrix[1].wait, WaitStrategy::enqueue);
  EXPECT_EQ(matrix[2].sync, SyncMode::binary);
  EXPECT_EQ(matrix[4].transfer, TransferMode::copy);
  EXPECT_STREQ(syncName(matrix[4]), "none");
  EXPECT_STREQ(waitName(matrix[4]), "none");
  EXPECT_EQ(matrix[5].grid, 32u);

  options.transfers = {TransferMode::copy};
  EXPECT_EQ(benchMatrix(options).size(), 2u);
  options.transfers = {TransferMode::zeroCopy};
  options.waitStrategies = {WaitStrategy::enqueue};
  EXPECT_EQ(benchMatrix(options).size(), 4u);
}

// --lod both: each configuration with and without level of detail, one
// right after the other; the default draws with it only.
TEST(BenchMatrix, LevelOfDetailIsTheInnermostDimension) {
  BenchOptions options;
  options.grids = {512};
  EXPECT_EQ(benchMatrix(options).size(), 5u);
  for (const BenchConfiguration& configuration : benchMatrix(options)) EXPECT_TRUE(configuration.levelOfDetail);
  options.levelsOfDetail = {true, false};
  const std::vector<BenchConfiguration> matrix = benchMatrix(options);
  ASSERT_EQ(matrix.size(), 10u);
  for (size_t i = 0; i < matrix.size(); i += 2) {
    EXPECT_TRUE(matrix[i].levelOfDetail) << i;
    EXPECT_FALSE(matrix[i + 1].levelOfDetail) << i;
    EXPECT_EQ(matrix[i].sync, matrix[i + 1].sync) << i;
    EXPECT_EQ(matrix[i].wait, matrix[i + 1].wait) << i;
    EXPECT_EQ(matrix[i].transfer, matrix[i + 1].transfer) << i;
  }
  const auto json = benchJson({}, {}, {BenchResult{matrix[1]}});
  EXPECT_EQ(json.at("results").at(0).at("lod"), "off");
}

// --texture and --overlay: inside the level of detail, overlay innermost, so
// that a row with the overlay runs right after the same row without it; the
// copy path's rows get them too. The JSON and the table say which ran, and a
// texture asked for on a path that writes none reads "placeholder".
TEST(BenchMatrix, TextureAndOverlayAreTheInnermostDimensions) {
  BenchOptions options;
  options.grids = {512};
  options.syncModes = {SyncMode::timeline};
  options.waitStrategies = {WaitStrategy::poll};
  options.textures = {true, false};
  options.overlays = {true, false};
  const std::vector<BenchConfiguration> matrix = benchMatrix(options);
  ASSERT_EQ(matrix.size(), 8u);  // (zero-copy + copy) x 2 textures x 2 overlays
  const bool expected[4][2] = {{true, true}, {true, false}, {false, true}, {false, false}};
  for (size_t i = 0; i < matrix.size(); ++i) {
    EXPECT_EQ(matrix[i].transfer, i < 4 ? TransferMode::zeroCopy : TransferMode::copy) << i;
    EXPECT_EQ(matrix[i].texture, expected[i % 4][0]) << i;
    EXPECT_EQ(matrix[i].overlay, expected[i % 4][1]) << i;
  }
  BenchResult drawn{matrix[0]};
  drawn.textureDrawn = true;
  const BenchResult placeholder{matrix[4]};  // asked for, the copy path wrote none
  const BenchResult off{matrix[3]};
  const auto json = benchJson({}, {}, {drawn, placeholder, off});
  EXPECT_EQ(json.at("results").at(0).at("texture"), "on");
  EXPECT_EQ(json.at("results").at(0).at("overlay"), "on");
  EXPECT_EQ(json.at("results").at(1).at("texture"), "placeholder");
  EXPECT_EQ(json.at("results").at(2).at("texture"), "off");
  EXPECT_EQ(json.at("results").at(2).at("overlay"), "off");
  const std::string table = formatBenchTable({drawn, placeholder, off});
  EXPECT_NE(table.find("  on   on           on         "), std::string::npos) << table;
  EXPECT_NE(table.find("  on   placeholder  on         "), std::string::npos) << table;
  EXPECT_NE(table.find("  on   off          off        "), std::string::npos) << table;
}

// The warm-up ends when both its frames and its time have passed: a fast
// frame rate must not end it before the GPU's clocks have ramped up, nor a
// slow one before its frames have run.
TEST(BenchWarmup, EndsOnlyOnceBothItsFramesAndItsTimeHavePassed) {
  BenchOptions bench;
  bench.warmupFrames = 30;
  bench.warmupMs = 500;
  EXPECT_FALSE(warmupFinished(bench, 30, 499'999'999));
  EXPECT_FALSE(warmupFinished(bench, 29, 10'000'000'000));
  EXPECT_TRUE(warmupFinished(bench, 30, 500'000'000));
  bench.warmupMs = 0;
  EXPECT_TRUE(warmupFinished(bench, 30, 0));
  bench.warmupFrames = 0;
  EXPECT_TRUE(warmupFinished(bench, 0, 0));
}

TEST(BenchSummary, UnexplainedIsTheMeanFrameLessBothGpuSpans) {
  BenchSamples samples;
  samples.frameMs = {1.0, 2.0, 3.0, 4.0};
  samples.renderGpuMs = {0.5, 0.5, 0.5, 0.5};
  samples.simGpuMs = {0.25, 0.25, 0.25, 0.25};
  samples.simWaitMs = {0.1, 0.1, 0.1, 0.1};
  samples.cpuFrameMs = {2.0, 2.0, 2.0, 2.0};
  const BenchResult result =
      summarizeBench({64, TransferMode::zeroCopy, SyncMode::binary, WaitStrategy::poll}, "cpu", samples);
  EXPECT_EQ(result.frames, 4u);
  EXPECT_DOUBLE_EQ(result.meanMs, 2.5);
  EXPECT_DOUBLE_EQ(result.p99Ms, 3.97);  // h = 0.99 * 3 = 2.97: 3 + 0.97 * (4 - 3)
  EXPECT_DOUBLE_EQ(*result.renderGpuMs, 0.5);
  EXPECT_DOUBLE_EQ(*result.simGpuMs, 0.25);
  EXPECT_DOUBLE_EQ(*result.simWaitMs, 0.1);
  EXPECT_DOUBLE_EQ(result.cpuFrameMs, 2.0);
  EXPECT_DOUBLE_EQ(result.unexplainedMs, 1.75);
}

// The copy path's step runs beside the render: their overlap is counted
// once, so the parts add up to the frame and the rest is not negative.
TEST(BenchSummary, OverlapIsCountedOnceSoThePartsAddUpToTheFrame) {
  BenchSamples samples;
  samples.frameMs = {2.0, 2.0};
  samples.renderGpuMs = {1.5, 1.5};
  samples.simGpuMs = {1.0, 1.0};
  samples.overlapMs = {0.75, 0.75};
  const BenchResult result =
      summarizeBench({64, TransferMode::copy, SyncMode::timeline, WaitStrategy::poll}, "cuda", samples);
  ASSERT_TRUE(result.overlapMs);
  EXPECT_DOUBLE_EQ(*result.overlapMs, 0.75);
  EXPECT_DOUBLE_EQ(result.unexplainedMs, 0.25);
  EXPECT_DOUBLE_EQ(*result.renderGpuMs + *result.simGpuMs - *result.overlapMs + result.unexplainedMs, result.meanMs);
  EXPECT_NE(formatBenchTable({result}).find("overlap ms"), std::string::npos);
  EXPECT_DOUBLE_EQ(benchJson({{"gpu", "test"}}, {}, {result})["results"][0]["overlapMs"].get<double>(), 0.75);
}

// gpuOverlapMs: the time both GPU spans of a frame cover, from their host-clock ends.
TEST(BenchSummary, OverlapOfAFrameIsTheIntersectionOfItsSpans) {
  FrameTiming timing;
  EXPECT_FALSE(gpuOverlapMs(timing));
  timing.renderGpu = TimeSpan{1'000'000, 3'000'000};
  timing.simWork = TimeSpan{2'500'000, 4'000'000};
  EXPECT_DOUBLE_EQ(*gpuOverlapMs(timing), 0.5);
  timing.simWork = TimeSpan{3'000'000, 4'000'000};  // one after the other: none
  EXPECT_DOUBLE_EQ(*gpuOverlapMs(timing), 0.0);
  EXPECT_DOUBLE_EQ(*gpuBusyMs(timing, true), 3.0);
}

TEST(BenchSummary, MissingGpuSpansAreNullAndCountAsZero) {
  BenchSamples samples;
  samples.frameMs = {2.0, 2.0};
  const BenchResult result =
      summarizeBench({64, TransferMode::copy, SyncMode::timeline, WaitStrategy::poll}, "cuda", samples);
  EXPECT_FALSE(result.renderGpuMs);
  EXPECT_DOUBLE_EQ(result.unexplainedMs, 2.0);
  const auto json = benchJson({{"gpu", "test"}}, {}, {result});
  const auto& row = json.at("results").at(0);
  EXPECT_TRUE(row.at("renderGpuMs").is_null());
  EXPECT_EQ(row.at("sync"), "none");
  EXPECT_EQ(row.at("waitStrategy"), "none");
  EXPECT_EQ(row.at("transfer"), "copy");
  EXPECT_EQ(row.at("vertices"), 4096);
  EXPECT_EQ(json.at("machine").at("gpu"), "test");
  const std::string table = formatBenchTable({result});
  EXPECT_NE(table.find("unexplained ms"), std::string::npos);
  EXPECT_NE(table.find("NA"), std::string::npos);
}

// The render ends' pace: from one frame's render end to the next frame's,
// only where both frames have a render span and follow each other, and only
// for the measured frames (the first measured frame's interval reaches back
// into the warm-up's last render).
TEST(BenchSummary, RenderEndsAreTimedBetweenConsecutiveFramesThatBothHaveOne) {
  std::vector<FrameTiming> timings;
  const auto add = [&](uint64_t frame, std::optional<int64_t> renderEndNs) {
    FrameTiming timing;
    timing.frame = frame;
    if (renderEndNs) timing.renderGpu = TimeSpan{*renderEndNs - 500'000, *renderEndNs};
    timings.push_back(timing);
  };
  add(0, 1'000'000);   // warm-up
  add(1, 2'000'000);   // 1.0 ms after frame 0's
  add(2, 4'500'000);   // 2.5
  add(3, std::nullopt);
  add(4, 5'000'000);   // frame 3 has no end: no interval
  add(5, 6'250'000);   // 1.25
  add(7, 9'000'000);   // frame 6 is missing: no interval
  EXPECT_EQ(renderEndIntervals(timings, 1), (std::vector<double>{1.0, 2.5, 1.25}));
  EXPECT_EQ(renderEndIntervals(timings, 2), (std::vector<double>{2.5, 1.25}));
  EXPECT_TRUE(renderEndIntervals({}, 0).empty());
}

TEST(BenchSummary, RenderEndP99IsTheP99OfTheIntervalsAndNullWithoutThem) {
  BenchSamples samples;
  samples.frameMs = {1.0, 1.0, 1.0, 1.0};
  const BenchConfiguration configuration{64, TransferMode::zeroCopy, SyncMode::timeline, WaitStrategy::poll};
  const BenchResult without = summarizeBench(configuration, "vulkan", samples);
  EXPECT_FALSE(without.renderEndP99Ms);
  EXPECT_TRUE(benchJson({}, {}, {without})["results"][0]["renderEndP99Ms"].is_null());
  samples.renderEndMs = {1.0, 2.0, 3.0, 4.0};
  const BenchResult with = summarizeBench(configuration, "vulkan", samples);
  ASSERT_TRUE(with.renderEndP99Ms);
  EXPECT_DOUBLE_EQ(*with.renderEndP99Ms, 3.97);  // as p99Ms: 3 + 0.97 * (4 - 3)
  EXPECT_DOUBLE_EQ(benchJson({}, {}, {with})["results"][0]["renderEndP99Ms"].get<double>(), 3.97);
}

// The table's exact text: right-aligned numbers with three decimals, NA for
// a span the path does not have.
TEST(BenchTable, ColumnsLineUpAndMissingSpansAreNa) {
  BenchResult zeroCopy;
  zeroCopy.configuration = {4096, TransferMode::zeroCopy, SyncMode::timeline, WaitStrategy::enqueue};
  zeroCopy.meanMs = 2.5;
  zeroCopy.p50Ms = 2.41;
  zeroCopy.p99Ms = 3.97;
  zeroCopy.trianglesDrawn = 612345;
  zeroCopy.textureDrawn = true;
  zeroCopy.simGpuMs = 0.25;
  zeroCopy.renderGpuMs = 0.5;
  zeroCopy.unexplainedMs = 1.75;
  zeroCopy.renderEndP99Ms = 2.75;
  BenchResult copy;
  copy.configuration = {64, TransferMode::copy, SyncMode::timeline, WaitStrategy::poll, false};
  copy.meanMs = 2.0;
  copy.p50Ms = 2.0;
  copy.p99Ms = 2.0;
  copy.trianglesDrawn = 7938;
  copy.unexplainedMs = -0.0004;
  zeroCopy.overlapMs = 0.0;
  EXPECT_EQ(formatBenchTable({zeroCopy, copy}),
            "  grid  sync      transfer   wait     lod  texture      overlay    mean ms     P50 ms     P99 ms"
            "  render-end P99 ms  sim GPU ms  render GPU ms  overlap ms  unexplained ms"
            "  2 switches ms     M tris\n"
            "  4096  timeline  zero-copy  enqueue  on   on           off          2.500      2.410      3.970"
            "              2.750       0.250          0.500       0.000           1.750"
            "             NA      0.612\n"
            "    64  none      copy       none     off  placeholder  off          2.000      2.000      2.000"
            "                 NA          NA             NA          NA          -0.000"
            "             NA      0.008\n");
}

// The switch probe's figures sit next to the unexplained time: in ms in the
// table, in µs per direction and for the pair in each JSON row, null without.
TEST(BenchTable, SwitchCostSitsNextToTheUnexplainedTime) {
  BenchResult probed;
  probed.configuration = {512, TransferMode::zeroCopy, SyncMode::binary, WaitStrategy::poll};
  probed.meanMs = 0.36;
  probed.unexplainedMs = 0.33;
  probed.switchUs = BenchResult::SwitchUs{162.5, 166.5, 329.0};
  BenchResult cpu = probed;
  cpu.switchUs.reset();
  const std::string table = formatBenchTable({probed, cpu});
  EXPECT_NE(table.find("           0.330          0.329      0.000\n"), std::string::npos) << table;
  EXPECT_NE(table.find("           0.330             NA      0.000\n"), std::string::npos) << table;
  const auto json = benchJson({}, {}, {probed, cpu});
  const auto& row = json.at("results").at(0).at("switchUs");
  EXPECT_DOUBLE_EQ(row.at("vulkanToSim").get<double>(), 162.5);
  EXPECT_DOUBLE_EQ(row.at("simToVulkan").get<double>(), 166.5);
  EXPECT_DOUBLE_EQ(row.at("pair").get<double>(), 329.0);
  EXPECT_TRUE(json.at("results").at(1).at("switchUs").is_null());
}

// A fake clock that moves 1 ms each time it is read: the loop's timeout is
// then a matter of counting reads, not of how fast this machine is.
struct FakeClock {
  int64_t ns = 5'000'000'000;  // any starting point: only differences count
  int reads = 0;
  int64_t operator()() {
    ++reads;
    const int64_t now = ns;
    ns += 1'000'000;
    return now;
  }
};

TEST(WaitUntilReached, ReturnsOnceTheValueIsReachedWithoutLookingAtTheClockAgain) {
  int checks = 0;
  FakeClock clock;
  EXPECT_TRUE(waitUntilReached([&] { return ++checks >= 5; }, 1'000'000'000ull, std::ref(clock)));
  EXPECT_EQ(checks, 5);
  // Checks 1..5: the deadline is read once after check 1, and the clock once
  // after each of checks 2, 3, 4 that failed: 1 + 3 = 4 reads.
  EXPECT_EQ(clock.reads, 4);

  // Reached at once: no clock read at all, no pause.
  FakeClock idle;
  EXPECT_TRUE(waitUntilReached([] { return true; }, 0, std::ref(idle)));
  EXPECT_EQ(idle.reads, 0);
}

TEST(WaitUntilReached, GivesUpExactlyWhenTheClockPassesTheTimeout) {
  // Timeout 3 ms. Reads: t0 (deadline = t0 + 3 ms), then t0 + 1, + 2, + 3 ms;
  // the read at t0 + 3 ms reaches the deadline and the loop returns false.
  // So the value is checked 1 (before the deadline is set) + 3 (one per loop
  // turn) = 4 times, and the clock is read 4 times.
  int checks = 0;
  FakeClock clock;
  EXPECT_FALSE(waitUntilReached([&] { return ++checks < 0; }, 3'000'000ull, std::ref(clock)));
  EXPECT_EQ(checks, 4);
  EXPECT_EQ(clock.reads, 4);

  // Timeout 0 and not reached: one check, the deadline read, one more turn
  // whose read is already at the deadline: 2 checks, 2 reads.
  checks = 0;
  FakeClock zero;
  EXPECT_FALSE(waitUntilReached([&] { return ++checks < 0; }, 0, std::ref(zero)));
  EXPECT_EQ(checks, 2);
  EXPECT_EQ(zero.reads, 2);

  // Reached on the last turn before the deadline: true, not a timeout.
  checks = 0;
  FakeClock late;
  EXPECT_TRUE(waitUntilReached([&] { return ++checks >= 4; }, 3'000'000ull, std::ref(late)));
  EXPECT_EQ(checks, 4);
}

}  // namespace
}  // namespace vksim
