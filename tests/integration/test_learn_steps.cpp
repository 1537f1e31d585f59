// The learn/ steps without a CUDA device (here: lavapipe, no NVIDIA driver):
// each built step exits 3 with exactly one line, on stderr, naming what is
// missing. With a CUDA device the steps run for real in
// tests/gpu/test_learn_steps.cpp, and this test is skipped.
#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

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

// Steps 10 and 11: built, and without CUDA each exits 3 with one line; step 11
// both headless and in a window (under the test display, where the window and
// its surface are made before CUDA is found missing).
TEST(LearnSteps, StepsTenAndElevenAreBuilt) {
  EXPECT_FALSE(laterLearnStep(10).empty()) << "learn_10_* not in " << learnDirectory();
  EXPECT_FALSE(laterLearnStep(11).empty()) << "learn_11_* not in " << learnDirectory();
}

void expectMissingCuda(const std::string& program, int number, const std::vector<std::string>& args,
                       const std::vector<std::string>& env = {}) {
  SCOPED_TRACE(program);
  const AppResult result = runApp(args, env, 60, program);
  EXPECT_EQ(result.exitCode, 3) << result.out << result.err;
  EXPECT_EQ(result.out, "");
  const std::vector<std::string> lines = linesOf(result.err);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  const std::string prefix = "learn " + std::to_string(number) + ": no CUDA device (cuda";
  EXPECT_EQ(lines[0].rfind(prefix, 0), 0u) << lines[0];
}

TEST(LearnSteps, WithoutCudaStepsTenAndElevenExitThreeWithOneLine) {
  if (!listCudaDevices().devices.empty()) GTEST_SKIP() << "a CUDA device is present: tests/gpu/test_learn_steps.cpp runs them";
  ASSERT_FALSE(laterLearnStep(10).empty());
  ASSERT_FALSE(laterLearnStep(11).empty());
  expectMissingCuda(laterLearnStep(10), 10, {});
  expectMissingCuda(laterLearnStep(10), 10, {"--break", "reuse"});
  expectMissingCuda(laterLearnStep(11), 11, {"--headless"});
  expectMissingCuda(laterLearnStep(11), 11, {"--headless", "--break", "switch"});
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  if (display == nullptr || *display == '\0') GTEST_SKIP() << "no VKSIM_TEST_DISPLAY: step 11's window not tried";
  expectMissingCuda(laterLearnStep(11), 11, {}, {std::string("DISPLAY=") + display});
}

// --break list: one "name: what it breaks" line per variant, exit 0, before
// anything needs a GPU; an unknown name: exit 2 with one line.
TEST(LearnSteps, StepsTenAndElevenListTheirBrokenVariants) {
  const std::vector<std::pair<int, std::string>> variants = {{10, "reuse"}, {11, "switch"}};
  for (const auto& [number, name] : variants) {
    const std::string program = laterLearnStep(number);
    ASSERT_FALSE(program.empty()) << number;
    const AppResult listed = runApp({"--break", "list"}, {}, 60, program);
    EXPECT_EQ(listed.exitCode, 0) << listed.err;
    const std::vector<std::string> lines = linesOf(listed.out);
    ASSERT_EQ(lines.size(), 1u) << listed.out;
    EXPECT_EQ(lines[0].rfind(name + ": ", 0), 0u) << lines[0];
    const AppResult unknown = runApp({"--break", "no-such-rule"}, {}, 60, program);
    EXPECT_EQ(unknown.exitCode, 2) << unknown.out << unknown.err;
    EXPECT_EQ(linesOf(unknown.err).size(), 1u) << unknown.err;
  }
}

}  // namespace
}  // namespace vksim::testing
