// The learn/ steps without a CUDA device (here: lavapipe, no NVIDIA driver):
// each built step exits 3 with exactly one line, on stderr, naming what is
// missing, and so does each broken variant. With a CUDA device the steps and
// variants run for real in tests/gpu/test_learn_steps.cpp, and those tests
// are skipped here. `--break list` and a bad name need no device at all.
#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

#include "app_runner.h"
#include "learn_steps.h"
#include "sim/cuda/cuda_simulation.h"

namespace vksim::testing {
namespace {

TEST(LearnSteps, EveryStepIsBuilt) {
  for (const LearnStep& step : learnSteps())
    EXPECT_FALSE(step.path.empty()) << "step " << step.number << " not in " << learnDirectory();
  EXPECT_EQ(learnSteps().size(), static_cast<size_t>(kLearnStepCount));
}

// What `--break list` prints is learn_steps.h's list, in order, for every
// step: a variant the tests do not know, or one the step does not offer, fails.
TEST(LearnSteps, BreakListNamesEachStepsVariants) {
  const std::vector<BrokenVariant> variants = brokenVariants();
  for (const LearnStep& step : learnSteps()) {
    if (step.path.empty()) continue;  // EveryStepIsBuilt reports it
    SCOPED_TRACE(step.path);
    const AppResult result = runApp({"--break", "list"}, {}, 60, step.path);
    EXPECT_EQ(result.exitCode, 0) << result.err;
    std::vector<std::string> expected, listed;
    for (const BrokenVariant& variant : variants)
      if (variant.step == step.number) expected.push_back(variant.name);
    for (const std::string& line : linesOf(result.out)) listed.push_back(line.substr(0, line.find(':')));
    EXPECT_FALSE(listed.empty()) << "step " << step.number << " offers no broken variant";
    EXPECT_EQ(listed, expected);
  }
}

TEST(LearnSteps, AnUnknownVariantIsAUsageError) {
  const LearnStep step = learnSteps().front();
  ASSERT_FALSE(step.path.empty());
  const AppResult result = runApp({"--break", "no-such-rule"}, {}, 60, step.path);
  EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
  EXPECT_EQ(result.err, "learn 01: no broken variant 'no-such-rule' (--break list names them)\n");
}

// An argument a step does not take is a usage error, before anything needs a
// GPU: steps 1-5, 8 and 9 take none, 6 and 7 one (the PNG's path), step 10
// only --draw-repeats N.
TEST(LearnSteps, AnArgumentTheStepDoesNotTakeIsAUsageError) {
  const std::vector<LearnStep> steps = learnSteps();
  for (const LearnStep& step : steps) {
    if (step.path.empty()) continue;
    const bool takesPng = step.number == 6 || step.number == 7;
    const std::vector<std::string> args = takesPng ? std::vector<std::string>{"a.png", "b.png"}
                                                   : std::vector<std::string>{"stray"};
    SCOPED_TRACE(step.path);
    const AppResult result = runApp(args, {}, 60, step.path);
    EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
    ASSERT_EQ(linesOf(result.err).size(), 1u) << result.err;
    EXPECT_NE(result.err.find("usage: [--break NAME|list]"), std::string::npos) << result.err;
  }
  const std::string ten = laterLearnStep(10);
  ASSERT_FALSE(ten.empty());
  const AppResult result = runApp({"--draw-repeatz", "5"}, {}, 60, ten);
  EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
  EXPECT_EQ(linesOf(result.err).size(), 1u) << result.err;
}

TEST(LearnSteps, WithoutCudaEachBrokenVariantExitsThreeWithOneLine) {
  if (!listCudaDevices().devices.empty()) GTEST_SKIP() << "a CUDA device is present: tests/gpu runs the variants";
  const std::vector<LearnStep> steps = learnSteps();
  for (const BrokenVariant& variant : brokenVariants()) {
    const LearnStep& step = steps.at(variant.step - 1);
    if (step.path.empty()) continue;
    SCOPED_TRACE(step.path + " --break " + variant.name);
    const AppResult result = runApp({"--break", variant.name}, {}, 60, step.path);
    EXPECT_EQ(result.exitCode, 3) << result.out << result.err;
    EXPECT_EQ(linesOf(result.err).size(), 1u) << result.err;
    EXPECT_NE(result.out.find("BROKEN ON PURPOSE"), std::string::npos) << result.out;
  }
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
  EXPECT_EQ(ran, kLearnStepCount);
}

// Steps 10 and 11: built, and without CUDA each exits 3 with one line; step 11
// both headless and in a window (under the test display; the step finds CUDA
// missing while it pairs the devices, before it makes the window).
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
