#include <gtest/gtest.h>

#include <utility>

#include <filesystem>
#include <string>
#include <vector>

#include "app/cli.h"
#include "cli_parse.h"

namespace vksim {
namespace {

using testing::parse;

TEST(Cli, DefaultsMatchTheDocumentation) {
  const Result<Options> outcome = parse({});
  ASSERT_TRUE(outcome.has_value());
  const Options& o = *outcome;
  EXPECT_EQ(o.model.model, ModelKind::ripple);
  EXPECT_EQ(o.model.grid, 512u);
  EXPECT_EQ(o.sync, SyncMode::timeline);
  EXPECT_EQ(o.backend, BackendChoice::automatic);
  EXPECT_EQ(o.width, 1280u);
  EXPECT_EQ(o.height, 720u);
  EXPECT_EQ(framesToRun(o, true), 600);
  EXPECT_EQ(framesToRun(o, false), 0);
}

TEST(Cli, EveryOptionParses) {
  const std::string dir = std::filesystem::temp_directory_path().string();
  const Result<Options> outcome = parse({"--headless",
                                         "--frames",
                                         "42",
                                         "--sim",
                                         "sinewave",
                                         "--grid",
                                         "64",
                                         "--sync",
                                         "binary",
                                         "--backend",
                                         "cpu",
                                         "--size",
                                         "640x480",
                                         "--seed",
                                         "9",
                                         "--screenshot",
                                         dir + "/s.png",
                                         "--dump-vertices",
                                         dir + "/v.bin",
                                         "--device",
                                         "1",
                                         "--switch-sync-every",
                                         "3"});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  const Options& o = *outcome;
  EXPECT_TRUE(o.headless);
  EXPECT_EQ(o.frames, 42);
  EXPECT_EQ(o.model.model, ModelKind::sinewave);
  EXPECT_EQ(o.model.grid, 64u);
  EXPECT_EQ(o.sync, SyncMode::binary);
  EXPECT_EQ(o.backend, BackendChoice::cpu);
  EXPECT_EQ(o.width, 640u);
  EXPECT_EQ(o.height, 480u);
  EXPECT_EQ(o.model.seed, 9u);
  EXPECT_EQ(o.device, "1");
  EXPECT_EQ(o.switchSyncEvery, 3u);
  EXPECT_EQ(framesToRun(o, true), 42);
  // --vsync paces a window: it parses without --headless (refused with it).
  const Result<Options> window = parse({"--vsync", "off"});
  ASSERT_TRUE(window.has_value()) << window.error().message;
  EXPECT_FALSE(window->vsync);
}

struct BadInput {
  std::vector<std::string> args;
  const char* mentions;
};

class CliRejects : public ::testing::TestWithParam<BadInput> {};

TEST_P(CliRejects, WithExitCodeTwoAndOneLine) {
  const Result<Options> outcome = parse(GetParam().args);
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().exitCode, kExitUsage);
  EXPECT_NE(outcome.error().message.find(GetParam().mentions), std::string::npos) << outcome.error().message;
  ASSERT_FALSE(outcome.error().message.empty());
  EXPECT_EQ(outcome.error().message.find('\n'), outcome.error().message.size() - 1)
      << "one line: " << outcome.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    BadInputs, CliRejects,
    ::testing::Values(BadInput{{"--grid", "0"}, "--grid"}, BadInput{{"--grid", "9000"}, "--grid"},
                      BadInput{{"--grid", "1"}, "--grid"}, BadInput{{"--sync", "fast"}, "--sync"},
                      BadInput{{"--frames", "-5"}, "--frames"},
                      BadInput{{"--backend", "metal"}, "--backend"}, BadInput{{"--sim", "fluid"}, "--sim"},
                      BadInput{{"--size", "big"}, "--size"},
                      BadInput{{"--screenshot", "/nonexistent-dir/x.png"}, "--screenshot"},
                      BadInput{{"--screenshot", "/tmp/x.jpg"}, "--screenshot"},
                      BadInput{{"--dump-vertices", "/nonexistent-dir/v.bin"}, "--dump-vertices"},
                      BadInput{{"--no-such-flag"}, "no-such-flag"}));

TEST(Cli, VersionAndHelpExitZero) {
  const Result<Options> version = parse({"--version"});
  ASSERT_FALSE(version.has_value());
  EXPECT_EQ(version.error().exitCode, kExitSuccess);
  EXPECT_NE(version.error().message.find("vkcuda-sim"), std::string::npos);
  const Result<Options> help = parse({"--help"});
  ASSERT_FALSE(help);
  EXPECT_EQ(help.error().exitCode, kExitSuccess);
  EXPECT_NE(help.error().message.find("--switch-sync-every"), std::string::npos);
}

}  // namespace
}  // namespace vksim
