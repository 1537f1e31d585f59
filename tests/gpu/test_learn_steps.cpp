// The learn/ steps on a CUDA device: each built step, run with
// VKSIM_VALIDATION=1 (validation layer and synchronization validation on),
// exits 0 with its "step N: ok:" line and its counts, and the layer says
// nothing; and each broken variant (`--break NAME`, learn_steps.h) fails
// as its page says: its exit code, its last line. Without a CUDA device: skipped (tests/integration/test_learn_steps.cpp
// checks exit 3 there), or failed with VKSIM_REQUIRE_CUDA=1.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "gpu_environment.h"
#include "learn_steps.h"

namespace vksim::testing {
namespace {

// What each step's last line says, counts included.
std::string okPattern(int number) {
  switch (number) {
    case 1: return R"(step 1: ok: Vulkan device \d+ is CUDA device \d+ \(UUID equal, device group of 1, NVIDIA proprietary driver, compute mode not prohibited; \d+ Vulkan and \d+ CUDA devices looked at\))";
    case 2: return R"(step 2: ok: 1000003 values written by CUDA read back by Vulkan; imported \d+ bytes \(allocation\) for a 4000012-byte buffer, (not )?dedicated)";
    case 3: return R"(step 3: ok: 16 rounds, 1048576 values checked; 2 binary semaphores, each signalled and waited 16 times, every wait submitted after its signal)";
    case 4: return R"(step 4: ok: 16 rounds, 1048576 values checked; timeline at 32 = 2 x 16 rounds)";
    case 5: return R"(step 5: ok: 16 rounds, 1048576 values checked; 16 acquires and 15 releases; timeline at 32; synchronization validation silent)";
    case 6: return R"(step 6: ok: 16 rounds, 64 triangles drawn each; 2048 pixels checked \(inside: this round's colour, behind: clear\); \S+ written; timeline at 32)";
    case 7: return R"(step 7: ok: 16 rounds, 7 levels written by CUDA and sampled by Vulkan each; 87376 texels checked; \S+ written)";
    case 8: return R"(step 8: ok: 16 rounds, 4194304 values written by CUDA into its own allocation and read by Vulkan through the fd; 1048576-byte buffer in a \d+-byte allocation \(granularity \d+\))";
    case 9: return R"(step 9: ok: 16 rounds, 1048576 values written by OpenCL \(.+\) read back by Vulkan; 2 binary semaphores, every wait after its signal; the full program: README.md, docs/interop-walkthrough.md)";
    default: return "no step " + std::to_string(number);
  }
}

TEST(LearnStepsGpu, EachStepRunsCleanUnderValidation) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  int ran = 0;
  for (const LearnStep& step : learnSteps()) {
    if (step.path.empty()) {
      ADD_FAILURE() << "step " << step.number << " not built in " << learnDirectory();
      continue;
    }
    SCOPED_TRACE(step.path);
    // Steps 6 and 7 write a PNG (argv[1]): into a folder of the test's own.
    std::vector<std::string> args;
    if (step.number == 6 || step.number == 7)
      args.push_back(makeTempDir("learn-step") + "/step0" + std::to_string(step.number) + ".png");
    const AppResult result = runApp(args, {"VKSIM_VALIDATION=1"}, 120, step.path);
    ++ran;
    EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
    const std::vector<std::string> lines = linesOf(result.out);
    ASSERT_FALSE(lines.empty()) << result.err;
    EXPECT_TRUE(std::regex_match(lines.back(), std::regex(okPattern(step.number)))) << lines.back();
    EXPECT_EQ(result.err.find("VUID"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("Validation"), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find("validation"), std::string::npos) << result.err;
  }
  EXPECT_EQ(ran, kLearnStepCount);
}

// A variant that passed would teach that the rule changes nothing: each must
// end with its exit code and its one line (a value, pixel or CUDA check, or
// the bounded fence wait), under the validation layer as the steps run.
TEST(LearnStepsGpu, EachBrokenVariantFailsAsItsPageSays) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::vector<LearnStep> steps = learnSteps();
  int ran = 0;
  for (const BrokenVariant& variant : brokenVariants()) {
    const LearnStep& step = steps.at(variant.step - 1);
    if (step.path.empty()) continue;  // EachStepRunsCleanUnderValidation reports it
    SCOPED_TRACE(step.path + " --break " + variant.name);
    std::vector<std::string> args{"--break", variant.name};
    if (step.number == 6 || step.number == 7)
      args.push_back(makeTempDir("learn-broken") + "/step0" + std::to_string(step.number) + ".png");
    const AppResult result = runApp(args, {"VKSIM_VALIDATION=1"}, 120, step.path);
    ++ran;
    EXPECT_EQ(result.exitCode, variant.exitCode) << result.out << result.err;
    const std::vector<std::string> lines = linesOf(result.err);
    ASSERT_FALSE(lines.empty()) << result.out;
    EXPECT_TRUE(std::regex_match(lines.back(), std::regex(variant.lastLine)))
        << lines.back() << "\n  does not match " << variant.lastLine;
  }
  EXPECT_EQ(ran, static_cast<int>(brokenVariants().size()));
}

// Steps 10 and 11 under validation: exit 0 with their ok lines; step 11
// headless, switching modes, writes its PNG. Then each broken variant fails
// as its page says: exit 4 with the check's one line.
AppResult runLaterStep(int number, const std::vector<std::string>& args, bool validation = true) {
  const std::string program = laterLearnStep(number);
  EXPECT_FALSE(program.empty()) << "step " << number << " not built in " << learnDirectory();
  std::vector<std::string> env;
  if (validation) env.push_back("VKSIM_VALIDATION=1");
  return runApp(args, env, 120, program);
}

void expectSilentOk(const AppResult& result, const std::string& pattern) {
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  const std::vector<std::string> lines = linesOf(result.out);
  ASSERT_FALSE(lines.empty()) << result.err;
  EXPECT_TRUE(std::regex_match(lines.back(), std::regex(pattern))) << lines.back();
  EXPECT_EQ(result.err.find("validation"), std::string::npos) << result.err;
}

TEST(LearnStepsGpu, StepTenRunsCleanUnderValidation) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  expectSilentOk(runLaterStep(10, {}),
                 R"(step 10: ok: 16 rounds in flight, one host wait; 2 vertex buffers, 16 acquires and 14 releases; 2048 pixels checked in 16 images; timeline at 33)");
}

TEST(LearnStepsGpu, StepElevenHeadlessSwitchesModesAndWritesItsPng) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string png = makeTempDir("learn-step11") + "/step11.png";
  // Frames 0-29 timeline, 30-59 binary, 60-89 timeline: the counter is 2 x 89 + 2.
  expectSilentOk(runLaterStep(11, {"--headless", "--frames", "90", "--switch-every", "30", "--out", png}),
                 R"(step 11: ok: 90 frames, 2 switches between timeline and binary at frame boundaries; timeline at 180; \S+ written)");
  EXPECT_TRUE(std::filesystem::file_size(png) > 0) << png;
}

// Step 11 whose last frame is binary (frames 0-29 timeline, 30-44 binary):
// CUDA's last signal is simDone, which only the drain waits for. Under
// validation it ends with its ok line and the layer silent, and its own check
// that every binary signal had one wait (S3, S18) holds: the layer cannot see
// CUDA's signals, so without the drain that check is what fails, with exit 4.
// The counter is CUDA's last timeline signal, 2 x 29 + 2.
TEST(LearnStepsGpu, StepElevenEndingInBinaryModeDrainsItsLastSignal) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string png = makeTempDir("learn-step11-binary") + "/step11.png";
  const AppResult result = runLaterStep(11, {"--headless", "--frames", "45", "--switch-every", "30", "--out", png});
  expectSilentOk(result,
                 R"(step 11: ok: 45 frames, 1 switches between timeline and binary at frame boundaries; timeline at 60; \S+ written)");
  EXPECT_EQ(result.err.find("VUID"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("Validation"), std::string::npos) << result.err;
  EXPECT_TRUE(std::filesystem::file_size(png) > 0) << png;
}

TEST(LearnStepsGpu, StepTenReuseIsCaughtByThePixelCheck) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const AppResult result = runLaterStep(10, {"--break", "reuse"}, false);
  EXPECT_EQ(result.exitCode, 4) << result.out << result.err;
  const std::vector<std::string> lines = linesOf(result.err);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  EXPECT_TRUE(std::regex_match(lines[0], std::regex(R"(learn 10: round \d+: .*)"))) << lines[0];
}

TEST(LearnStepsGpu, StepElevenMidFrameSwitchEndsInTheBoundedWait) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const AppResult result = runLaterStep(11, {"--headless", "--frames", "20", "--break", "switch"}, false);
  EXPECT_EQ(result.exitCode, 4) << result.out << result.err;
  const std::vector<std::string> lines = linesOf(result.err);
  ASSERT_EQ(lines.size(), 1u) << result.err;
  EXPECT_TRUE(std::regex_match(
      lines[0], std::regex(R"(learn 11: frame 4 did not finish within 10 s \(VK_TIMEOUT\): the schedule is stuck)")))
      << lines[0];
}

}  // namespace
}  // namespace vksim::testing
