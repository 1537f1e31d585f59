// Every interactive control driven through --input-script (docs/interactive.md)
// as a user would press or click it, each with an assertion on what it
// changed: the summary line, the vertices (compared with a plain run of the
// same number of steps), screenshots, the capture's columns, scene files.
// Headless runs (with --overlay where the overlay's widgets are clicked) and,
// for V, a window under Xvfb; all on lavapipe with the validation layer on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app_runner.h"
#include "shared_layout.h"

namespace vksim::testing {
namespace {

std::string writeScript(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name + ".txt";
  std::ofstream(path) << text;
  return path;
}

// A headless CPU run of `frames` frames playing `script`, its vertices dumped
// to DIR/NAME.bin. `extra` goes before the script (model, grid, --overlay...);
// 320x240 unless it names a --size.
AppResult runScripted(const std::string& dir, const std::string& name, const std::string& script,
                      const std::string& frames, std::vector<std::string> extra,
                      std::vector<std::string> environment = {}) {
  std::vector<std::string> args{"--headless", "--backend", "cpu", "--frames", frames};
  if (std::find(extra.begin(), extra.end(), "--size") == extra.end())
    args.insert(args.end(), {"--size", "320x240"});
  args.insert(args.end(), extra.begin(), extra.end());
  if (!script.empty()) args.insert(args.end(), {"--input-script", writeScript(dir, name, script)});
  args.insert(args.end(), {"--dump-vertices", dir + "/" + name + ".bin"});
  environment.push_back("VKSIM_VALIDATION=1");
  environment.push_back("DISPLAY=");
  return runApp(args, environment);
}

// A plain run (no script) of `steps` frames: the reference for a scripted run
// whose simulation took that many steps since its last (re)start.
std::string referenceVertices(const std::string& dir, const std::string& name, const std::string& steps,
                              const std::vector<std::string>& model) {
  const AppResult plain = runScripted(dir, name, "", steps, model);
  expectCleanRun(plain);
  return readFile(dir + "/" + name + ".bin");
}

const std::vector<std::string> kRipple{"--sim", "ripple", "--grid", "48", "--seed", "3"};
const std::vector<std::string> kRippleOverlay{"--sim", "ripple", "--grid", "48", "--seed", "3", "--overlay"};

// Whether DIR/NAME.bin holds the vertices of a plain kRipple run of `steps`
// steps (that reference run is made here, and checked clean).
bool isRippleAfterSteps(const std::string& dir, const std::string& name, const std::string& steps) {
  return readFile(dir + "/" + name + ".bin") == referenceVertices(dir, "steps" + steps, steps, kRipple);
}

TEST(Controls, KeyMSwitchesTheModelAndRestartsItAtStepZero) {
  const std::string dir = makeTempDir("controls-m");
  // Pressed at frame 4: the rebuild happens at that boundary, so frames 4..11
  // are 8 sinewave steps.
  const AppResult result = runScripted(dir, "m", "at 4 key M\n", "12", kRippleOverlay);
  expectCleanRun(result);
  EXPECT_EQ(summaryField(result.out, "model"), "sinewave");
  EXPECT_EQ(summaryField(result.out, "grid"), "48");
  EXPECT_EQ(summaryField(result.out, "steps"), "8");
  const std::string reference =
      referenceVertices(dir, "sinewave8", "8", {"--sim", "sinewave", "--grid", "48", "--seed", "3"});
  EXPECT_TRUE(readFile(dir + "/m.bin") == reference) << "not the vertices of 8 sinewave steps";
}

// A scripted kRippleOverlay run of `frames` frames, checked clean, whose
// simulation took `steps` steps since its last (re)start: the summary line
// says so, and the vertices are those of a plain run of that many steps.
AppResult runRippleExpectingSteps(const std::string& dir, const std::string& name, const std::string& script,
                                  const std::string& frames, const std::string& steps) {
  AppResult result = runScripted(dir, name, script, frames, kRippleOverlay);
  expectCleanRun(result);
  EXPECT_EQ(summaryField(result.out, "frames"), frames) << name;
  EXPECT_EQ(summaryField(result.out, "steps"), steps) << name;
  EXPECT_TRUE(isRippleAfterSteps(dir, name, steps)) << name << ": not the vertices of " << steps << " steps";
  return result;
}

TEST(Controls, SpacePausesTheSimulationAndSpaceAgainResumesIt) {
  const std::string dir = makeTempDir("controls-space");
  // Paused from frame 4 to frame 7: frames 0..3 and 8..11 step, 8 steps in 12 frames.
  const AppResult result =
      runRippleExpectingSteps(dir, "space", "at 4 key SPACE\nat 8 key SPACE\n", "12", "8");
  EXPECT_EQ(summaryField(result.out, "timeline_value"), "24")
      << "rendering and the schedule go on while paused";
  // Paused and never resumed: 4 steps.
  runRippleExpectingSteps(dir, "paused", "at 4 key SPACE\n", "12", "4");
}

TEST(Controls, NStepsOnceWhilePaused) {
  const std::string dir = makeTempDir("controls-n");
  // Paused after 2 steps; N twice: 2 + 1 + 1 = 4 steps in 14 frames.
  runRippleExpectingSteps(dir, "n", "at 2 key SPACE\nat 5 key N\nat 9 key N\n", "14", "4");
}

TEST(Controls, BackspaceResetsTheSimulationToStepZero) {
  const std::string dir = makeTempDir("controls-backspace");
  // Reset at the boundary of frame 6: frames 6..11 are steps 0..5 again.
  const AppResult result = runRippleExpectingSteps(dir, "reset", "at 6 key BACKSPACE\n", "12", "6");
  EXPECT_EQ(summaryField(result.out, "model"), "ripple");
  EXPECT_EQ(summaryField(result.out, "grid"), "48");
  // A new timeline: 6 frames since the rebuild, counter 2 * 6.
  EXPECT_EQ(summaryField(result.out, "timeline_value"), "12");
}

// The rows of a capture CSV after its header, split at commas; `column` maps
// each header name to its index.
std::vector<std::vector<std::string>> readCsvRows(const std::string& path,
                                                  std::map<std::string, size_t>* column) {
  std::stringstream csv(readFile(path));
  std::string line;
  std::vector<std::vector<std::string>> rows;
  bool header = true;
  while (std::getline(csv, line)) {
    std::vector<std::string> fields;
    std::stringstream row(line);
    std::string field;
    while (std::getline(row, field, ',')) fields.push_back(field);
    if (header) {
      for (size_t i = 0; i < fields.size(); ++i) (*column)[fields[i]] = i;
      header = false;
    } else {
      rows.push_back(fields);
    }
  }
  return rows;
}

bool sameFile(const std::string& a, const std::string& b) {
  const std::string first = readFile(a);
  return !first.empty() && first == readFile(b);
}

TEST(Controls, RPutsTheCameraBackAfterAnOrbitAndAZoom) {
  const std::string dir = makeTempDir("controls-r");
  // The simulation is paused from the start so that only the camera moves.
  const auto shot = [&](int frame, const std::string& name) {
    return "at " + std::to_string(frame) + " screenshot " + dir + "/" + name + ".png\n";
  };
  const std::string script = "at 0 key SPACE\n" + shot(2, "start") + "at 3 drag 100 100 250 160\n" +
                             "at 14 scroll 3\n" + shot(16, "moved") + "at 17 key R\n" + shot(19, "reset");
  const AppResult result = runScripted(dir, "camera", script, "21", {"--sim", "sinewave", "--grid", "48"});
  expectCleanRun(result);
  EXPECT_EQ(summaryField(result.out, "steps"), "0");
  EXPECT_FALSE(sameFile(dir + "/start.png", dir + "/moved.png")) << "the drag and the wheel moved nothing";
  EXPECT_TRUE(sameFile(dir + "/start.png", dir + "/reset.png")) << "R did not restore the starting view";
}

TEST(Controls, DTurnsALeftClickIntoARippleDrop) {
  const std::string dir = makeTempDir("controls-d");
  // No automatic drops, so a drop is the only thing that can change the vertices.
  std::ofstream(dir + "/still.json")
      << R"({"name": "still", "model": "ripple", "grid": 64, "dropInterval": 0, "dropRadius": 0.05,
            "dropAmplitude": 0.08})";
  const std::vector<std::string> still{"--scene", dir + "/still.json"};
  auto run = [&](const std::string& name, const std::string& script) {
    const AppResult result = runScripted(dir, name, script, "10", still);
    expectCleanRun(result);
    EXPECT_EQ(summaryField(result.out, "steps"), "10") << name;
    return readFile(dir + "/" + name + ".bin");
  };
  const std::string plain = run("plain", "# nothing\n");
  const std::string orbit = run("orbit", "at 4 click 160 130\n");
  const std::string drop = run("drop", "at 2 key D\nat 4 click 160 130\n");
  const std::string off = run("off", "at 2 key D\nat 4 key D\nat 6 click 160 130\n");
  ASSERT_EQ(plain.size(), size_t(64 * 64 * sizeof(Vertex)));
  EXPECT_TRUE(orbit == plain) << "without D a left click orbits; it must not drop";
  EXPECT_FALSE(drop == plain) << "with D a left click must drop a ripple";
  EXPECT_TRUE(off == plain) << "D pressed twice turns drop mode off again";
}

// The capture's SwapChainAddress and SyncInterval columns show the swapchain
// being recreated with the other present mode.
TEST(Controls, VTogglesVsyncAndRecreatesTheSwapchain) {
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  ASSERT_TRUE(display && *display)
      << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY";
  const std::string dir = makeTempDir("controls-v");
  const std::string script = writeScript(dir, "v", "at 5 key V\nat 10 key V\n");
  const AppResult result = runApp({"--backend", "cpu", "--grid", "32", "--size", "320x240", "--vsync", "on",
                                   "--frames", "15", "--input-script", script, "--capture", dir + "/v.csv"},
                                  {"VKSIM_VALIDATION=1", std::string("DISPLAY=") + display});
  expectCleanRun(result);
  EXPECT_NE(result.out.find("in a window"), std::string::npos) << result.out;
  std::map<std::string, size_t> column;
  std::vector<std::string> swapchains, intervals;
  for (const std::vector<std::string>& fields : readCsvRows(dir + "/v.csv", &column)) {
    swapchains.push_back(fields.at(column.at("SwapChainAddress")));
    intervals.push_back(fields.at(column.at("SyncInterval")));
  }
  ASSERT_EQ(intervals.size(), 15u);
  // V at the boundaries of frames 5 and 10: FIFO (1), then not (0), then FIFO.
  for (size_t frame = 0; frame < 15; ++frame)
    EXPECT_EQ(intervals[frame], frame >= 5 && frame < 10 ? "0" : "1") << "frame " << frame;
  EXPECT_EQ(swapchains[4], swapchains[0]);
  EXPECT_NE(swapchains[5], swapchains[4]) << "no new swapchain at the first V";
  EXPECT_EQ(swapchains[9], swapchains[5]);
  EXPECT_NE(swapchains[10], swapchains[9]) << "no new swapchain at the second V";
}

// ---------------------------------------------------------------------------
// The overlay's widgets, clicked where they are drawn. Positions are those of
// the default layout in a 1280x1100 headless run with --overlay, with
// Simulation opened (it starts closed; its header is at y = 213), where every
// section up to Scenes fits (measured from a screenshot of such a run): rows
// are 23 pixels apart, the window's left edge at x = 8. A changed layout
// makes the clicks miss and these tests fail: measure again then.

const std::vector<std::string> kOverlayLayout{"--overlay", "--size", "1280x1100"};

TEST(OverlayControls, SyncRadioButtonsSwitchTheModeAtTheNextFrameBoundary) {
  const std::string dir = makeTempDir("overlay-sync");
  // "binary (B)" at (26, 68), "timeline (T)" at (127, 68). A click is a move,
  // a press one frame later and a release the frame after; the radio button
  // acts on the release (frame 8, then 14) and the mode changes from the next
  // frame.
  std::vector<std::string> args{"--grid", "48", "--capture", dir + "/sync.csv"};
  args.insert(args.end(), kOverlayLayout.begin(), kOverlayLayout.end());
  const AppResult result = runScripted(dir, "sync", "at 6 click 26 68\nat 12 click 127 68\n", "18", args);
  expectCleanRun(result);
  EXPECT_EQ(summaryField(result.out, "switches"), "2");
  EXPECT_EQ(summaryField(result.out, "sync"), "timeline");
  std::map<std::string, size_t> column;
  const auto rows = readCsvRows(dir + "/sync.csv", &column);
  ASSERT_EQ(rows.size(), 18u);
  for (size_t frame = 0; frame < rows.size(); ++frame)
    EXPECT_EQ(rows[frame].at(column.at("SyncMode")), frame >= 9 && frame < 15 ? "binary" : "timeline")
        << "frame " << frame;
}

TEST(OverlayControls, SlidersChangeTheParametersAndTheSceneSectionSavesAndLoads) {
  const std::string dir = makeTempDir("overlay-scenes");
  const std::string scenes = dir + "/scenes";
  std::filesystem::create_directories(scenes);
  // Listed first (the list is sorted), so it is the one selected for Load.
  std::ofstream(scenes + "/a-small.json")
      << R"({"name": "a-small", "description": "small sinewave", "model": "sinewave", "grid": 32,
            "camera": {"yaw": 0.2, "pitch": 0.9, "distance": 3.0, "target": [0, 0, 0], "fovY": 0.7854}})";
  // The Simulation header first (it starts closed). A click at a slider's
  // right end sets its maximum: time step 50 ms, damping 5 /s, 600 steps per
  // drop. Then the Scenes header, the name field (appending to "my-scene"),
  // the description, Save; then Load.
  const std::string script =
      "at 2 click 60 213\n"
      "at 6 click 221 323\n"
      "at 9 click 221 346\n"
      "at 12 click 221 369\n"
      "at 15 click 60 656\n"
      "at 18 click 200 679\n"
      "at 22 type -damped\n"
      "at 24 click 120 702\n"
      "at 28 type five\n"
      "at 30 click 233 725\n"
      "at 34 click 240 747\n";
  std::vector<std::string> args{"--sim", "ripple", "--grid", "64"};
  args.insert(args.end(), kOverlayLayout.begin(), kOverlayLayout.end());
  const AppResult result = runScripted(dir, "scenes", script, "44", args, {"VKSIM_SCENE_DIR=" + scenes});
  expectCleanRun(result);

  const std::string saved = scenes + "/my-scene-damped.json";
  ASSERT_TRUE(fileExists(saved)) << "Save wrote no scene";
  const auto scene = nlohmann::json::parse(readFile(saved));
  EXPECT_EQ(scene.at("name"), "my-scene-damped");
  EXPECT_EQ(scene.at("description"), "five");
  EXPECT_EQ(scene.at("model"), "ripple");
  EXPECT_EQ(scene.at("grid"), 64);
  EXPECT_NEAR(scene.at("timeStep").get<double>(), 0.05, 1e-6);
  EXPECT_NEAR(scene.at("damping").get<double>(), 5.0, 1e-6);
  EXPECT_EQ(scene.at("dropInterval"), 600);
  EXPECT_TRUE(scene.contains("camera"));

  // Load (released at frame 36) rebuilt with a-small's model and grid at
  // frame 37's boundary: frames 37..43 are 7 steps.
  EXPECT_EQ(summaryField(result.out, "model"), "sinewave");
  EXPECT_EQ(summaryField(result.out, "grid"), "32");
  EXPECT_EQ(summaryField(result.out, "steps"), "7");
  EXPECT_TRUE(readFile(dir + "/scenes.bin") ==
              referenceVertices(dir, "a-small7", "7", {"--scene", scenes + "/a-small.json"}));
}

}  // namespace
}  // namespace vksim::testing
