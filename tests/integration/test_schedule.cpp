// The value schedule as submitted, and a configuration in which its waits
// decide what the render reads. CPU backend on lavapipe, validation layer and
// synchronization validation on.
//
// ScheduleAsSubmitted: every submission's waits and signals (the trace's
// "... submit" events) against the rule written out in schedule_check.h.
// FrameTags: with --frame-tags the CPU step runs on a worker thread and the
// render's semaphore wait is the only thing that keeps it from reading a
// state the worker has not finished; each render must read the tag of the
// state the step before it wrote.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "app_runner.h"
#include "schedule_cases.h"
#include "schedule_check.h"

namespace vksim::testing {
namespace {

// The layer, with synchronization validation as well (the layer reads
// VK_LAYER_ENABLES when the application does not configure it itself).
const std::vector<std::string> kSyncValidation{
    "VKSIM_VALIDATION=1", "VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT"};

nlohmann::json runAndTrace(const std::string& dir, const std::string& name, std::vector<std::string> args) {
  const std::string path = dir + "/" + name + ".json";
  args.insert(args.begin(), {"--headless", "--backend", "cpu", "--size", "96x96", "--trace", path});
  const AppResult result = runApp(args, kSyncValidation, 300);
  expectSilentRun(result);
  if (::testing::Test::HasFatalFailure()) return {};
  return nlohmann::json::parse(readFile(path));
}

class ScheduleAsSubmitted : public ::testing::TestWithParam<ScheduleCase> {};

// 200 frames switching every frame: 100 timeline -> binary boundaries and 99
// or 100 binary -> timeline ones, each checked on both sides.
TEST_P(ScheduleAsSubmitted, EveryWaitIsWhatTheOtherSideSignalledOver200FramesSwitchingEveryFrame) {
  const auto [strategy, startMode] = GetParam();
  const std::string dir = makeTempDir(std::string("schedule-") + strategy + "-" + startMode);
  const nlohmann::json trace = runAndTrace(dir, "run",
                                           {"--grid", "32", "--frames", "200", "--switch-sync-every", "1",
                                            "--sync", startMode, "--wait-strategy", strategy});
  ASSERT_FALSE(trace.is_null());
  expectSwitchingEveryFrameFollowsTheRule(trace, startMode);
}

INSTANTIATE_TEST_SUITE_P(WaitStrategies, ScheduleAsSubmitted, scheduleCases(), scheduleCaseName);

// Without switching, each mode on its own (the frames around a switch are
// not the only ones that could be wrong).
TEST(ScheduleAsSubmitted, SteadyTimelineAndSteadyBinaryFollowTheRule) {
  const std::string dir = makeTempDir("schedule-steady");
  for (const char* mode : {"timeline", "binary"}) {
    const nlohmann::json trace =
        runAndTrace(dir, mode, {"--grid", "32", "--frames", "50", "--sync", mode, "--wait-strategy", "enqueue"});
    ASSERT_FALSE(trace.is_null());
    const std::vector<std::string> failures = checkSchedule(trace, ScheduleRun{50, mode, 0});
    EXPECT_TRUE(failures.empty()) << mode << ":\n" << joinLines(failures);
  }
}

// The checker itself: a trace edited to hold a wrong wait must fail it, so a
// pass above means the rule was checked.
TEST(ScheduleAsSubmitted, TheCheckerRejectsAWrongValueAndAMissingWait) {
  const std::string dir = makeTempDir("schedule-checker");
  const nlohmann::json trace = runAndTrace(
      dir, "run", {"--grid", "16", "--frames", "6", "--switch-sync-every", "1", "--wait-strategy", "enqueue"});
  ASSERT_FALSE(trace.is_null());
  const ScheduleRun run{6, "timeline", 1};
  ASSERT_TRUE(checkSchedule(trace, run).empty()) << joinLines(checkSchedule(trace, run));
  for (const char* breakage : {"value", "missing"}) {
    nlohmann::json broken = trace;
    for (nlohmann::json& event : broken.at("traceEvents")) {
      // Render 4 (timeline, after a binary sim) and render 3 (binary, after a timeline sim).
      if (event.value("name", "") != "render submit") continue;
      const uint64_t frame = event.at("args").at("frame").get<uint64_t>();
      if (std::string(breakage) == "value" && frame == 4)
        event["args"]["waits"] = nlohmann::json::array({{{"semaphore", "timeline"}, {"value", 7}, {"stage", "VERTEX_INPUT"}}});
      if (std::string(breakage) == "missing" && frame == 3) event["args"]["waits"] = nlohmann::json::array();
    }
    EXPECT_FALSE(checkSchedule(broken, run).empty()) << breakage;
  }
  // The CPU backend acquires nothing, so its renders wait at VERTEX_INPUT:
  // the same trace read as the CUDA path's must fail the ALL_COMMANDS rule
  // that tests/gpu/test_cuda_schedule.cpp asserts.
  ScheduleRun external = run;
  external.acquiresFromExternal = true;
  EXPECT_FALSE(checkSchedule(trace, external).empty());
  // With VK_KHR_maintenance8 (transfer_stages=narrow) a wait at the vertex
  // input is what the acquire's stages ask for (rule M22).
  external.narrowTransferStages = true;
  EXPECT_TRUE(checkSchedule(trace, external).empty()) << joinLines(checkSchedule(trace, external));
}

class FrameTags : public ::testing::TestWithParam<const char*> {};

// Render k must read state k (tag k): with the step on its own thread and the
// enqueue strategy, only the render's GPU-side wait keeps it from reading an
// older state. Switching every frame puts a mode switch before every render.
TEST_P(FrameTags, EveryRenderReadsTheStateTheStepBeforeItWrote) {
  const char* strategy = GetParam();
  const std::string dir = makeTempDir(std::string("tags-") + strategy);
  const nlohmann::json trace =
      runAndTrace(dir, "run", {"--frame-tags", "--grid", "64", "--frames", "200", "--switch-sync-every", "1",
                               "--wait-strategy", strategy});
  ASSERT_FALSE(trace.is_null());
  const std::vector<std::string> tags = checkFrameTags(trace, 200);
  EXPECT_TRUE(tags.empty()) << joinLines(tags);
  const std::vector<std::string> schedule = checkSchedule(trace, ScheduleRun{200, "timeline", 1});
  EXPECT_TRUE(schedule.empty()) << joinLines(schedule);
}

INSTANTIATE_TEST_SUITE_P(WaitStrategies, FrameTags, ::testing::Values("enqueue", "poll"),
                         [](const auto& testInfo) { return std::string(testInfo.param); });

TEST(FrameTags, SteadyTimelineAndSteadyBinaryReadTheirOwnStep) {
  const std::string dir = makeTempDir("tags-steady");
  for (const char* mode : {"timeline", "binary"}) {
    const nlohmann::json trace = runAndTrace(
        dir, mode, {"--frame-tags", "--grid", "64", "--frames", "100", "--sync", mode, "--wait-strategy", "enqueue"});
    ASSERT_FALSE(trace.is_null());
    const std::vector<std::string> tags = checkFrameTags(trace, 100);
    EXPECT_TRUE(tags.empty()) << mode << ":\n" << joinLines(tags);
  }
}

// The worker computes what the frame loop's own thread computes: the dumps
// differ only in the tag (the first vertex's normal.w, which holds the last
// state's tag, 60), never elsewhere; a normal run's vertex 0 has normal.w = 0.
TEST(FrameTags, TheTagIsTheOnlyDifferenceInTheVertices) {
  const std::string dir = makeTempDir("tags-dump");
  const std::vector<std::string> common{"--headless", "--backend", "cpu", "--sim", "ripple", "--grid", "64",
                                        "--frames", "60", "--size", "96x96", "--seed", "7",
                                        "--switch-sync-every", "3", "--wait-strategy", "enqueue"};
  auto run = [&](const std::string& dump, bool tags) {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--dump-vertices", dump});
    if (tags) args.push_back("--frame-tags");
    return runApp(args, kSyncValidation, 300);
  };
  expectSilentRun(run(dir + "/plain.bin", false));
  expectSilentRun(run(dir + "/tags.bin", true));
  std::string plain = readFile(dir + "/plain.bin"), tagged = readFile(dir + "/tags.bin");
  ASSERT_EQ(plain.size(), size_t(64 * 64 * 32));
  ASSERT_EQ(tagged.size(), plain.size());
  float plainTag = -1, lastTag = -1;
  std::memcpy(&plainTag, plain.data() + 28, sizeof(float));
  std::memcpy(&lastTag, tagged.data() + 28, sizeof(float));
  EXPECT_EQ(plainTag, 0.0f);
  EXPECT_EQ(lastTag, 60.0f);
  tagged.replace(28, 4, plain.substr(28, 4));
  EXPECT_TRUE(plain == tagged) << "the dumps differ beyond the tag";
}

TEST(FrameTags, RefusedOutsideHeadlessCpuZeroCopy) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--frame-tags", "--backend", "cpu", "--frames", "2"},
        std::vector<std::string>{"--frame-tags", "--headless", "--frames", "2"},
        std::vector<std::string>{"--frame-tags", "--headless", "--backend", "cpu", "--transfer", "copy"}}) {
    const AppResult result = runApp(args);
    EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
    EXPECT_NE(result.err.find("--frame-tags"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "one line: " << result.err;
  }
}

}  // namespace
}  // namespace vksim::testing
