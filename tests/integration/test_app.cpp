// The app as a user runs it, on lavapipe, with the validation layer on
// (ctest sets VKSIM_VALIDATION=1 for these tests).
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "app_runner.h"

namespace vksim::testing {
namespace {

struct RunCase {
  const char* model;
  const char* sync;
};

class HeadlessRun : public ::testing::TestWithParam<RunCase> {};

TEST_P(HeadlessRun, RunsEveryFrameWithTheValidationLayerSilent) {
  const auto [model, sync] = GetParam();
  const AppResult result = runApp({"--headless", "--backend", "cpu", "--sim", model, "--sync", sync, "--grid", "96",
                                   "--frames", "60", "--size", "320x240"},
                                  kValidation);
  expectCleanRun(result);
  EXPECT_EQ(summaryField(result.out, "frames"), "60");
  EXPECT_EQ(summaryField(result.out, "sync"), sync);
  EXPECT_EQ(summaryField(result.out, "model"), model);
  EXPECT_EQ(summaryField(result.out, "backend"), "cpu");
  // Timeline: the counter reads 2N after N frames. Binary: it never moves.
  EXPECT_EQ(summaryField(result.out, "timeline_value"), std::string(sync) == "timeline" ? "120" : "0");
}

INSTANTIATE_TEST_SUITE_P(ModelsAndSyncModes, HeadlessRun,
                         ::testing::Values(RunCase{"ripple", "timeline"}, RunCase{"ripple", "binary"},
                                           RunCase{"sinewave", "timeline"}, RunCase{"sinewave", "binary"}),
                         [](const auto& testInfo) { return std::string(testInfo.param.model) + "_" + testInfo.param.sync; });

TEST(HeadlessRun, CounterIsTwoNForOtherFrameCounts) {
  for (int frames : {1, 7, 250}) {
    const AppResult result = runApp({"--headless", "--backend", "cpu", "--grid", "32", "--frames",
                                     std::to_string(frames), "--size", "64x64"},
                                    kValidation);
    expectCleanRun(result);
    EXPECT_EQ(summaryField(result.out, "frames"), std::to_string(frames));
    EXPECT_EQ(summaryField(result.out, "timeline_value"), std::to_string(2 * frames));
  }
}

TEST(HeadlessRun, SwitchingEveryFrameEndsInTheSameVerticesAsNotSwitching) {
  const std::string dir = makeTempDir("switch");
  const std::vector<std::string> common{"--headless", "--backend", "cpu", "--sim", "ripple", "--grid", "80",
                                        "--frames", "200", "--size", "128x128", "--seed", "5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const AppResult steady = runApp(with({"--dump-vertices", dir + "/steady.bin"}), kValidation);
  expectCleanRun(steady);
  const AppResult switching = runApp(with({"--switch-sync-every", "1", "--dump-vertices", dir + "/switch.bin"}),
                                     kValidation);
  expectCleanRun(switching);
  EXPECT_EQ(summaryField(switching.out, "switches"), "200");
  EXPECT_EQ(summaryField(switching.out, "frames"), "200");
  const std::string a = readFile(dir + "/steady.bin"), b = readFile(dir + "/switch.bin");
  ASSERT_EQ(a.size(), size_t(80 * 80 * 32));
  EXPECT_TRUE(a == b) << "vertex dumps differ";
  // And the dump is no constant field: the ripple moved.
  EXPECT_NE(a.substr(0, 32 * 80), a.substr(32 * 80 * 40, 32 * 80));
}

// Synchronization validation (hazards between submissions, semaphores and
// barriers) stays silent too, in every sync mode and on the copy path, with
// --dump-vertices reading the buffer after the drain. Render 0 waits on the
// initial write's simDone in each; a timeline run still ends at 2N.
TEST(HeadlessRun, SynchronizationValidationStaysSilentInEveryMode) {
  const std::string dir = makeTempDir("syncval");
  const std::vector<std::vector<std::string>> modes{{"--sync", "timeline"},
                                                    {"--sync", "binary"},
                                                    {"--switch-sync-every", "1"},
                                                    {"--transfer", "copy"}};
  for (const auto& mode : modes) {
    std::vector<std::string> args{"--headless", "--backend", "cpu", "--grid", "48", "--frames", "40",
                                  "--size", "96x96", "--dump-vertices", dir + "/vertices.bin"};
    args.insert(args.end(), mode.begin(), mode.end());
    const AppResult result = runApp(
        args, {"VKSIM_VALIDATION=1", "VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT"});
    expectCleanRun(result);
    EXPECT_EQ(result.err.find("vulkan "), std::string::npos) << mode[1] << ": " << result.err;
    if (mode[1] == "timeline") {
      EXPECT_EQ(summaryField(result.out, "timeline_value"), "80");
    }
    EXPECT_EQ(readFile(dir + "/vertices.bin").size(), size_t(48 * 48 * 32)) << mode[1];
  }
}

// Counts pixels that differ from the clear colour (0.06, 0.07, 0.09).
struct ImageCheck {
  int width = 0, height = 0;
  double meshFraction = 0;
  bool cornersAreBackground = false;
};

ImageCheck checkScreenshot(const std::string& path) {
  ImageCheck check;
  int channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &check.width, &check.height, &channels, 4);
  if (!pixels) return check;
  auto isBackground = [&](int x, int y) {
    const unsigned char* p = pixels + 4 * (size_t(y) * check.width + x);
    return std::abs(p[0] - 15) <= 3 && std::abs(p[1] - 18) <= 3 && std::abs(p[2] - 23) <= 3;
  };
  size_t mesh = 0;
  for (int y = 0; y < check.height; ++y)
    for (int x = 0; x < check.width; ++x) mesh += !isBackground(x, y);
  check.meshFraction = double(mesh) / (double(check.width) * check.height);
  check.cornersAreBackground = isBackground(0, 0) && isBackground(check.width - 1, 0) &&
                               isBackground(0, check.height - 1) && isBackground(check.width - 1, check.height - 1);
  stbi_image_free(pixels);
  return check;
}

TEST(Screenshot, ShowsTheMeshOverTheBackground) {
  const std::string dir = makeTempDir("shot");
  for (const char* sync : {"timeline", "binary"}) {
    const std::string path = dir + "/" + sync + ".png";
    const AppResult result = runApp({"--headless", "--backend", "cpu", "--sync", sync, "--grid", "128", "--frames",
                                     "40", "--size", "400x300", "--screenshot", path},
                                    kValidation);
    expectCleanRun(result);
    const ImageCheck check = checkScreenshot(path);
    EXPECT_EQ(check.width, 400);
    EXPECT_EQ(check.height, 300);
    EXPECT_GT(check.meshFraction, 0.2) << sync;  // the grid fills a good part of the view
    EXPECT_LT(check.meshFraction, 0.95) << sync;
    EXPECT_TRUE(check.cornersAreBackground) << sync;
  }
}

struct Rejected {
  std::vector<std::string> args;
  int exitCode;
  const char* mentions;
};

class BadInput : public ::testing::TestWithParam<Rejected> {};

TEST_P(BadInput, ExitsWithItsCodeAndOneLineAndWritesNothing) {
  const std::string dir = makeTempDir("bad");
  std::vector<std::string> args = GetParam().args;
  args.insert(args.end(), {"--screenshot", dir + "/never.png", "--headless", "--frames", "3"});
  const AppResult result = runApp(args, kValidation);
  EXPECT_EQ(result.exitCode, GetParam().exitCode) << result.out << result.err;
  EXPECT_NE(result.err.find(GetParam().mentions), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "one line: " << result.err;
  EXPECT_FALSE(fileExists(dir + "/never.png"));
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, BadInput,
    ::testing::Values(Rejected{{"--grid", "0"}, 2, "--grid"}, Rejected{{"--grid", "9000"}, 2, "--grid"},
                      Rejected{{"--sync", "fast"}, 2, "--sync"}, Rejected{{"--frames", "-1"}, 2, "--frames"},
                      Rejected{{"--backend", "cuda"}, 3, "CUDA"}, Rejected{{"--device", "99"}, 3, "--device"}));

TEST(BadInput, UnwritableScreenshotPathExitsTwo) {
  const AppResult result = runApp({"--headless", "--frames", "3", "--screenshot", "/proc/no/such/dir/x.png"});
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--screenshot"), std::string::npos) << result.err;
  EXPECT_FALSE(fileExists("/proc/no/such/dir/x.png"));
}

TEST(Devices, ListDevicesNamesLavapipeAndTheMissingCudaDevice) {
  const AppResult result = runApp({"--list-devices"});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("llvmpipe"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("CUDA devices:"), std::string::npos);
  EXPECT_NE(result.out.find("UUID"), std::string::npos);
}

TEST(Devices, AutoFallsBackToCpuAndSaysWhy) {
  const AppResult result = runApp({"--headless", "--frames", "2", "--grid", "16", "--size", "64x64"}, kValidation);
  expectCleanRun(result);
  EXPECT_NE(result.out.find("backend auto -> cpu"), std::string::npos) << result.out;
}

TEST(Windowing, WithoutADisplayTheAppRunsHeadlessAndSaysSo) {
  const AppResult result = runApp({"--frames", "3", "--grid", "16", "--size", "64x64"},
                                  {"VKSIM_VALIDATION=1", "DISPLAY=", "WAYLAND_DISPLAY="});
  expectCleanRun(result);
  EXPECT_NE(result.out.find("running headless"), std::string::npos) << result.out;
}

TEST(Windowing, OpensAWindowUnderXvfbAndRendersTheMesh) {
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  ASSERT_TRUE(display && *display) << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY";
  const std::string dir = makeTempDir("window");
  const AppResult result = runApp({"--frames", "30", "--grid", "128", "--size", "480x320", "--vsync", "off",
                                   "--screenshot", dir + "/window.png"},
                                  {"VKSIM_VALIDATION=1", std::string("DISPLAY=") + display});
  expectCleanRun(result);
  EXPECT_NE(result.out.find("in a window"), std::string::npos) << result.out;
  const ImageCheck check = checkScreenshot(dir + "/window.png");
  EXPECT_EQ(check.width, 480);
  EXPECT_EQ(check.height, 320);
  EXPECT_GT(check.meshFraction, 0.2);
  EXPECT_TRUE(check.cornersAreBackground);
}

}  // namespace
}  // namespace vksim::testing
