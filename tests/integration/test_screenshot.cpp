// --screenshot writes the last frame of the run: the same seed and frame
// count give the same picture, one frame more gives another, and it is the
// very picture that frame shows in a longer run (taken there by an input
// script's screenshot command). Headless on lavapipe with the CPU backend,
// which renders bit for bit the same run after run.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "app_runner.h"
#include "image_file.h"

namespace vksim::testing {
namespace {

// The ripple model with a drop every few steps: every step changes the mesh,
// so consecutive frames differ visibly.
std::vector<std::string> rippleRun(const std::string& frames) {
  return {"--headless", "--backend", "cpu",    "--sim",   "ripple",   "--grid", "96",
          "--seed",     "11",        "--size", "200x150", "--frames", frames};
}

TEST(Screenshot, IsTheLastFrameSameSeedSameCountSameImageOneMoreFrameAnother) {
  const std::string dir = makeTempDir("screenshot-last");
  auto shoot = [&](const std::string& frames, const std::string& name) {
    std::vector<std::string> args = rippleRun(frames);
    args.insert(args.end(), {"--screenshot", dir + "/" + name + ".png"});
    const AppResult result = runApp(args, {"VKSIM_VALIDATION=1"});
    expectCleanRun(result);
    EXPECT_EQ(summaryField(result.out, "frames"), frames);
    return loadImage(dir + "/" + name + ".png");
  };
  const Image first = shoot("40", "first"), again = shoot("40", "again"), later = shoot("41", "later");
  ASSERT_EQ(first.width, 200);
  ASSERT_EQ(first.height, 150);
  ASSERT_EQ(again.rgba.size(), first.rgba.size());
  ASSERT_EQ(later.rgba.size(), first.rgba.size());
  EXPECT_TRUE(first.rgba == again.rgba) << "two runs of 40 frames with the same seed wrote different images";
  EXPECT_FALSE(first.rgba == later.rgba) << "40 and 41 frames wrote the same image: not the last frame";

  // The 40-frame run's screenshot is frame 39 as a longer run shows it.
  const std::string script = dir + "/frame39.txt";
  std::ofstream(script) << "at 38 screenshot " << dir << "/frame38.png\n"
                        << "at 39 screenshot " << dir << "/frame39.png\n";
  std::vector<std::string> args = rippleRun("60");
  args.insert(args.end(), {"--input-script", script});
  const AppResult longer = runApp(args, {"VKSIM_VALIDATION=1"});
  expectCleanRun(longer);
  const Image frame39 = loadImage(dir + "/frame39.png"), frame38 = loadImage(dir + "/frame38.png");
  ASSERT_EQ(frame39.rgba.size(), first.rgba.size());
  EXPECT_TRUE(frame39.rgba == first.rgba) << "--screenshot after 40 frames is not frame 39";
  EXPECT_FALSE(frame38.rgba == first.rgba);
}

}  // namespace
}  // namespace vksim::testing
