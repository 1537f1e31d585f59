// The mesh's level of detail (renderer/tile_lod.h, --lod) as a user sees it,
// on lavapipe with the validation layer on: both draws clean, the picture
// close to every triangle's, no seam gap, coarser with distance, and the L
// key's switch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "app_runner.h"
#include "image_file.h"
#include "renderer/render_targets.h"

namespace vksim::testing {
namespace {

// A scene file with the model and the camera; the rest at their defaults.
std::string writeScene(const std::string& dir, const std::string& name, const std::string& model,
                       const std::string& camera) {
  const std::string path = dir + "/" + name + ".json";
  std::ofstream(path) << "{\"name\": \"" << name << "\", " << model << ", \"camera\": " << camera << "}";
  return path;
}

// A headless run of `frames` frames with the validation layer on, the last
// frame written to `screenshot`.
AppResult runLod(const std::string& lod, const std::vector<std::string>& extra, const std::string& screenshot) {
  std::vector<std::string> args{"--headless", "--backend", "cpu", "--frames", "2", "--lod", lod,
                                "--screenshot", screenshot};
  args.insert(args.end(), extra.begin(), extra.end());
  return runApp(args, {"VKSIM_VALIDATION=1"}, 300);
}

// Peak signal-to-noise ratio of b against a over the colour channels, dB
// (infinite for identical pictures).
double psnr(const Image& a, const Image& b) {
  double squared = 0.0;
  size_t samples = 0;
  for (size_t i = 0; i < a.rgba.size(); i += 4)
    for (size_t c = 0; c < 3; ++c) {
      const double d = double(a.rgba[i + c]) - double(b.rgba[i + c]);
      squared += d * d;
      ++samples;
    }
  if (squared == 0.0) return INFINITY;
  return 10.0 * std::log10(255.0 * 255.0 / (squared / double(samples)));
}

bool isBackground(const Image& image, int x, int y) {
  const unsigned char* pixel = &image.rgba[(size_t(y) * size_t(image.width) + size_t(x)) * 4];
  for (int c = 0; c < 3; ++c)
    if (pixel[c] != static_cast<unsigned char>(std::lround(kBackgroundColor[c] * 255.0f))) return false;
  return true;
}

// Pixels of `tiled` that show the background where `full` shows the mesh all
// around (a margin of `margin` pixels keeps the silhouette's own edge out):
// the gaps a crack between two tiles would open.
int gapsInsideTheMesh(const Image& full, const Image& tiled, int margin) {
  int gaps = 0;
  for (int y = margin; y < full.height - margin; ++y)
    for (int x = margin; x < full.width - margin; ++x) {
      if (!isBackground(tiled, x, y)) continue;
      bool inside = true;
      for (int dy = -margin; dy <= margin && inside; ++dy)
        for (int dx = -margin; dx <= margin && inside; ++dx) inside = !isBackground(full, x + dx, y + dy);
      gaps += inside ? 1 : 0;
    }
  return gaps;
}

struct LodPair {
  Image tiled, full;
  AppResult tiledRun, fullRun;
};

LodPair renderBoth(const std::string& dir, const std::string& name, const std::vector<std::string>& extra) {
  LodPair pair;
  pair.tiledRun = runLod("on", extra, dir + "/" + name + "-on.png");
  // --lod-pixels sizes the tiles' cells: refused with --lod off (headless, no script).
  std::vector<std::string> fullExtra;
  for (size_t i = 0; i < extra.size(); ++i) {
    if (extra[i] == "--lod-pixels") {
      ++i;
      continue;
    }
    fullExtra.push_back(extra[i]);
  }
  pair.fullRun = runLod("off", fullExtra, dir + "/" + name + "-off.png");
  pair.tiled = loadImage(dir + "/" + name + "-on.png");
  pair.full = loadImage(dir + "/" + name + "-off.png");
  return pair;
}

// What the summary line says the last frame drew with --lod on: tiles at
// coarser levels than 0 somewhere, so fewer triangles than the grid has.
void expectTiled(const AppResult& run, uint64_t gridTriangles) {
  EXPECT_EQ(summaryField(run.out, "lod"), "on") << run.out;
  EXPECT_NE(summaryField(run.out, "lod_levels").substr(2), "0") << run.out;
  EXPECT_LT(std::stoull(summaryField(run.out, "triangles")), gridTriangles) << run.out;
}

// The default camera at 1280x720 and a close-up one, on a grid large enough
// that both choose coarser levels: each picture close to every triangle's,
// by a bound per view. Measured on lavapipe (2026-12-03,
// docs/results/2026-12-03-lod.md, "The picture"; docs/benchmarks.md, "Level
// of detail"): 73.8 dB at the default camera and 56.1 dB at the close-up.
// With every tile drawn one level coarser than the rule gives (a bug planted
// in levelAtDistance) they fell to 59.6 dB and 54.3 dB: the default view's
// bound, 66 dB, lies 7 dB from each and is what fails a level chosen one too
// coarse. The close-up is drawn mostly at the finest levels, so the same bug
// costs it only 1.8 dB, less than a rasterizer of another width may move
// it; its bound, 53 dB, catches only worse.
struct LodView {
  std::string name;
  std::vector<std::string> args;
  double minimumDecibels;
};

TEST(LevelOfDetail, BothDrawsAreCleanAndNoTileIsDrawnCoarserThanTheRuleAllows) {
  const std::string dir = makeTempDir("lod-psnr");
  const std::string close = writeScene(dir, "close", "\"model\": \"sinewave\", \"grid\": 1024",
                                       R"({"yaw": 0.75, "pitch": 0.35, "distance": 0.9, "target": [0.3, 0.0, 0.2], "fovY": 0.7854})");
  const std::vector<LodView> views{{"default", {"--sim", "sinewave", "--grid", "1024"}, 66.0},
                                   {"close", {"--scene", close}, 53.0}};
  for (const LodView& view : views) {
    SCOPED_TRACE(view.name);
    const LodPair pair = renderBoth(dir, view.name, view.args);
    expectCleanRun(pair.tiledRun);
    expectCleanRun(pair.fullRun);
    EXPECT_EQ(summaryField(pair.fullRun.out, "lod"), "off");
    EXPECT_EQ(summaryField(pair.fullRun.out, "triangles"), std::to_string(2 * 1023 * 1023));
    expectTiled(pair.tiledRun, 2 * 1023 * 1023);
    ASSERT_EQ(pair.tiled.width, 1280);
    ASSERT_EQ(pair.full.width, 1280);
    const double decibels = psnr(pair.full, pair.tiled);
    std::printf("PSNR %s view, --lod on against off: %.2f dB (at least %.0f dB)\n", view.name.c_str(), decibels,
                view.minimumDecibels);
    EXPECT_GE(decibels, view.minimumDecibels);
  }
}

// A wavy surface seen from above at an angle, drawn coarse (--lod-pixels
// 24) so that tiles at levels 3 and 4 meet and a crack along a seam would be
// pixels wide: the background would show through the mesh. Without the
// snapping of edge vertices (tile_lod.cpp) this view shows 51 such pixels;
// the 4-pixel margin keeps out the silhouette, which a coarse level moves.
TEST(LevelOfDetail, NoTileSeamLeavesAGapInsideTheMesh) {
  const std::string dir = makeTempDir("lod-seams");
  const std::string wavy = writeScene(
      dir, "wavy", "\"model\": \"sinewave\", \"grid\": 512, \"amplitude\": 0.1, \"waveNumberX\": 20.0, "
                   "\"waveNumberZ\": 20.0",
      R"({"yaw": 0.3, "pitch": 1.2, "distance": 2.5, "target": [0.0, 0.0, 0.0], "fovY": 0.7854})");
  const LodPair pair = renderBoth(dir, "wavy", {"--scene", wavy, "--lod-pixels", "24"});
  expectCleanRun(pair.tiledRun);
  expectTiled(pair.tiledRun, 2 * 511 * 511);
  const std::string levels = summaryField(pair.tiledRun.out, "lod_levels");
  EXPECT_NE(levels.front(), levels.back()) << "the view should mix levels: " << levels;
  ASSERT_EQ(pair.tiled.width, 1280);
  ASSERT_EQ(pair.full.width, 1280);
  EXPECT_EQ(gapsInsideTheMesh(pair.full, pair.tiled, 4), 0);
}

// The nearest tiles' level grows with the camera's distance (the summary
// line's lod_levels: the finest and the coarsest level drawn).
TEST(LevelOfDetail, TheFinestLevelDrawnGrowsWithTheCameraDistance) {
  const std::string dir = makeTempDir("lod-distance");
  int previous = -1;
  for (const std::string distance : {"0.6", "2.0", "8.0"}) {
    const std::string scene =
        writeScene(dir, "distance-" + distance.substr(0, 1), "\"model\": \"ripple\", \"grid\": 2048",
                   std::string(R"({"yaw": 0.75, "pitch": 0.65, "distance": )") + distance +
                       R"(, "target": [0.0, 0.0, 0.0], "fovY": 0.7854})");
    const AppResult run = runApp({"--headless", "--backend", "cpu", "--frames", "1", "--scene", scene});
    ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
    const int finest = std::stoi(summaryField(run.out, "lod_levels"));
    EXPECT_GT(finest, previous) << "distance " << distance << ": " << run.out;
    previous = finest;
  }
}

// L switches the level of detail at the next frame, without a rebuild.
TEST(LevelOfDetail, TheLKeySwitchesItOff) {
  const std::string dir = makeTempDir("lod-key");
  const std::string script = dir + "/l.txt";
  std::ofstream(script) << "at 2 key L\n";
  const AppResult run = runApp({"--headless", "--backend", "cpu", "--frames", "5", "--grid", "1024",
                                "--input-script", script},
                               {"VKSIM_VALIDATION=1"});
  expectCleanRun(run);
  EXPECT_EQ(summaryField(run.out, "lod"), "off");
  EXPECT_EQ(summaryField(run.out, "triangles"), std::to_string(2 * 1023 * 1023));
  EXPECT_EQ(summaryField(run.out, "steps"), "5") << "a switch of the draw rebuilds nothing";
}

}  // namespace
}  // namespace vksim::testing
