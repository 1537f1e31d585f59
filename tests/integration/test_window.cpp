// The interactive side under Xvfb on lavapipe, driven by --input-script (keys,
// mouse and resizes delivered through the app's GLFW callbacks), with the
// validation layer on: the overlay, mode and grid switches, resizes, the
// camera, ripple drops, Escape, and headless parity of --overlay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "app/ui/camera.h"
#include "app_runner.h"
#include "image_file.h"
#include "shared_layout.h"

namespace vksim::testing {
namespace {

std::string testDisplay() {
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  return display ? display : "";
}

#define REQUIRE_DISPLAY()                    \
  const std::string display = testDisplay(); \
  ASSERT_FALSE(display.empty()) << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY"

std::vector<std::string> windowEnvironment(const std::string& display) {
  return {"VKSIM_VALIDATION=1", "DISPLAY=" + display};
}

std::string writeScript(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The fraction of pixels in [x0, x1) x [y0, y1) whose colours differ by more
// than `threshold` in some channel.
double differingFraction(const Image& a, const Image& b, int x0, int y0, int x1, int y1, int threshold = 24) {
  size_t differing = 0, total = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const size_t i = 4 * (size_t(y) * size_t(a.width) + size_t(x));
      bool differs = false;
      for (int c = 0; c < 3; ++c) differs |= std::abs(int(a.rgba[i + c]) - int(b.rgba[i + c])) > threshold;
      differing += differs;
      ++total;
    }
  return total ? double(differing) / double(total) : 0.0;
}

TEST(Window, OverlayIsVisibleAndF1HidesIt) {
  REQUIRE_DISPLAY();
  const std::string dir = makeTempDir("overlay-f1");
  const std::string script = writeScript(dir, "f1.txt",
                                         "at 5 screenshot " + dir +
                                             "/on.png\n"
                                             "at 6 key F1\n"
                                             "at 9 screenshot " +
                                             dir + "/off.png\n");
  const AppResult result = runApp({"--backend", "cpu", "--sim", "sinewave", "--grid", "64", "--size",
                                   "640x480", "--vsync", "off", "--frames", "11", "--input-script", script},
                                  windowEnvironment(display));
  expectCleanRun(result);
  const Image on = loadImage(dir + "/on.png"), off = loadImage(dir + "/off.png");
  ASSERT_EQ(on.width, 640);
  ASSERT_EQ(off.width, 640);
  ASSERT_EQ(on.height, 480);
  // The overlay's window sits at the top left: its title bar and text make
  // most of that region differ; far right the mesh and background only move
  // with the sinewave.
  EXPECT_GT(differingFraction(on, off, 10, 10, 400, 120), 0.3);
  EXPECT_LT(differingFraction(on, off, 560, 0, 640, 480), 0.1);
}

TEST(Window, ScriptedSwitchesGridChangesAndResizesKeepValidationSilentAndTheVertices) {
  REQUIRE_DISPLAY();
  const std::string dir = makeTempDir("sequence");
  // 50 mode switches (B and T in turn), 5 grid changes (] and [), 20 window
  // resizes, a camera drag and a zoom: none may change what the simulation
  // computes, only when it restarts (every grid change starts at step 0).
  std::string text = "# the window test's scripted sequence\n";
  for (int i = 0; i < 50; ++i)
    text += "at " + std::to_string(2 + 2 * i) + (i % 2 == 0 ? " key B\n" : " key T\n");
  const char* gridKeys[] = {"RIGHT_BRACKET", "RIGHT_BRACKET", "LEFT_BRACKET", "RIGHT_BRACKET",
                            "LEFT_BRACKET"};
  for (int i = 0; i < 5; ++i) text += "at " + std::to_string(25 * (i + 1)) + " key " + gridKeys[i] + "\n";
  const int sizes[][2] = {{640, 400}, {400, 300}, {560, 360}, {480, 320}, {720, 420}};
  for (int i = 0; i < 20; ++i)
    text += "at " + std::to_string(7 + 6 * i) + " resize " + std::to_string(sizes[i % 5][0]) + " " +
            std::to_string(sizes[i % 5][1]) + "\n";
  text += "at 130 drag 300 200 200 150\nat 142 scroll 2\n";
  text += "at 190 screenshot " + dir + "/final.png\n";
  const std::string script = writeScript(dir, "sequence.txt", text);

  const AppResult windowed = runApp(
      {"--backend", "cpu", "--sim", "ripple", "--grid", "64", "--seed", "7", "--size", "480x320", "--vsync",
       "off", "--frames", "200", "--input-script", script, "--dump-vertices", dir + "/windowed.bin"},
      windowEnvironment(display), 300);
  expectCleanRun(windowed);
  EXPECT_NE(windowed.out.find("in a window"), std::string::npos) << windowed.out;
  EXPECT_EQ(summaryField(windowed.out, "frames"), "200");
  EXPECT_EQ(summaryField(windowed.out, "switches"), "50");
  EXPECT_EQ(summaryField(windowed.out, "grid"), "128");  // 64 -> 128 -> 256 -> 128 -> 256 -> 128
  EXPECT_EQ(summaryField(windowed.out, "sync"), "timeline");
  const std::string steps = summaryField(windowed.out, "steps");
  EXPECT_EQ(steps, "75");  // frames 125..199 since the last rebuild
  const Image last = loadImage(dir + "/final.png");
  EXPECT_EQ(last.width, sizes[19 % 5][0]);  // the last resize reached the swapchain
  EXPECT_EQ(last.height, sizes[19 % 5][1]);

  const AppResult headless =
      runApp({"--headless", "--backend", "cpu", "--sim", "ripple", "--grid", "128", "--seed", "7", "--size",
              "128x128", "--frames", steps, "--dump-vertices", dir + "/headless.bin"},
             {"VKSIM_VALIDATION=1"});
  expectCleanRun(headless);
  const std::string a = readFile(dir + "/windowed.bin"), b = readFile(dir + "/headless.bin");
  ASSERT_EQ(a.size(), size_t(128 * 128 * sizeof(Vertex)));
  EXPECT_TRUE(a == b) << "the windowed run's vertices differ from a headless run of the same steps";
}

TEST(Window, EscapeQuitsCleanly) {
  REQUIRE_DISPLAY();
  const std::string dir = makeTempDir("escape");
  const std::string script = writeScript(dir, "escape.txt", "at 10 key ESCAPE\n");
  // --frames 0: until the window closes, which only Escape can do here.
  const AppResult result = runApp({"--backend", "cpu", "--grid", "32", "--size", "320x240", "--vsync", "off",
                                   "--frames", "0", "--input-script", script},
                                  windowEnvironment(display), 60);
  expectCleanRun(result);
  const int frames = std::atoi(summaryField(result.out, "frames").c_str());
  EXPECT_GE(frames, 11);
  EXPECT_LE(frames, 12);
}

TEST(Window, RightClickDropsARippleWhereTheCursorPointsOnTheMesh) {
  REQUIRE_DISPLAY();
  const std::string dir = makeTempDir("drop");
  // No automatic drops: the clicked drop is the only difference between a
  // run with the click and one without (the initial state has a bump of its own).
  std::ofstream(dir + "/still.json") << R"({"name": "still", "model": "ripple", "grid": 96, "dropInterval": 0,
    "dropRadius": 0.05, "dropAmplitude": 0.08})";
  const double cursorX = 330, cursorY = 190;
  auto run = [&](const std::string& name, bool click) {
    // F1 first: over the overlay's window a click belongs to ImGui.
    std::string text = "at 1 key F1\n";
    if (click)
      text += "at 3 click " + std::to_string(int(cursorX)) + " " + std::to_string(int(cursorY)) + " right\n";
    const std::string script = writeScript(dir, name + ".txt", text);
    const AppResult result =
        runApp({"--backend", "cpu", "--scene", dir + "/still.json", "--size", "480x320", "--vsync", "off",
                "--frames", "8", "--input-script", script, "--dump-vertices", dir + "/" + name + ".bin"},
               windowEnvironment(display));
    expectCleanRun(result);
    std::vector<Vertex> vertices(96 * 96);
    const std::string bytes = readFile(dir + "/" + name + ".bin");
    EXPECT_EQ(bytes.size(), vertices.size() * sizeof(Vertex));
    std::memcpy(vertices.data(), bytes.data(), std::min(bytes.size(), vertices.size() * sizeof(Vertex)));
    return vertices;
  };
  const std::vector<Vertex> clicked = run("clicked", true), plain = run("plain", false);
  size_t strongest = 0;
  float largest = 0.0f;
  for (size_t i = 0; i < clicked.size(); ++i) {
    const float difference = std::abs(clicked[i].position.y - plain[i].position.y);
    if (difference > largest) {
      largest = difference;
      strongest = i;
    }
  }
  ASSERT_GT(largest, 0.01f) << "no drop landed";
  const std::optional<GroundPoint> expected =
      groundPointUnderCursor(OrbitCamera{}, cursorX, cursorY, 480, 320);
  ASSERT_TRUE(expected);
  // Within three grid cells (2/95 world units each) of the point under the cursor.
  EXPECT_NEAR(clicked[strongest].position.x, expected->x, 0.07f);
  EXPECT_NEAR(clicked[strongest].position.z, expected->z, 0.07f);
}

TEST(HeadlessOverlay, AppearsOnlyWithTheFlagAndOnlyInItsRegion) {
  const std::string dir = makeTempDir("headless-overlay");
  const std::vector<std::string> common{"--headless", "--backend", "cpu", "--sim",  "ripple", "--grid",
                                        "96",         "--frames",  "20",  "--size", "640x480"};
  auto run = [&](const std::string& name, bool overlay) {
    std::vector<std::string> args = common;
    if (overlay) args.push_back("--overlay");
    args.insert(args.end(),
                {"--screenshot", dir + "/" + name + ".png", "--dump-vertices", dir + "/" + name + ".bin"});
    return runApp(args, {"VKSIM_VALIDATION=1", "DISPLAY="});
  };
  const AppResult plain = run("plain", false);
  expectCleanRun(plain);
  const AppResult plainAgain = run("again", false);
  expectCleanRun(plainAgain);
  const AppResult overlay = run("overlay", true);
  expectCleanRun(overlay);
  const Image a = loadImage(dir + "/plain.png"), b = loadImage(dir + "/again.png"),
              c = loadImage(dir + "/overlay.png");
  ASSERT_EQ(c.width, 640);
  ASSERT_EQ(c.height, 480);
  EXPECT_TRUE(a.rgba == b.rgba) << "headless runs without --overlay are not reproducible";
  EXPECT_GT(differingFraction(a, c, 10, 10, 400, 120), 0.3) << "no overlay in the --overlay screenshot";
  // Right of the overlay's window (420 pixels wide at x = 8) nothing changes:
  // the same simulation state, drawn the same way.
  EXPECT_EQ(differingFraction(a, c, 440, 0, 640, 480, 0), 0.0);
  EXPECT_TRUE(readFile(dir + "/plain.bin") == readFile(dir + "/overlay.bin"));
}

TEST(HeadlessOverlay, ScriptedKeysReachTheAppWithoutAWindow) {
  const std::string dir = makeTempDir("headless-keys");
  const std::string script =
      writeScript(dir, "keys.txt", "at 3 key B\nat 5 key RIGHT_BRACKET\nat 8 key F1\n");
  const AppResult result = runApp({"--headless", "--overlay", "--backend", "cpu", "--grid", "32", "--frames",
                                   "12", "--size", "320x240", "--input-script", script},
                                  {"VKSIM_VALIDATION=1", "DISPLAY="});
  expectCleanRun(result);
  EXPECT_EQ(summaryField(result.out, "sync"), "binary");
  EXPECT_EQ(summaryField(result.out, "switches"), "1");
  EXPECT_EQ(summaryField(result.out, "grid"), "64");
  EXPECT_EQ(summaryField(result.out, "steps"), "7");  // frames 5..11
}

struct BadLaunch {
  const char* name;
  std::vector<std::string> args;
  std::string fileContent;  // written to FILE, which replaces "FILE" in args
  const char* mentions;
};

class BadInteractiveInput : public ::testing::TestWithParam<BadLaunch> {};

TEST_P(BadInteractiveInput, IsOneLineAndExitCodeTwo) {
  const std::string dir = makeTempDir(std::string("bad-") + GetParam().name);
  std::vector<std::string> args = GetParam().args;
  const std::string file = dir + "/input.json";
  std::ofstream(file) << GetParam().fileContent;
  for (std::string& arg : args)
    if (arg == "FILE") arg = file;
  args.insert(args.end(), {"--headless", "--frames", "2"});
  const AppResult result = runApp(args, {"VKSIM_VALIDATION=1"});
  EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
  EXPECT_NE(result.err.find(GetParam().mentions), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "one line: " << result.err;
}

INSTANTIATE_TEST_SUITE_P(
    Inputs, BadInteractiveInput,
    ::testing::Values(
        BadLaunch{"unknown_scene", {"--scene", "no-such-scene"}, "", "unknown scene 'no-such-scene'"},
        BadLaunch{"scene_field",
                  {"--scene", "FILE"},
                  R"({"name": "input", "model": "ripple", "grid": 1})",
                  "field 'grid'"},
        BadLaunch{"scene_json", {"--scene", "FILE"}, "{\"name\": ", "input.json"},
        BadLaunch{"script_command",
                  {"--input-script", "FILE"},
                  "at 3 key F1\nat 4 jump\n",
                  "input.json:2: unknown command 'jump'"},
        BadLaunch{"script_key", {"--input-script", "FILE"}, "at 3 key HYPER\n", "unknown key 'HYPER'"}),
    [](const ::testing::TestParamInfo<BadLaunch>& launch) { return std::string(launch.param.name); });

}  // namespace
}  // namespace vksim::testing
