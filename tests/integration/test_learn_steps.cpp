// The learn/ steps without a CUDA device (here: lavapipe, no NVIDIA driver):
// each built step exits 3 with exactly one line, on stderr, naming what is
// missing. With a CUDA device the steps run for real in
// tests/gpu/test_learn_steps.cpp, and this test is skipped.
#include <gtest/gtest.h>

#include "app_runner.h"
#include "learn_steps.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim::testing {
namespace {

TEST(LearnSteps, AllNineStepsAreBuilt) {
  for (const LearnStep& step : learnSteps())
    EXPECT_FALSE(step.path.empty()) << "step " << step.number << " not in " << learnDirectory();
  EXPECT_EQ(learnSteps().size(), 9u);
}

TEST(LearnSteps, WithoutCudaEachStepExitsThreeWithOneLine) {
  const CudaDeviceList cuda = listCudaDevices();
  if (!cuda.devices.empty()) GTEST_SKIP() << "a CUDA device is present: tests/gpu/test_learn_steps.cpp runs the steps";
  int ran = 0;
  for (const LearnStep& step : learnSteps()) {
    SCOPED_TRACE(step.path);
    const AppResult result = runApp({}, {}, 60, step.path);
    ++ran;
    EXPECT_EQ(result.exitCode, 3) << result.out << result.err;
    EXPECT_EQ(result.out, "");
    const std::vector<std::string> lines = linesOf(result.err);
    ASSERT_EQ(lines.size(), 1u) << result.err;
    const std::string prefix = "learn 0" + std::to_string(step.number) + ": no CUDA device (cuda";
    EXPECT_EQ(lines[0].rfind(prefix, 0), 0u) << lines[0];
  }
  EXPECT_EQ(ran, 9);
}

}  // namespace
}  // namespace vksim::testing
