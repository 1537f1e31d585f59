// The switch-every-frame schedule test that the CPU backend (integration
// tests) and the CUDA backend (GPU tests) both run: its cases, their names and
// the assertions on the trace, kept in one place so that the two backends are
// held to the same check.
#pragma once
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "schedule_check.h"

namespace vksim::testing {

// One run: the wait strategy and the sync mode of frame 0.
struct ScheduleCase {
  const char* strategy;
  const char* startMode;
};

// How gtest prints a case: "poll from timeline".
inline void PrintTo(const ScheduleCase& value, std::ostream* out) {
  *out << value.strategy << " from " << value.startMode;
}

// The cases both backends run.
inline auto scheduleCases() {
  return ::testing::Values(ScheduleCase{"poll", "timeline"}, ScheduleCase{"enqueue", "timeline"},
                           ScheduleCase{"enqueue", "binary"});
}

// A case's test name: "poll_from_timeline".
inline std::string scheduleCaseName(const ::testing::TestParamInfo<ScheduleCase>& testInfo) {
  return std::string(testInfo.param.strategy) + "_from_" + testInfo.param.startMode;
}

// Asserts (gtest) that the trace of a 200-frame run switching mode every frame
// from `startMode` follows the rule (checkSchedule) on every submission, and
// that it switched at least 99 times each way (so the rule was checked across
// the switches, not only within one mode).
inline void expectSwitchingEveryFrameFollowsTheRule(const nlohmann::json& trace, const char* startMode,
                                                    bool acquiresFromExternal = false,
                                                    bool narrowTransferStages = false) {
  const std::vector<std::string> failures =
      checkSchedule(trace, ScheduleRun{200, startMode, 1, acquiresFromExternal, narrowTransferStages});
  EXPECT_TRUE(failures.empty()) << joinLines(failures);
  const SwitchCounts switches = countSwitches(trace);
  EXPECT_GE(switches.toBinary, 99u);
  EXPECT_GE(switches.toTimeline, 99u);
}

}  // namespace vksim::testing
