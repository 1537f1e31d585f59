// Captures, traces, the copy path and the benchmark, through the app binary
// on lavapipe with the CPU backend and the validation layer on. No timing
// thresholds: only what was written and whether it is consistent.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/capture/capture_writer.h"
#include "app_runner.h"

namespace vksim::testing {
namespace {

// Reads the layer's silence from the messenger's prefix on stderr, not from the
// summary line's counts as the shared expectCleanRun does: a different check.
void expectQuietMessengerRun(const AppResult& result) {
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(result.err.find("vulkan "), std::string::npos) << result.err;  // the messenger's prefix
  expectLayerOn(result);
}

std::vector<std::string> splitLine(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) fields.push_back(field);
  return fields;
}

std::vector<std::vector<std::string>> readCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream stream(readFile(path));
  std::string line;
  while (std::getline(stream, line))
    if (!line.empty()) rows.push_back(splitLine(line));
  return rows;
}

// Every span ("X") of one track lies inside the one before it or after it.
// Without the overlay there are four tracks: host frame, render GPU, sim GPU
// and sim wait; the overlay's build and its recording are a fifth and sixth.
void expectNestedTracks(const nlohmann::json& trace, size_t trackCount = 4) {
  std::map<int, std::vector<std::pair<double, double>>> tracks;
  for (const auto& event : trace.at("traceEvents"))
    if (event.at("ph") == "X")
      tracks[event.at("tid").get<int>()].push_back(
          {event.at("ts").get<double>(), event.at("dur").get<double>()});
  EXPECT_EQ(tracks.size(), trackCount)
      << "host frame, render GPU, sim GPU, sim wait (and the overlay's build and record)";
  for (auto& [track, spans] : tracks) {
    std::vector<double> openEnds;
    double previousStart = -1e300;
    for (const auto& [start, duration] : spans) {
      EXPECT_GE(start, previousStart) << "track " << track << ": spans out of order";
      EXPECT_GE(duration, 0.0);
      previousStart = start;
      while (!openEnds.empty() && start >= openEnds.back()) openEnds.pop_back();
      if (!openEnds.empty()) {
        EXPECT_LE(start + duration, openEnds.back()) << "track " << track << " straddles";
      }
      openEnds.push_back(start + duration);
    }
  }
}

TEST(Capture, CsvHasEveryColumnAndOneRowPerFrameAndTheSummaryLeavesOutTheWarmup) {
  const std::string dir = makeTempDir("capture");
  const AppResult result =
      runApp({"--headless", "--backend", "cpu", "--grid", "48", "--frames", "70", "--size", "96x96",
              "--switch-sync-every", "25", "--warmup", "10", "--capture", dir + "/run.csv"},
             kValidation);
  expectQuietMessengerRun(result);
  const auto rows = readCsv(dir + "/run.csv");
  ASSERT_EQ(rows.size(), 71u) << "header and 70 frames";
  const std::vector<std::string> header = rows[0];
  // The exact names and order are pinned, by hand, in the unit test
  // (CaptureWriter.*); here the file the app wrote must carry that header.
  const std::vector<std::string> expected(std::begin(kCaptureColumns), std::end(kCaptureColumns));
  EXPECT_EQ(header, expected);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
  for (size_t frame = 0; frame < 70; ++frame) {
    const auto& row = rows[frame + 1];
    ASSERT_EQ(row.size(), header.size()) << "row " << frame;
    EXPECT_EQ(row[column["Frame"]], std::to_string(frame));
    EXPECT_EQ(row[column["Backend"]], "cpu");
    EXPECT_EQ(row[column["Grid"]], "48");
    // 25 timeline frames, then 25 binary, then timeline again.
    const bool binary = frame >= 25 && frame < 50;
    EXPECT_EQ(row[column["SyncMode"]], binary ? "binary" : "timeline") << frame;
    EXPECT_EQ(row[column["TimelineValue"]], binary ? "NA" : std::to_string(2 * frame + 2)) << frame;
    // Every frame's GPU work was read back (lavapipe has timestamps).
    EXPECT_NE(row[column["MsRenderGpu"]], "NA") << frame;
    EXPECT_NE(row[column["MsSimGpu"]], "NA") << frame;
    EXPECT_GT(std::stod(row[column["MsBetweenPresents"]]), 0.0) << frame;
  }
  const auto summary = nlohmann::json::parse(readFile(dir + "/run.summary.json"));
  EXPECT_EQ(summary.at("rows"), 70);
  EXPECT_EQ(summary.at("warmupFramesExcluded"), 10);
  EXPECT_EQ(summary.at("frames"), 60);
  EXPECT_EQ(summary.at("environment").at("presentMode"), "headless");
  EXPECT_NE(summary.at("environment").at("presentPoint").get<std::string>().find("vkQueueSubmit"),
            std::string::npos);
  EXPECT_EQ(summary.at("environment").at("transfer"), "zero-copy");
  EXPECT_EQ(summary.at("environment").at("waitStrategy"), "poll");
  EXPECT_EQ(summary.at("environment").at("memoryOwner"), "vulkan");
  EXPECT_TRUE(summary.at("averageFps").is_number());
  // The plot script reads what the app wrote.
  const AppResult plot = runApp({dir + "/run.csv", "-o", dir + "/run.png"}, {}, 120,
                                std::string(VKSIM_SOURCE_DIR) + "/scripts/plot-capture");
  EXPECT_EQ(plot.exitCode, 0) << plot.err;
  EXPECT_TRUE(fileExists(dir + "/run.png"));
}

TEST(Capture, TraceIsValidJsonWithNestedSpansOnFourTracks) {
  const std::string dir = makeTempDir("trace");
  for (const char* strategy : {"poll", "enqueue"}) {
    const std::string path = dir + "/" + strategy + ".json";
    const AppResult result =
        runApp({"--headless", "--backend", "cpu", "--grid", "48", "--frames", "40", "--size", "96x96",
                "--switch-sync-every", "10", "--wait-strategy", strategy, "--trace", path},
               kValidation);
    expectQuietMessengerRun(result);
    const auto trace = nlohmann::json::parse(readFile(path));  // throws, failing the test, if invalid
    expectNestedTracks(trace);
    size_t frames = 0, switches = 0;
    for (const auto& event : trace.at("traceEvents")) {
      if (event.at("ph") == "X" && event.at("tid") == 1) ++frames;
      if (event.at("ph") == "i" && event.value("s", "") == "g") ++switches;  // not the schedule's events
    }
    EXPECT_EQ(frames, 40u) << strategy;
    EXPECT_EQ(switches, 3u) << strategy << ": switches after frames 10, 20 and 30";
  }
}

// With the overlay on, each frame's ImGui build (track 5) and its recording
// into the render's command buffer (track 6) are spans tagged with the frame
// that draws them, in the order the overlay needs: built, then recorded
// inside that frame's host frame, before that frame's render starts on the
// GPU. So the build a frame's span names is the one that frame drew. The cpu
// backend takes turns with the host (the build runs ahead, during the frame
// before's render); vulkan orders its handovers in the queue (the build runs
// at the frame boundary).
TEST(Capture, TraceWithTheOverlayHasEachFramesBuildAndRecordBeforeItsRender) {
  const std::string dir = makeTempDir("trace-overlay");
  struct Span {
    double start = 0.0, end = 0.0;
  };
  for (const char* backend : {"cpu", "vulkan"}) {
    const std::string path = dir + "/" + backend + ".json";
    const AppResult result = runApp({"--headless", "--overlay", "--backend", backend, "--grid", "48",
                                     "--frames", "40", "--size", "320x240", "--trace", path},
                                    kValidation);
    expectQuietMessengerRun(result);
    const auto trace = nlohmann::json::parse(readFile(path));
    expectNestedTracks(trace, 6);
    std::map<std::string, std::map<int64_t, Span>> spans;  // span name -> frame -> span
    for (const auto& event : trace.at("traceEvents")) {
      if (event.at("ph") != "X") continue;
      const double start = event.at("ts").get<double>();
      const Span span{start, start + event.at("dur").get<double>()};
      auto& named = spans[event.at("name").get<std::string>()];
      EXPECT_TRUE(named.emplace(event.at("args").at("frame"), span).second)
          << backend << ": two " << event.at("name") << " spans for frame " << event.at("args").at("frame");
    }
    const auto& builds = spans["overlay build"];
    const auto& records = spans["overlay record"];
    EXPECT_EQ(builds.size(), 40u) << backend;
    EXPECT_EQ(records.size(), 40u) << backend;
    for (const auto& [frame, build] : builds) {
      ASSERT_TRUE(records.count(frame) && spans["frame"].count(frame) && spans["render"].count(frame))
          << backend << ": frame " << frame;
      const Span record = records.at(frame), host = spans["frame"].at(frame);
      EXPECT_LE(build.end, record.start) << backend << ": frame " << frame << "'s build";
      EXPECT_TRUE(host.start <= record.start && record.end <= host.end) << backend << ": frame " << frame;
      EXPECT_LE(record.end, spans["render"].at(frame).start) << backend << ": frame " << frame << "'s record";
    }
  }
  // Without the overlay, neither span and neither track.
  const std::string path = dir + "/none.json";
  const std::vector<std::string> plainArgs{"--headless", "--backend", "cpu", "--grid",  "48",
                                           "--frames",   "10",        "--size", "96x96", "--trace", path};
  const AppResult plain = runApp(plainArgs, kValidation);
  expectQuietMessengerRun(plain);
  expectNestedTracks(nlohmann::json::parse(readFile(path)), 4);
}

TEST(Capture, UnwritablePathsExitTwoBeforeAnyFrameAndLeaveNothing) {
  const std::string dir = makeTempDir("capture-bad");
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"--capture", "/proc/no/such/dir/run.csv"},
        std::vector<std::string>{"--capture", dir + "/run.txt"}, std::vector<std::string>{"--trace", dir},
        std::vector<std::string>{"bench", "--grids", "16", "--json", "/proc/no/such/dir/bench.json"}}) {
    std::vector<std::string> args{"--headless", "--backend", "cpu", "--frames", "5"};
    if (bad[0] == "bench") args.clear();
    args.insert(args.end(), bad.begin(), bad.end());
    const AppResult result = runApp(args, kValidation);
    EXPECT_EQ(result.exitCode, 2) << bad[1] << result.out << result.err;
    EXPECT_EQ(result.out.find("running"), std::string::npos) << "no frame may run";
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
  EXPECT_FALSE(fileExists(dir + "/run.txt"));
}

struct TransferCase {
  const char* model;
  const char* sync;
};

class CopyPath : public ::testing::TestWithParam<TransferCase> {};

// The copy path exists to measure what zero-copy saves, so it must draw the
// same thing: the same final vertices, byte for byte, and the same image.
TEST_P(CopyPath, EndsInTheSameVerticesAndImageAsZeroCopy) {
  const auto [model, sync] = GetParam();
  const std::string dir = makeTempDir(std::string("copy-") + model + "-" + sync);
  const auto run = [&](const char* transfer) {
    const AppResult result = runApp({"--headless",
                                     "--backend",
                                     "cpu",
                                     "--sim",
                                     model,
                                     "--sync",
                                     sync,
                                     "--grid",
                                     "72",
                                     "--frames",
                                     "45",
                                     "--size",
                                     "128x128",
                                     "--seed",
                                     "3",
                                     "--transfer",
                                     transfer,
                                     // The copy path draws no surface texture:
                                     // both runs draw the height colour alone.
                                     "--texture",
                                     "off",
                                     "--dump-vertices",
                                     dir + "/" + transfer + ".bin",
                                     "--screenshot",
                                     dir + "/" + transfer + ".png"},
                                    kValidation);
    expectQuietMessengerRun(result);
    EXPECT_EQ(summaryField(result.out, "transfer"), transfer);
    EXPECT_EQ(summaryField(result.out, "validation_errors"), "0");
    return result;
  };
  const AppResult zeroCopy = run("zero-copy");
  const AppResult copy = run("copy");
  EXPECT_EQ(summaryField(copy.out, "timeline_value"), "0") << "the copy path signals no semaphore";
  const std::string a = readFile(dir + "/zero-copy.bin"), b = readFile(dir + "/copy.bin");
  ASSERT_EQ(a.size(), size_t(72 * 72 * 32));
  EXPECT_TRUE(a == b) << "vertex dumps differ";
  EXPECT_TRUE(readFile(dir + "/zero-copy.png") == readFile(dir + "/copy.png")) << "screenshots differ";
}

INSTANTIATE_TEST_SUITE_P(ModelsAndSyncModes, CopyPath,
                         ::testing::Values(TransferCase{"ripple", "timeline"},
                                           TransferCase{"ripple", "binary"},
                                           TransferCase{"sinewave", "timeline"}),
                         [](const ::testing::TestParamInfo<TransferCase>& p) {
                           return std::string(p.param.model) + "_" + p.param.sync;
                         });

TEST(Bench, TinyMatrixWritesOneJsonRowPerConfiguration) {
  const std::string dir = makeTempDir("bench");
  const AppResult result = runApp({"bench", "--backend", "cpu", "--grids", "16,32", "--frames", "20",
                                   "--warmup", "5", "--warmup-ms", "0", "--json", dir + "/bench.json"},
                                  kValidation, 300);
  expectQuietMessengerRun(result);
  EXPECT_NE(result.out.find("unexplained ms"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("validation_errors=0"), std::string::npos) << result.out;
  const auto bench = nlohmann::json::parse(readFile(dir + "/bench.json"));
  EXPECT_TRUE(bench.at("machine").at("gpu").is_string());
  EXPECT_TRUE(bench.at("machine").contains("cpu"));
  const auto& results = bench.at("results");
  // The render ends' P99 needs the render spans on the host's clock.
  const bool calibrated =
      bench.at("settings").at("gpuTimeBase").get<std::string>().starts_with("Vulkan timestamps through");
  // Per grid: 2 sync modes x 2 wait strategies on the zero-copy path, and the copy path once.
  ASSERT_EQ(results.size(), 10u);
  std::map<std::string, int> configurations;
  for (const auto& row : results) {
    EXPECT_EQ(row.at("backend"), "cpu");
    EXPECT_EQ(row.at("frames"), 20);
    EXPECT_GT(row.at("meanMs").get<double>(), 0.0);
    EXPECT_TRUE(row.at("p99Ms").is_number());
    if (calibrated)
      EXPECT_GT(row.at("renderEndP99Ms").get<double>(), 0.0);
    else
      EXPECT_TRUE(row.at("renderEndP99Ms").is_null());
    // Each part is counted inside the frames' intervals (app/capture/frame_budget.h):
    // the rest is never negative, whatever the steps did.
    EXPECT_GE(row.at("unexplainedMs").get<double>(), -1e-9);
    EXPECT_TRUE(row.at("hostStealMs").is_number() || row.at("hostStealMs").is_null());
    EXPECT_TRUE(row.at("involuntarySwitches").is_number_unsigned());
    EXPECT_TRUE(row.at("renderGpuMs").is_number());
    EXPECT_TRUE(row.at("simGpuMs").is_number());
    EXPECT_EQ(row.at("vertices"), row.at("grid").get<int>() * row.at("grid").get<int>());
    EXPECT_EQ(row.at("warmupFrames"), 5);  // --warmup-ms 0: the frame count alone
    ++configurations[row.at("sync").get<std::string>() + "/" + row.at("transfer").get<std::string>() + "/" +
                     row.at("waitStrategy").get<std::string>()];
  }
  EXPECT_EQ(configurations.size(), 5u);
  for (const auto& [configuration, count] : configurations) EXPECT_EQ(count, 2) << configuration;
  EXPECT_EQ(configurations.count("none/copy/none"), 1u);
  const AppResult plot = runApp({dir + "/bench.json", "-o", dir + "/bench.png"}, {}, 120,
                                std::string(VKSIM_SOURCE_DIR) + "/scripts/plot-bench");
  EXPECT_EQ(plot.exitCode, 0) << plot.err;
  EXPECT_TRUE(fileExists(dir + "/bench.png"));
}

// --texture both --overlay both: each configuration four times, overlay
// innermost. The rows say what ran: the CPU backend's zero-copy path writes
// the texture ("on"), the copy path writes none ("placeholder"); a row with
// the overlay drew it in its last frame and a row without it drew none.
TEST(Bench, TextureAndOverlayRowsSayWhatEachRowRan) {
  const std::string dir = makeTempDir("bench-looks");
  const AppResult result =
      runApp({"bench", "--backend", "cpu", "--grids", "16", "--sync", "timeline", "--wait-strategy", "poll",
              "--texture", "both", "--overlay", "both", "--frames", "5", "--warmup", "2", "--warmup-ms", "0",
              "--json", dir + "/bench.json"},
             kValidation, 300);
  expectQuietMessengerRun(result);
  EXPECT_NE(result.out.find("  lod  texture      overlay "), std::string::npos) << result.out;
  const auto results = nlohmann::json::parse(readFile(dir + "/bench.json")).at("results");
  ASSERT_EQ(results.size(), 8u) << "(zero-copy + copy) x 2 textures x 2 overlays";
  const char* textures[] = {"on", "on", "off", "off", "placeholder", "placeholder", "off", "off"};
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& row = results[i];
    EXPECT_EQ(row.at("transfer"), i < 4 ? "zero-copy" : "copy") << i;
    EXPECT_EQ(row.at("texture"), textures[i]) << i;
    const bool overlay = i % 2 == 0;
    EXPECT_EQ(row.at("overlay"), overlay ? "on" : "off") << i;
    if (overlay)
      EXPECT_GT(row.at("overlayVertices").get<uint64_t>(), 0u) << i;
    else
      EXPECT_EQ(row.at("overlayVertices").get<uint64_t>(), 0u) << i;
    EXPECT_EQ(row.at("frames"), 5) << i;
  }
}

// --warmup-ms keeps warming up past --warmup's frames (bench.h's
// warmupFinished): each row says how many frames its warm-up ran, never fewer
// than asked, and the settings carry the time asked for.
TEST(Bench, WarmupRunsAtLeastItsFramesAndRecordsHowManyItRan) {
  const std::string dir = makeTempDir("bench-warmup");
  const AppResult result = runApp({"bench", "--backend", "cpu", "--grids", "16", "--sync", "timeline", "--transfer",
                                   "zero-copy", "--wait-strategy", "poll", "--frames", "5", "--warmup", "3",
                                   "--warmup-ms", "200", "--json", dir + "/bench.json"},
                                  kValidation, 300);
  expectQuietMessengerRun(result);
  EXPECT_NE(result.out.find("after 3 warm-up frames and at least 200 ms"), std::string::npos) << result.out;
  const auto bench = nlohmann::json::parse(readFile(dir + "/bench.json"));
  EXPECT_EQ(bench.at("settings").at("warmupMs"), 200);
  ASSERT_EQ(bench.at("results").size(), 1u);
  EXPECT_GE(bench.at("results")[0].at("warmupFrames").get<int>(), 3);
  EXPECT_EQ(bench.at("results")[0].at("frames"), 5);
}

}  // namespace
}  // namespace vksim::testing
