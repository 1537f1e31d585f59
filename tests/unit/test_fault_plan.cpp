// The fault plan of --inject-fault (sim/fault_plan.h): NAME[@FRAME] parsing as
// a pure function, when each fault applies, and the command line around it
// (bad names and frames are usage errors, one line, exit 2).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "app/cli.h"
#include "cli_parse.h"
#include "sim/fault_plan.h"

namespace vksim {
namespace {

TEST(FaultPlan, EveryNameParsesWithAndWithoutAFrame) {
  for (FaultKind kind : kAllFaultKinds) {
    const FaultParseResult bare = parseFault(toString(kind));
    ASSERT_TRUE(bare.ok) << toString(kind) << ": " << bare.error;
    EXPECT_EQ(bare.fault.kind, kind);
    EXPECT_EQ(bare.fault.frame, 0u);
    if (isStartupFault(kind)) continue;
    const FaultParseResult framed = parseFault(std::string(toString(kind)) + "@17");
    ASSERT_TRUE(framed.ok) << framed.error;
    EXPECT_EQ(framed.fault.kind, kind);
    EXPECT_EQ(framed.fault.frame, 17u);
  }
  const FaultParseResult upper = parseFault("SIM-Stalls@0");
  ASSERT_TRUE(upper.ok);
  EXPECT_EQ(upper.fault.kind, FaultKind::simStalls);
  const FaultParseResult largest = parseFault("sim-stalls@9223372036854775807");
  ASSERT_TRUE(largest.ok) << largest.error;
  EXPECT_EQ(largest.fault.frame, 9223372036854775807ull);
}

TEST(FaultPlan, BadTextIsOneSentenceNamingTheProblem) {
  struct Case {
    const char* text;
    const char* mentions;
  };
  const Case cases[] = {
      {"", "is not a fault"},
      {"sim-skips", "is not a fault"},
      {"@3", "is not a fault"},
      {"sim-stalls@", "whole number"},
      {"sim-stalls@-1", "whole number"},
      {"sim-stalls@+1", "whole number"},
      {"sim-stalls@ 1", "whole number"},
      {"sim-stalls@0x10", "whole number"},
      {"sim-stalls@1.5", "whole number"},
      {"sim-stalls@1@2", "whole number"},
      {"sim-stalls@9223372036854775808", "whole number"},
      {"sim-stalls@99999999999999999999", "whole number"},
      {"import-fails@3", "takes no @FRAME"},
      {"export-fails@0", "takes no @FRAME"},
  };
  for (const Case& c : cases) {
    const FaultParseResult result = parseFault(c.text);
    EXPECT_FALSE(result.ok) << c.text;
    EXPECT_NE(result.error.find(c.mentions), std::string::npos) << c.text << ": " << result.error;
    EXPECT_EQ(result.error.find('\n'), std::string::npos) << result.error;
  }
  // An unknown name lists the ones there are.
  EXPECT_NE(parseFault("nope").error.find("render-skips-signal"), std::string::npos);
}

TEST(FaultPlan, SkippedSignalsPersistFromTheirFrameAStallHappensOnce) {
  FaultPlan plan;
  plan.faults = {{FaultKind::simSkipsSignal, 4}, {FaultKind::simStalls, 9}, {FaultKind::renderSkipsSignal, 2}};
  EXPECT_FALSE(faultActive(plan, FaultKind::simSkipsSignal, 3));
  EXPECT_TRUE(faultActive(plan, FaultKind::simSkipsSignal, 4));
  EXPECT_TRUE(faultActive(plan, FaultKind::simSkipsSignal, 100));
  EXPECT_FALSE(faultActive(plan, FaultKind::renderSkipsSignal, 1));
  EXPECT_TRUE(faultActive(plan, FaultKind::renderSkipsSignal, 2));
  EXPECT_FALSE(faultActive(plan, FaultKind::simStalls, 8));
  EXPECT_TRUE(faultActive(plan, FaultKind::simStalls, 9));
  EXPECT_FALSE(faultActive(plan, FaultKind::simStalls, 10));
  EXPECT_FALSE(faultActive(plan, FaultKind::deviceLost, 50));
  EXPECT_FALSE(hasFault(plan, FaultKind::importFails));

  EXPECT_EQ(stepFaultAt(plan, 3), StepFault::none);
  EXPECT_EQ(stepFaultAt(plan, 4), StepFault::skipSignal);
  EXPECT_EQ(stepFaultAt(plan, 9), StepFault::stall);  // a stall wins over a skipped signal
  EXPECT_EQ(stepFaultAt(FaultPlan{}, 0), StepFault::none);

  FaultPlan startup;
  startup.faults = {{FaultKind::importFails, 0}};
  EXPECT_TRUE(hasFault(startup, FaultKind::importFails));
  EXPECT_TRUE(faultActive(startup, FaultKind::importFails, 12345));
}

TEST(FaultPlanCli, RepeatedOptionsMakeOnePlan) {
  const Result<Options> outcome =
      testing::parseArguments({"--inject-fault", "sim-skips-signal@5", "--inject-fault",
                               "render-skips-signal", "--inject-fault", "import-fails"});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  const auto& faults = outcome->faults.faults;
  ASSERT_EQ(faults.size(), 3u);
  EXPECT_EQ(faults[0].kind, FaultKind::simSkipsSignal);
  EXPECT_EQ(faults[0].frame, 5u);
  EXPECT_EQ(faults[1].kind, FaultKind::renderSkipsSignal);
  EXPECT_EQ(faults[1].frame, 0u);
  EXPECT_EQ(faults[2].kind, FaultKind::importFails);
  EXPECT_TRUE(testing::parseArguments({})->faults.faults.empty());
}

TEST(FaultPlanCli, BadFaultsAreUsageErrorsOfOneLine) {
  for (const char* bad : {"sim-skips", "sim-stalls@x", "sim-stalls@-2", "import-fails@1", "device-lost@"}) {
    const Result<Options> outcome = testing::parseArguments({"--inject-fault", bad});
    if (outcome) {
      ADD_FAILURE() << bad << " was accepted";
      continue;
    }
    EXPECT_EQ(outcome.error().exitCode, kExitUsage) << bad;
    ASSERT_FALSE(outcome.error().message.empty());
    EXPECT_EQ(outcome.error().message.find('\n'), outcome.error().message.size() - 1)
        << outcome.error().message;
    EXPECT_NE(outcome.error().message.find("--inject-fault"), std::string::npos) << outcome.error().message;
  }
}

TEST(WaitTimeout, EnvironmentValueIsWholeMillisecondsInRange) {
  EXPECT_EQ(parseWaitTimeoutMs("1"), 1'000'000u);
  EXPECT_EQ(parseWaitTimeoutMs("750"), 750'000'000u);
  EXPECT_EQ(parseWaitTimeoutMs("3600000"), 3'600'000'000'000u);
  for (const char* bad : {"", "0", "-5", "1.5", "5s", " 5", "3600001", "99999999999999999999"}) {
    const Result<uint64_t> parsed = parseWaitTimeoutMs(bad);
    ASSERT_FALSE(parsed) << bad;
    EXPECT_NE(parsed.error().message.find("milliseconds"), std::string::npos) << parsed.error().message;
  }
}

TEST(WaitTimeout, BadEnvironmentValueIsAUsageError) {
  const char* saved = std::getenv(kWaitTimeoutVariable);
  const std::string restore = saved ? saved : "";
  setenv(kWaitTimeoutVariable, "soon", 1);
  const Result<Options> outcome = testing::parseArguments({"--headless"});
  if (saved)
    setenv(kWaitTimeoutVariable, restore.c_str(), 1);
  else
    unsetenv(kWaitTimeoutVariable);
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().exitCode, kExitUsage);
  EXPECT_NE(outcome.error().message.find(kWaitTimeoutVariable), std::string::npos) << outcome.error().message;
}

}  // namespace
}  // namespace vksim
