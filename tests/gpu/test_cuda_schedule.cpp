// The value schedule as the CUDA backend submitted it: the same check as the
// CPU backend's in tests/integration/test_schedule.cpp, against the rule
// written out in schedule_check.h. Here the simulation's side is what the
// CUDA step reports it enqueued on its stream.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "app_runner.h"
#include "gpu_environment.h"
#include "schedule_cases.h"
#include "schedule_check.h"

namespace vksim::testing {
namespace {

class CudaScheduleAsSubmitted : public ::testing::TestWithParam<ScheduleCase> {};

TEST_P(CudaScheduleAsSubmitted, EveryWaitIsWhatTheOtherSideSignalledOver200FramesSwitchingEveryFrame) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const auto [strategy, startMode] = GetParam();
  const std::string dir = makeTempDir(std::string("cuda-schedule-") + strategy + "-" + startMode);
  const std::string path = dir + "/run.json";
  const AppResult result =
      runApp({"--headless", "--backend", "cuda", "--size", "128x128", "--grid", "256", "--frames", "200",
              "--switch-sync-every", "1", "--sync", startMode, "--wait-strategy", strategy, "--trace", path},
             {"VKSIM_VALIDATION=1"}, 300);
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(summaryField(result.out, "backend"), "cuda");
  EXPECT_EQ(summaryField(result.out, "validation_errors"), "0") << result.err;
  const nlohmann::json trace = nlohmann::json::parse(readFile(path));
  // The CUDA zero-copy render acquires the buffer from EXTERNAL: its waits
  // on the simulation must be at ALL_COMMANDS, or, where VK_KHR_maintenance8
  // ran (transfer_stages=narrow), at the acquire's own stages.
  expectSwitchingEveryFrameFollowsTheRule(trace, startMode, /*acquiresFromExternal=*/true,
                                          summaryField(result.out, "transfer_stages") == "narrow");
}

INSTANTIATE_TEST_SUITE_P(WaitStrategies, CudaScheduleAsSubmitted, scheduleCases(), scheduleCaseName);

}  // namespace
}  // namespace vksim::testing
