// The learn/ steps on a CUDA device: each built step, run with
// VKSIM_VALIDATION=1 (validation layer and synchronization validation on),
// exits 0 with its "step N: ok:" line and its counts, and the layer says
// nothing. Without a CUDA device: skipped (tests/integration/test_learn_steps.cpp
// checks exit 3 there), or failed with VKSIM_REQUIRE_CUDA=1.
#include <gtest/gtest.h>

#include <regex>

#include "gpu_environment.h"
#include "learn_steps.h"

namespace vksim::testing {
namespace {

// What each step's last line says, counts included. Steps 6-9 are held to
// the common form until their own pattern is added here.
std::string okPattern(int number) {
  switch (number) {
    case 1: return R"(step 1: ok: Vulkan device \d+ is CUDA device \d+ \(UUID equal, device group of 1, NVIDIA proprietary driver, compute mode not prohibited; \d+ Vulkan and \d+ CUDA devices looked at\))";
    case 2: return R"(step 2: ok: 1000003 values written by CUDA read back by Vulkan; imported \d+ bytes \(allocation\) for a 4000012-byte buffer, (not )?dedicated)";
    case 3: return R"(step 3: ok: 16 rounds, 1048576 values checked; 2 binary semaphores, each signalled and waited 16 times, every wait submitted after its signal)";
    case 4: return R"(step 4: ok: 16 rounds, 1048576 values checked; timeline at 32 = 2 x 16 rounds)";
    case 5: return R"(step 5: ok: 16 rounds, 1048576 values checked; 16 acquires and 15 releases; timeline at 32; synchronization validation silent)";
    default: return "step " + std::to_string(number) + R"(: ok: .*\d.*)";
  }
}

TEST(LearnStepsGpu, EachStepRunsCleanUnderValidation) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  int ran = 0;
  for (const LearnStep& step : learnSteps()) {
    if (step.path.empty()) {
      EXPECT_GT(step.number, 5) << "step " << step.number << " not built in " << learnDirectory();
      continue;
    }
    SCOPED_TRACE(step.path);
    const AppResult result = runApp({}, {"VKSIM_VALIDATION=1"}, 120, step.path);
    ++ran;
    EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
    const std::vector<std::string> lines = linesOf(result.out);
    ASSERT_FALSE(lines.empty()) << result.err;
    EXPECT_TRUE(std::regex_match(lines.back(), std::regex(okPattern(step.number)))) << lines.back();
    EXPECT_EQ(result.err.find("VUID"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("Validation"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("validation"), std::string::npos) << result.err;
  }
  EXPECT_GE(ran, 5);
}

}  // namespace
}  // namespace vksim::testing
