// --scene, --overlay and --input-script on the command line.
#include <gtest/gtest.h>

#include <utility>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app/cli.h"
#include "cli_parse.h"

namespace vksim {
namespace {

using testing::parse;

std::string tempFile(const std::string& name, const std::string& text) {
  const auto path =
      std::filesystem::temp_directory_path() / ("vksim-cli-" + std::to_string(::getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(CliInteractive, SceneSetsModelParametersAndCamera) {
  const std::string path = tempFile("scene.json", R"({"name": "x", "model": "sinewave", "grid": 200,
      "amplitude": 0.2, "camera": {"yaw": 1.5, "distance": 5}})");
  // The stem must equal the name: write it under its own name.
  const std::string named = (std::filesystem::path(path).parent_path() / "x.json").string();
  std::filesystem::rename(path, named);
  const Result<Options> outcome = parse({"--scene", named});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  const Options& o = *outcome;
  EXPECT_EQ(o.model.model, ModelKind::sinewave);
  EXPECT_EQ(o.model.grid, 200u);
  EXPECT_FLOAT_EQ(o.model.amplitude, 0.2f);
  EXPECT_FLOAT_EQ(o.camera.yaw, 1.5f);
  EXPECT_FLOAT_EQ(o.camera.distance, 5.0f);
  EXPECT_EQ(o.sceneName, "x");

  // Flags given with the scene win over it.
  const Result<Options> overridden =
      parse({"--scene", named, "--grid", "64", "--sim", "ripple", "--seed", "9"});
  ASSERT_TRUE(overridden.has_value()) << overridden.error().message;
  EXPECT_EQ(overridden->model.grid, 64u);
  EXPECT_EQ(overridden->model.model, ModelKind::ripple);
  EXPECT_EQ(overridden->model.seed, 9u);
  EXPECT_FLOAT_EQ(overridden->model.amplitude, 0.2f);
  std::filesystem::remove(named);
}

TEST(CliInteractive, BadSceneIsOneLineNamingFileAndField) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const std::string path = dir + "/bad.json";
  std::ofstream(path) << R"({"name": "bad", "model": "ripple", "damping": "lots"})";
  const Result<Options> outcome = parse({"--scene", path});
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().exitCode, kExitUsage);
  EXPECT_EQ(outcome.error().message.rfind("vkcuda-sim: --scene: " + path + ": field 'damping'", 0), 0u)
      << outcome.error().message;
  EXPECT_EQ(outcome.error().message.find('\n'), outcome.error().message.size() - 1);
  std::filesystem::remove(path);
}

TEST(CliInteractive, OverlayFlagAndInputScript) {
  const std::string script = tempFile("script.txt", "at 1 key F1\nat 2 screenshot /tmp/x.png\n");
  const Result<Options> outcome = parse({"--headless", "--overlay", "--input-script", script});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  EXPECT_TRUE(outcome->overlay);
  EXPECT_EQ(outcome->inputScript.commands.size(), 2u);
  EXPECT_FALSE(parse({})->overlay);
  std::filesystem::remove(script);
}

TEST(CliInteractive, ScriptScreenshotInAMissingDirectoryIsRefusedBeforeRunning) {
  const std::string script = tempFile("shot.txt", "at 1 screenshot /no/such/dir/x.png\n");
  const Result<Options> outcome = parse({"--input-script", script});
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().exitCode, kExitUsage);
  EXPECT_NE(outcome.error().message.find(script + ":1: screenshot /no/such/dir/x.png"), std::string::npos)
      << outcome.error().message;
  std::filesystem::remove(script);
}

TEST(CliInteractive, MissingScriptFileIsAUsageError) {
  const Result<Options> outcome = parse({"--input-script", "/no/such/script.txt"});
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().exitCode, kExitUsage);
  EXPECT_NE(outcome.error().message.find("--input-script"), std::string::npos);
}

}  // namespace
}  // namespace vksim
