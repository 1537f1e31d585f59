// Every injected fault ends cleanly (docs/testing.md), on the CPU backend on
// lavapipe with the validation layer on: the documented exit code, exactly
// one stderr line naming the wait, the mode and the frame (so no validation
// message and no second error from teardown either), teardown complete, and
// every output file asked for either absent or complete and well-formed (the
// capture of the frames before the fault complete, the rest absent).
//
// The wait bound is shortened through VKSIM_WAIT_TIMEOUT_MS; the hang guard
// kills a child that is still running kHangGuardSeconds later. The guard is
// the bound plus 2 s plus the start-up that the app needs before its first
// frame on this machine: it only turns a hang into a failure, it does not
// measure speed.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app_runner.h"
#include "renderer/frame_sync.h"
#include "renderer/vk_check.h"

namespace vksim::testing {
namespace {

constexpr int kWaitTimeoutMs = 1000;
constexpr int kStartUpAllowanceSeconds = 20;  // lavapipe + validation layer on two shared cores
constexpr int kHangGuardSeconds = kWaitTimeoutMs / 1000 + 2 + kStartUpAllowanceSeconds;
constexpr int kGrid = 24;
constexpr int kFaultFrame = 3;

// Synchronization validation on as well: an error path must not leave a
// hazard behind either (any message would be a second stderr line).
std::vector<std::string> faultEnvironment() {
  return {"VKSIM_VALIDATION=1", "VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT",
          "VKSIM_WAIT_TIMEOUT_MS=" + std::to_string(kWaitTimeoutMs)};
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

// A CSV is complete when it has a header and every row has its columns.
void expectCompleteCsv(const std::string& path) {
  const std::vector<std::string> rows = lines(readFile(path));
  ASSERT_FALSE(rows.empty()) << path;
  const auto columns = [](const std::string& row) { return std::count(row.begin(), row.end(), ',') + 1; };
  const auto header = columns(rows[0]);
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_EQ(columns(rows[i]), header) << path << " row " << i;
  EXPECT_EQ(readFile(path).back(), '\n') << path << " ends inside a row";
}

void expectCompleteJson(const std::string& path) {
  bool parsed = false;
  try {
    parsed = !nlohmann::json::parse(readFile(path)).is_discarded();
  } catch (const nlohmann::json::exception& error) {
    ADD_FAILURE() << path << ": " << error.what();
  }
  EXPECT_TRUE(parsed) << path;
}

void expectCompletePng(const std::string& path) {
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 4);
  EXPECT_NE(pixels, nullptr) << path << ": " << stbi_failure_reason();
  EXPECT_GT(width, 0);
  EXPECT_GT(height, 0);
  stbi_image_free(pixels);
}

// Each output is absent or complete, and nothing half-written (a temporary
// file) is left beside it.
void expectNoPartialFiles(const std::string& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_EQ(name.find(".tmp-"), std::string::npos) << "left behind: " << name;
    const std::string path = entry.path().string();
    if (name == "capture.csv") expectCompleteCsv(path);
    if (name.ends_with(".json")) expectCompleteJson(path);
    if (name.ends_with(".png")) expectCompletePng(path);
    if (name == "vertices.bin") {
      EXPECT_EQ(std::filesystem::file_size(path), size_t(kGrid * kGrid * 32));
    }
  }
}

struct FaultCase {
  const char* fault;
  const char* sync;
  const char* waitStrategy;
  uint64_t reportedFrame;  // the frame whose wait runs out
  const char* wait;        // words of the wait the line must name
};

// Readable names in test listings instead of the struct's bytes.
void PrintTo(const FaultCase& c, std::ostream* out) { *out << c.fault << " " << c.sync << " " << c.waitStrategy; }

std::string caseName(const ::testing::TestParamInfo<FaultCase>& info) {
  std::string name = std::string(info.param.fault) + "_" + info.param.sync + "_" + info.param.waitStrategy;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class RunTimeFault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(RunTimeFault, EndsWithExitFourAndOneLineAndNoPartialFile) {
  const FaultCase& c = GetParam();
  const std::string dir = makeTempDir(caseName({c, 0}));
  const AppResult result = runApp(
      {"--headless", "--backend", "cpu", "--grid", std::to_string(kGrid), "--size", "96x64", "--frames", "40",
       "--sync", c.sync, "--wait-strategy", c.waitStrategy, "--inject-fault",
       std::string(c.fault) + "@" + std::to_string(kFaultFrame), "--capture", dir + "/capture.csv", "--trace",
       dir + "/trace.json", "--screenshot", dir + "/shot.png", "--dump-vertices", dir + "/vertices.bin"},
      faultEnvironment(), kHangGuardSeconds);
  ASSERT_FALSE(result.timedOut) << "still running after " << kHangGuardSeconds << " s\n" << result.out << result.err;
  EXPECT_EQ(result.exitCode, 4) << result.out << result.err;
  const std::vector<std::string> errorLines = lines(result.err);
  ASSERT_EQ(errorLines.size(), 1u) << result.err;
  const std::string& line = errorLines[0];
  EXPECT_NE(line.find(c.wait), std::string::npos) << line;
  EXPECT_NE(line.find("(frame " + std::to_string(c.reportedFrame) + ", " + c.sync + " mode)"), std::string::npos)
      << line;
  EXPECT_EQ(summaryField(result.out, "frames"), "") << "a failed run prints no summary";
  expectNoPartialFiles(dir);
  // The frames before the fault are kept as a complete capture (not after a
  // lost device, which has no timings to give); the last frame's image and
  // vertices are never written.
  if (std::string(c.fault) != "device-lost") {
    ASSERT_TRUE(fileExists(dir + "/capture.csv")) << result.out;
    EXPECT_GE(lines(readFile(dir + "/capture.csv")).size(), size_t(1 + kFaultFrame));
    EXPECT_TRUE(fileExists(dir + "/capture.summary.json"));
    EXPECT_TRUE(fileExists(dir + "/trace.json"));
  }
  EXPECT_FALSE(fileExists(dir + "/shot.png"));
  EXPECT_FALSE(fileExists(dir + "/vertices.bin"));
}

// sim-skips-signal at frame F: render F+1 waits for a signal that never
// comes. render-skips-signal at F: sim F does. sim-stalls at F: sim F's wait
// blocks for the whole bound. device-lost at F: frame F's first wait reports
// the loss, and teardown's waits too, which must still destroy everything.
INSTANTIATE_TEST_SUITE_P(
    CpuBackend, RunTimeFault,
    ::testing::Values(
        FaultCase{"sim-skips-signal", "timeline", "poll", kFaultFrame + 1, "timeout: simulation signal of timeline value 8"},
        FaultCase{"sim-skips-signal", "timeline", "enqueue", kFaultFrame + 1,
                  "timeout: simulation signal of timeline value 8"},
        FaultCase{"sim-skips-signal", "binary", "poll", kFaultFrame + 1, "timeout: simulation signal of simDone"},
        FaultCase{"sim-skips-signal", "binary", "enqueue", kFaultFrame + 1, "timeout: simulation signal of simDone"},
        FaultCase{"render-skips-signal", "timeline", "poll", kFaultFrame, "timeout: render signal of timeline value 7"},
        FaultCase{"render-skips-signal", "timeline", "enqueue", kFaultFrame, "timeout: render signal of timeline value 7"},
        FaultCase{"render-skips-signal", "binary", "poll", kFaultFrame, "timeout: render signal of renderDone"},
        FaultCase{"render-skips-signal", "binary", "enqueue", kFaultFrame, "timeout: render signal of renderDone"},
        FaultCase{"sim-stalls", "timeline", "poll", kFaultFrame, "timeout: simulation wait for timeline value 7"},
        FaultCase{"sim-stalls", "timeline", "enqueue", kFaultFrame, "timeout: simulation wait for timeline value 7"},
        FaultCase{"sim-stalls", "binary", "poll", kFaultFrame, "timeout: simulation wait for renderDone"},
        FaultCase{"sim-stalls", "binary", "enqueue", kFaultFrame, "timeout: simulation wait for renderDone"},
        FaultCase{"device-lost", "timeline", "poll", kFaultFrame, "device lost: the render fence"},
        FaultCase{"device-lost", "binary", "enqueue", kFaultFrame, "device lost: the render fence"}),
    caseName);

// A fault whose frame is never reached changes nothing.
TEST(RunTimeFault, AFaultAfterTheLastFrameLeavesTheRunClean) {
  const AppResult result = runApp({"--headless", "--backend", "cpu", "--grid", std::to_string(kGrid), "--size",
                                   "96x64", "--frames", "5", "--inject-fault", "sim-stalls@5", "--inject-fault",
                                   "render-skips-signal@99"},
                                  faultEnvironment(), kHangGuardSeconds);
  ASSERT_FALSE(result.timedOut);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(summaryField(result.out, "timeline_value"), "10");
}

// The start-up faults: the vertex memory is exported (lavapipe can), and the
// handoff fails where the CUDA backend would import: exit 3, one line,
// nothing written.
TEST(StartUpFault, ImportAndExportFailuresExitThreeWithOneLine) {
  for (const char* fault : {"import-fails", "export-fails"}) {
    const std::string dir = makeTempDir(fault);
    const AppResult result =
        runApp({"--headless", "--backend", "cpu", "--grid", std::to_string(kGrid), "--size", "96x64", "--frames",
                "10", "--inject-fault", fault, "--capture", dir + "/capture.csv", "--screenshot", dir + "/shot.png"},
               faultEnvironment(), kHangGuardSeconds);
    ASSERT_FALSE(result.timedOut) << fault;
    EXPECT_EQ(result.exitCode, 3) << fault << "\n" << result.out << result.err;
    const std::vector<std::string> errorLines = lines(result.err);
    ASSERT_EQ(errorLines.size(), 1u) << result.err;
    EXPECT_NE(errorLines[0].find(std::string("injected fault ") + fault), std::string::npos) << errorLines[0];
    expectNoPartialFiles(dir);
    EXPECT_FALSE(fileExists(dir + "/shot.png"));
    EXPECT_FALSE(fileExists(dir + "/capture.csv"));
  }
}

// In-process, so that the semaphores themselves can be asked: after a stall
// in binary mode the stalled step never submitted its renderDone wait, so the
// render's signal is still pending consumption; the drain must consume it.
// The probe signals both binary semaphores and consumes them again: signalling
// a binary semaphore that is still signalled is invalid
// (VUID-vkQueueSubmit-pSignalSemaphores-00067), which the validation layer
// (VKSIM_VALIDATION=1, as ctest runs these tests) reports. The stall takes the
// process's wait bound (5 s here).
TEST(RunTimeFault, TheDrainConsumesTheRenderDoneThatAStalledStepLeft) {
  Options options;
  options.headless = true;
  options.backend = BackendChoice::cpu;
  options.sync = SyncMode::binary;
  options.model.grid = kGrid;
  options.width = 64;
  options.height = 64;
  options.faults.faults = {{FaultKind::simStalls, 2}};
  App app;
  app.headless = true;
  createApp(app, options);
  ASSERT_TRUE(app.instance.validation) << "run through ctest, which sets VKSIM_VALIDATION=1";
  const uint32_t errorsBefore = validationCounts().errors;
  EXPECT_EQ(runFrame(app), FrameStatus::rendered);
  EXPECT_EQ(runFrame(app), FrameStatus::rendered);
  EXPECT_THROW(runFrame(app), RuntimeFailure);
  EXPECT_TRUE(app.schedule.renderDoneUnconsumed) << "the stalled step enqueued no wait";
  EXPECT_FALSE(app.schedule.simSignal) << "render 2 waited on sim 1's signal";

  drainSchedule(app);
  EXPECT_FALSE(app.schedule.renderDoneUnconsumed);
  VK_CHECK(vkDeviceWaitIdle(app.device.device));
  const SemaphoreSignal signals[] = {{app.grid.semaphores.renderDone, 0}, {app.grid.semaphores.simDone, 0}};
  submitToQueue(app.device, VK_NULL_HANDLE, {}, signals, VK_NULL_HANDLE);
  const SemaphoreWait waits[] = {{app.grid.semaphores.renderDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT},
                                 {app.grid.semaphores.simDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT}};
  submitToQueue(app.device, VK_NULL_HANDLE, waits, {}, VK_NULL_HANDLE);
  VK_CHECK(vkDeviceWaitIdle(app.device.device));
  EXPECT_EQ(validationCounts().errors, errorsBefore) << "a binary semaphore was left signalled (printed above)";
  destroyApp(app);
}

}  // namespace
}  // namespace vksim::testing
