// The command-line flags of captures, transfers, wait strategies and the
// bench subcommand.
#include <gtest/gtest.h>

#include <unistd.h>
#include <utility>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app/cli.h"
#include "cli_parse.h"

namespace vksim {
namespace {

using testing::parse;

// A directory of this process's own, so that files left by other runs in the
// shared temporary directory cannot decide the outcome.
std::string tempPath(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vksim-cli-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

TEST(CliCapture, DefaultsArePollZeroCopyAndThirtyWarmupFrames) {
  const Result<Options> outcome = parse({});
  ASSERT_TRUE(outcome.has_value());
  EXPECT_EQ(outcome->transfer, TransferMode::zeroCopy);
  EXPECT_EQ(outcome->waitStrategy, WaitStrategy::poll);
  EXPECT_EQ(outcome->warmupFrames, 30u);
  EXPECT_TRUE(outcome->capturePath.empty());
  EXPECT_FALSE(outcome->bench);
}

TEST(CliCapture, EveryNewOptionParses) {
  const Result<Options> outcome = parse({"--transfer", "copy", "--capture", tempPath("c.csv"), "--trace",
                                         tempPath("t.json"), "--warmup", "7"});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  EXPECT_EQ(outcome->transfer, TransferMode::copy);
  const Result<Options> waits = parse({"--wait-strategy", "enqueue"});  // zero-copy only
  ASSERT_TRUE(waits.has_value()) << waits.error().message;
  EXPECT_EQ(waits->waitStrategy, WaitStrategy::enqueue);
  EXPECT_EQ(outcome->capturePath, tempPath("c.csv"));
  EXPECT_EQ(outcome->tracePath, tempPath("t.json"));
  EXPECT_EQ(outcome->warmupFrames, 7u);
  // The path checks leave no probe file behind.
  EXPECT_FALSE(std::filesystem::exists(tempPath("c.csv")));
  EXPECT_FALSE(std::filesystem::exists(tempPath("c.summary.json")));
}

TEST(CliCapture, BadValuesAreUsageErrors) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--transfer", "teleport"},
        std::vector<std::string>{"--wait-strategy", "sleep"},
        std::vector<std::string>{"--capture", tempPath("c.txt")},
        std::vector<std::string>{"--capture", "/proc/no/such/dir/c.csv"},
        std::vector<std::string>{"--trace", tempPath("t.csv")}, std::vector<std::string>{"--warmup", "-1"},
        std::vector<std::string>{"bench", "--grids", "1"},
        std::vector<std::string>{"bench", "--sync", "sometimes"},
        std::vector<std::string>{"bench", "--frames", "0"}}) {
    const Result<Options> outcome = parse(args);
    if (outcome) {
      ADD_FAILURE() << args[0] << " " << args[1] << " was accepted";
      continue;
    }
    EXPECT_EQ(outcome.error().exitCode, kExitUsage) << args[0] << " " << args[1];
  }
}

// --capture-format and --capture-columns (docs/captures.md): PresentMon's
// 1.x names stay the default, each value is one word in any case, and a bad
// value or a combination that means nothing is one line and exit 2.
TEST(CliCapture, CaptureLayoutDefaultsToPresentMonV1) {
  const Result<Options> outcome = parse({"--capture", tempPath("c.csv")});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  EXPECT_EQ(outcome->captureFormat, CaptureFormat::presentmon);
  EXPECT_EQ(outcome->captureColumns, CaptureColumns::v1);
}

TEST(CliCapture, CaptureLayoutOptionsParse) {
  Result<Options> outcome = parse({"--capture", tempPath("c.csv"), "--capture-format", "MangoHud"});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  EXPECT_EQ(outcome->captureFormat, CaptureFormat::mangohud);
  outcome = parse({"--capture", tempPath("c.csv"), "--capture-columns", "v2", "--capture-format", "presentmon"});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  EXPECT_EQ(outcome->captureFormat, CaptureFormat::presentmon);
  EXPECT_EQ(outcome->captureColumns, CaptureColumns::v2);
  EXPECT_FALSE(std::filesystem::exists(tempPath("c.csv")));
}

TEST(CliCapture, BadCaptureLayoutIsOneLineAndExitTwo) {
  const std::string csv = tempPath("c.csv");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--capture", csv, "--capture-format", "ocat"},
        std::vector<std::string>{"--capture", csv, "--capture-format", ""},
        std::vector<std::string>{"--capture", csv, "--capture-columns", "v3"},
        std::vector<std::string>{"--capture", csv, "--capture-columns", "2"},
        std::vector<std::string>{"--capture-format", "mangohud"},
        std::vector<std::string>{"--capture-columns", "v2"},
        std::vector<std::string>{"--capture", csv, "--capture-format", "mangohud", "--capture-columns", "v1"},
        std::vector<std::string>{"--capture-format", "mangohud", "bench"}}) {
    const Result<Options> outcome = parse(args);
    std::string joined;
    for (const std::string& arg : args) joined += arg + " ";
    if (outcome) {
      ADD_FAILURE() << joined << "was accepted";
      continue;
    }
    EXPECT_EQ(outcome.error().exitCode, kExitUsage) << joined;
    const std::string& message = outcome.error().message;
    EXPECT_EQ(message.find('\n'), message.size() - 1) << joined << ": " << message;
    EXPECT_EQ(message.rfind("vkcuda-sim: ", 0), 0u) << message;
  }
}

// With --capture-format mangohud the run also writes PATH_summary.csv: a
// path there that cannot be written is refused before the run, as the log's
// own path is, not when the capture opens after start-up.
TEST(CliCapture, AnUnwritableMangoHudSummaryIsRefusedBeforeTheRun) {
  const std::string csv = tempPath("m.csv");
  std::filesystem::create_directories(tempPath("m_summary.csv"));  // a directory where the file would go
  const Result<Options> outcome = parse({"--capture", csv, "--capture-format", "mangohud"});
  std::filesystem::remove(tempPath("m_summary.csv"));
  ASSERT_FALSE(outcome.has_value());
  EXPECT_EQ(outcome.error().exitCode, kExitUsage);
  const std::string& message = outcome.error().message;
  EXPECT_EQ(message.find('\n'), message.size() - 1) << message;
  EXPECT_NE(message.find("m_summary.csv"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(csv));
  // PresentMon's layout does not write that file, so the same path is fine.
  std::filesystem::create_directories(tempPath("m_summary.csv"));
  const Result<Options> presentMon = parse({"--capture", csv});
  std::filesystem::remove(tempPath("m_summary.csv"));
  EXPECT_TRUE(presentMon.has_value()) << presentMon.error().message;
}

TEST(CliBench, DefaultsRunTheWholeMatrixHeadless) {
  const Result<Options> outcome = parse({"bench"});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  ASSERT_TRUE(outcome->bench);
  const BenchOptions& bench = *outcome->bench;
  EXPECT_TRUE(outcome->headless);
  EXPECT_EQ(bench.grids, (std::vector<uint32_t>{64, 256, 1024, 2048, 4096}));
  EXPECT_EQ(bench.syncModes, (std::vector<SyncMode>{SyncMode::timeline, SyncMode::binary}));
  EXPECT_EQ(bench.transfers, (std::vector<TransferMode>{TransferMode::zeroCopy, TransferMode::copy}));
  EXPECT_EQ(bench.waitStrategies, (std::vector<WaitStrategy>{WaitStrategy::poll, WaitStrategy::enqueue}));
  EXPECT_EQ(bench.frames, 300u);
  EXPECT_EQ(bench.warmupFrames, 30u);
  EXPECT_EQ(bench.levelsOfDetail, std::vector<bool>{true});
  EXPECT_TRUE(outcome->levelOfDetail);
}

TEST(CliBench, WarmupLastsHalfASecondByDefaultAndTakesZeroToAMinute) {
  const Result<Options> defaults = parse({"bench"});
  ASSERT_TRUE(defaults.has_value()) << defaults.error().message;
  EXPECT_EQ(defaults->bench->warmupMs, 500u);
  for (const char* accepted : {"0", "60000"}) {
    const Result<Options> outcome = parse({"bench", "--warmup-ms", accepted});
    ASSERT_TRUE(outcome.has_value()) << accepted << ": " << outcome.error().message;
    EXPECT_EQ(outcome->bench->warmupMs, uint32_t(std::stoul(accepted)));
  }
  for (const char* refused : {"-1", "60001", "0.5", "soon"}) {
    const Result<Options> outcome = parse({"bench", "--warmup-ms", refused});
    ASSERT_FALSE(outcome.has_value()) << refused;
    EXPECT_EQ(outcome.error().exitCode, kExitUsage) << refused;
  }
}

TEST(CliBench, LevelOfDetailIsOnOffOrBoth) {
  for (const auto& [given, expected] : std::vector<std::pair<std::string, std::vector<bool>>>{
           {"on", {true}}, {"off", {false}}, {"both", {true, false}}, {"OFF", {false}}}) {
    const Result<Options> outcome = parse({"bench", "--lod", given});
    ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
    EXPECT_EQ(outcome->bench->levelsOfDetail, expected) << given;
  }
  const Result<Options> off = parse({"--lod", "off"});
  ASSERT_TRUE(off.has_value()) << off.error().message;
  EXPECT_FALSE(off->levelOfDetail);
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--lod", "half"},
                                               std::vector<std::string>{"bench", "--lod", "sometimes"}}) {
    const Result<Options> outcome = parse(args);
    ASSERT_FALSE(outcome.has_value()) << args[1];
    EXPECT_EQ(outcome.error().exitCode, kExitUsage);
    EXPECT_EQ(std::count(outcome.error().message.begin(), outcome.error().message.end(), '\n'), 1)
        << outcome.error().message;
  }
}

// --texture and --overlay after `bench` are dimensions of the matrix, as
// --lod is; given before `bench` (the run's options) they choose its one
// value, and on both sides they are refused.
TEST(CliBench, TextureAndOverlayAreOnOffOrBoth) {
  const Result<Options> defaults = parse({"bench"});
  ASSERT_TRUE(defaults.has_value()) << defaults.error().message;
  EXPECT_EQ(defaults->bench->textures, std::vector<bool>{true});
  EXPECT_EQ(defaults->bench->overlays, std::vector<bool>{false});
  for (const auto& [given, expected] : std::vector<std::pair<std::string, std::vector<bool>>>{
           {"on", {true}}, {"off", {false}}, {"both", {true, false}}, {"Both", {true, false}}}) {
    const Result<Options> texture = parse({"bench", "--texture", given});
    ASSERT_TRUE(texture.has_value()) << texture.error().message;
    EXPECT_EQ(texture->bench->textures, expected) << given;
    EXPECT_EQ(texture->bench->overlays, std::vector<bool>{false}) << given;
    const Result<Options> overlay = parse({"bench", "--overlay", given});
    ASSERT_TRUE(overlay.has_value()) << overlay.error().message;
    EXPECT_EQ(overlay->bench->overlays, expected) << given;
    EXPECT_EQ(overlay->bench->textures, std::vector<bool>{true}) << given;
  }
  const Result<Options> before = parse({"--texture", "off", "--overlay", "bench"});
  ASSERT_TRUE(before.has_value()) << before.error().message;
  EXPECT_EQ(before->bench->textures, std::vector<bool>{false});
  EXPECT_EQ(before->bench->overlays, std::vector<bool>{true});
  for (const std::vector<std::string>& args : {std::vector<std::string>{"bench", "--texture", "sometimes"},
                                               {"bench", "--overlay", "yes"},
                                               {"--texture", "off", "bench", "--texture", "on"},
                                               {"--overlay", "bench", "--overlay", "off"}}) {
    const Result<Options> outcome = parse(args);
    ASSERT_FALSE(outcome.has_value()) << args[1] << " " << args.back();
    EXPECT_EQ(outcome.error().exitCode, kExitUsage);
    EXPECT_EQ(std::count(outcome.error().message.begin(), outcome.error().message.end(), '\n'), 1)
        << outcome.error().message;
  }
}

TEST(CliBench, EachDimensionNarrowsToOneValueOrBoth) {
  const Result<Options> outcome =
      parse({"bench", "--grids", "16,32", "--sync", "binary", "--transfer", "zero-copy", "--wait-strategy",
             "both", "--frames", "20", "--warmup", "0", "--backend", "cpu", "--sim", "sinewave", "--json",
             tempPath("b.json")});
  ASSERT_TRUE(outcome.has_value()) << outcome.error().message;
  const BenchOptions& bench = *outcome->bench;
  EXPECT_EQ(bench.grids, (std::vector<uint32_t>{16, 32}));
  EXPECT_EQ(bench.syncModes, std::vector<SyncMode>{SyncMode::binary});
  EXPECT_EQ(bench.transfers, std::vector<TransferMode>{TransferMode::zeroCopy});
  EXPECT_EQ(bench.waitStrategies, (std::vector<WaitStrategy>{WaitStrategy::poll, WaitStrategy::enqueue}));
  EXPECT_EQ(bench.frames, 20u);
  EXPECT_EQ(bench.warmupFrames, 0u);
  EXPECT_EQ(bench.jsonPath, tempPath("b.json"));
  EXPECT_EQ(outcome->backend, BackendChoice::cpu);
  EXPECT_EQ(outcome->model.model, ModelKind::sinewave);
  EXPECT_FALSE(std::filesystem::exists(tempPath("b.json")));
}

}  // namespace
}  // namespace vksim
