// The simulations in the render's own queue, on lavapipe with the validation
// layer and synchronization validation on (ctest sets VKSIM_VALIDATION=1):
// --backend vulkan against the CPU reference within the bounds that
// docs/queue-backends.md derives, in both sync modes and switching every
// frame; the options that do not apply; cuda-nvx's exit 3 where
// VK_NVX_binary_import is absent; and the bench naming the backend.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "app/interop/value_schedule.h"
#include "app_runner.h"
#include "drop_footprint_check.h"
#include "schedule_check.h"

namespace vksim::testing {
namespace {

constexpr int kGrid = 64;
constexpr int kFrames = 120;

std::vector<float> readFloats(const std::string& path) {
  const std::string bytes = readFile(path);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

// Largest |a - b| per component kind: x and z (and w) of the position, the
// height y, and the normal.
struct Difference {
  double coordinates = 0, height = 0, normal = 0;
};
Difference maxDifference(const std::vector<float>& a, const std::vector<float>& b) {
  Difference d;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(double(a[i]) - double(b[i]));
    const size_t component = i % 8;
    double& slot = component == 1 ? d.height : (component < 4 ? d.coordinates : d.normal);
    slot = std::max(slot, diff);
  }
  return d;
}

AppResult runBackend(const std::string& backend, const std::string& model, const std::vector<std::string>& extra,
                     const std::string& dump) {
  std::vector<std::string> args{"--headless", "--backend", backend, "--sim", model, "--grid",
                                std::to_string(kGrid), "--frames", std::to_string(kFrames), "--seed", "3",
                                "--size", "96x64", "--dump-vertices", dump};
  args.insert(args.end(), extra.begin(), extra.end());
  return runApp(args, kValidation, 300);
}

struct BoundCase {
  const char* model;
  const char* sync;
  // docs/queue-backends.md, "Against the CPU reference", at grid n <= 512:
  double height;  // sinewave: the same correctly rounded products of the same factors
  double normal;
};

void PrintTo(const BoundCase& c, std::ostream* out) { *out << c.model << " " << c.sync; }

class VulkanAgainstCpu : public ::testing::TestWithParam<BoundCase> {};

TEST_P(VulkanAgainstCpu, WithinTheDerivedBound) {
  const BoundCase& c = GetParam();
  const std::string dir = makeTempDir(std::string("vulkan-") + c.model + "-" + c.sync);
  const AppResult vulkan = runBackend("vulkan", c.model, {"--sync", c.sync}, dir + "/vulkan.bin");
  ASSERT_FALSE(vulkan.timedOut) << vulkan.out << vulkan.err;
  expectCleanRun(vulkan);
  EXPECT_EQ(summaryField(vulkan.out, "backend"), "vulkan");
  EXPECT_EQ(summaryField(vulkan.out, "frames"), std::to_string(kFrames));
  EXPECT_EQ(summaryField(vulkan.out, "timeline_value"),
            std::string(c.sync) == "timeline" ? std::to_string(2 * kFrames) : "0");
  const AppResult cpu = runBackend("cpu", c.model, {"--sync", c.sync}, dir + "/cpu.bin");
  expectCleanRun(cpu);
  const std::vector<float> a = readFloats(dir + "/vulkan.bin"), b = readFloats(dir + "/cpu.bin");
  ASSERT_EQ(a.size(), size_t(kGrid) * kGrid * 8);
  ASSERT_EQ(a.size(), b.size());
  const Difference d = maxDifference(a, b);
  std::printf("[ %s %s ] max |vulkan - cpu|: x/z/w %.3g, height %.3g, normal %.3g\n", c.model, c.sync,
              d.coordinates, d.height, d.normal);
  // x, z and w come from the host's table and constants: equal bit for bit.
  EXPECT_EQ(d.coordinates, 0.0);
  EXPECT_LE(d.height, c.height);
  EXPECT_LE(d.normal, c.normal);
  // Something moved: the centre row differs from the first (not a flat field).
  EXPECT_NE(std::memcmp(a.data(), a.data() + 8 * size_t(kGrid) * (kGrid / 2), 8 * kGrid * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Models, VulkanAgainstCpu,
                         ::testing::Values(BoundCase{"sinewave", "timeline", FLT_MIN, 1.3e-6},
                                           BoundCase{"sinewave", "binary", FLT_MIN, 1.3e-6},
                                           BoundCase{"ripple", "timeline", 2e-6, 5e-4},
                                           BoundCase{"ripple", "binary", 2e-6, 5e-4}),
                         [](const ::testing::TestParamInfo<BoundCase>& p) {
                           return std::string(p.param.model) + "_" + p.param.sync;
                         });

// A drop changes only its footprint (sim/models.h, kDropReachSigmas), on the
// reference and on the Vulkan compute backend alike, in both sync modes.
TEST(DropFootprint, NoBackendHereChangesACellBeyondIt) {
  const std::string dir = makeTempDir("drop-footprint");
  constexpr int kFootprintGrid = 96, kFootprintFrames = 3;
  for (const char* backend : {"cpu", "vulkan"})
    for (const char* sync : {"timeline", "binary"}) {
      const std::string dump = dir + "/" + backend + "-" + sync + ".bin";
      std::vector<std::string> args{"--headless", "--backend", backend, "--sync", sync, "--size", "96x64",
                                    "--dump-vertices", dump};
      for (const std::string& arg : footprintRunArgs(kFootprintGrid, kFootprintFrames)) args.push_back(arg);
      const AppResult run = runApp(args, kValidation, 300);
      ASSERT_FALSE(run.timedOut) << run.out << run.err;
      expectCleanRun(run);
      EXPECT_GT(expectFlatBeyondTheFootprint(readFile(dump), kFootprintGrid, kFootprintFrames, backend), 0u);
    }
}

// Switching the semaphore kind at every frame boundary changes no vertex: the
// run ends where the timeline-only run does, bit for bit.
TEST(VulkanBackend, SwitchingEveryFrameEndsInTheSameVertices) {
  const std::string dir = makeTempDir("vulkan-switch");
  const AppResult switching =
      runBackend("vulkan", "ripple", {"--sync", "timeline", "--switch-sync-every", "1"}, dir + "/switching.bin");
  expectCleanRun(switching);
  EXPECT_EQ(summaryField(switching.out, "frames"), std::to_string(kFrames));
  const AppResult timeline = runBackend("vulkan", "ripple", {"--sync", "timeline"}, dir + "/timeline.bin");
  expectCleanRun(timeline);
  const std::string a = readFile(dir + "/switching.bin"), b = readFile(dir + "/timeline.bin");
  ASSERT_EQ(a.size(), size_t(kGrid) * kGrid * 32);
  EXPECT_TRUE(a == b) << "the switching run's vertices differ from the timeline run's";
}

// The schedule as the vulkan backend submitted it (its --trace), held to the
// rule that schedule_check.h writes out, wait stages included: the render's
// wait on the step before it must cover the vertex input, where the mesh
// pass first reads what the step wrote. Synchronization validation (layer
// 1.3.239) does not report a wait at VERTEX_SHADER here, so only this check
// sees one. Switching every frame puts a mode change before every render.
//
// First the plan, in-process: render k must wait on what sim k-1 signalled,
// in sim k-1's mode (frame 0 on the initial write's simDone). A render that
// waits in its own mode after a switch waits for a signal nobody sends, and
// the run would stall where no bound reaches it (on lavapipe inside
// vkGetQueryPoolResults): the plan, checked by the functions the run uses,
// fails in microseconds instead, and the app is not started.
std::vector<std::string> switchingPlanFailures(SyncMode start, uint64_t frames) {
  std::vector<std::string> failures;
  const SyncMode other = start == SyncMode::timeline ? SyncMode::binary : SyncMode::timeline;
  SyncMode previous = kInitialStateSignal.mode;
  for (uint64_t k = 0; k < frames; ++k) {
    const SyncMode mode = k % 2 == 0 ? start : other;  // --switch-sync-every 1
    const RenderSync sync = renderSyncForFrame(k, mode, previous);
    const bool waitsOnSim = previous == SyncMode::binary
                                ? sync.wait == RenderSync::Wait::simDone
                                : sync.wait == RenderSync::Wait::timeline && sync.waitValue == 2 * k;
    if (!waitsOnSim)
      failures.push_back("render " + std::to_string(k) + " in " + toString(mode) + " after a sim step in " +
                         toString(previous) + " does not wait on that step's signal");
    previous = mode;
  }
  return failures;
}

TEST(VulkanBackend, ScheduleAsSubmittedWaitsAtTheVertexInputOverEverySwitch) {
  for (const SyncMode start : {SyncMode::timeline, SyncMode::binary}) {
    const std::vector<std::string> planned = switchingPlanFailures(start, 40);
    ASSERT_TRUE(planned.empty()) << toString(start) << ", as planned:\n" << joinLines(planned);
  }
  const std::string dir = makeTempDir("vulkan-schedule");
  for (const char* startMode : {"timeline", "binary"}) {
    const std::string trace = dir + "/" + startMode + ".json";
    const AppResult run = runApp({"--headless", "--backend", "vulkan", "--grid", "32", "--size", "96x64",
                                  "--frames", "40", "--switch-sync-every", "1", "--sync", startMode, "--trace",
                                  trace},
                                 kValidation, 300);
    expectCleanRun(run);
    const std::vector<std::string> failures =
        checkSchedule(nlohmann::json::parse(readFile(trace)), ScheduleRun{40, startMode, 1});
    EXPECT_TRUE(failures.empty()) << startMode << ":\n" << joinLines(failures);
  }
}

// A capture's summary names the backend that ran.
TEST(VulkanBackend, CaptureRowsAndTheSummaryNameTheBackend) {
  const std::string dir = makeTempDir("vulkan-capture");
  const AppResult run = runApp({"--headless", "--backend", "vulkan", "--grid", "64", "--frames", "30", "--size",
                                "96x64", "--capture", dir + "/capture.csv"},
                               kValidation, 300);
  expectCleanRun(run);
  const auto summary = nlohmann::json::parse(readFile(dir + "/capture.summary.json"));
  EXPECT_EQ(summary.at("environment").at("backend"), "vulkan") << summary.dump();
}

TEST(VulkanBackend, BenchRowsNameTheBackendAndLeaveOutTheCopyPath) {
  const std::string dir = makeTempDir("vulkan-bench");
  const AppResult result = runApp({"bench", "--backend", "vulkan", "--grids", "16,32", "--frames", "20", "--warmup",
                                   "5", "--json", dir + "/bench.json"},
                                  kValidation, 300);
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("validation_errors=0"), std::string::npos) << result.out;
  const auto bench = nlohmann::json::parse(readFile(dir + "/bench.json"));
  const auto& rows = bench.at("results");
  // Per grid: 2 sync modes x 2 wait strategies, zero-copy only.
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("backend"), "vulkan");
    EXPECT_EQ(row.at("transfer"), "zero-copy");
    EXPECT_TRUE(row.at("simGpuMs").is_number());
  }
}

// Options that have no meaning for a step inside the render's submission are
// refused with one line and exit 2, before any device is made.
TEST(QueueBackends, OptionsThatDoNotApplyAreRefusedWithOneLine) {
  for (const char* backend : {"vulkan", "cuda-nvx"}) {
    for (const std::vector<std::string>& extra :
         {std::vector<std::string>{"--inject-fault", "sim-stalls@3"}, {"--inject-fault", "import-fails"},
          {"--inject-fault", "export-fails"}, {"--transfer", "copy"}}) {
      std::vector<std::string> args{"--headless", "--backend", backend, "--frames", "5"};
      args.insert(args.end(), extra.begin(), extra.end());
      const AppResult result = runApp(args, kValidation, 60);
      EXPECT_EQ(result.exitCode, 2) << backend << " " << extra[1] << "\n" << result.err;
      EXPECT_NE(result.err.find("does not apply"), std::string::npos) << result.err;
      EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    }
  }
}

// lavapipe has no VK_NVX_binary_import: one line naming it, exit 3.
TEST(CudaNvxBackend, WithoutTheExtensionSaysSoAndExitsThree) {
  const AppResult result = runApp({"--headless", "--backend", "cuda-nvx", "--frames", "5"}, kValidation, 60);
  ASSERT_FALSE(result.timedOut);
  EXPECT_EQ(result.exitCode, 3) << result.out << result.err;
  EXPECT_NE(result.err.find("VK_NVX_binary_import"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
}

// The faults that apply behave as with the other backends: a skipped signal
// runs out the bound of the wait that needed it (exit 4, one line naming that
// wait), and a lost device ends the run with exit 4 after a complete teardown.
struct QueueFault {
  const char* fault;
  const char* sync;
  const char* wait;
};
void PrintTo(const QueueFault& c, std::ostream* out) { *out << c.fault << " " << c.sync; }

class VulkanFault : public ::testing::TestWithParam<QueueFault> {};

TEST_P(VulkanFault, EndsWithExitFourAndOneLine) {
  const QueueFault& c = GetParam();
  const AppResult result =
      runApp({"--headless", "--backend", "vulkan", "--grid", "32", "--size", "96x64", "--frames", "40", "--sync",
              c.sync, "--inject-fault", std::string(c.fault) + "@5"},
             {"VKSIM_VALIDATION=1", "VKSIM_WAIT_TIMEOUT_MS=500"}, 120);
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  EXPECT_EQ(result.exitCode, 4) << result.out << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_NE(result.err.find(c.wait), std::string::npos) << result.err;
}

INSTANTIATE_TEST_SUITE_P(
    Faults, VulkanFault,
    ::testing::Values(QueueFault{"sim-skips-signal", "timeline", "timeout: simulation signal of timeline value 12"},
                      QueueFault{"sim-skips-signal", "binary", "timeout: simulation signal of simDone"},
                      QueueFault{"render-skips-signal", "timeline", "timeout: render signal of timeline value 11"},
                      QueueFault{"render-skips-signal", "binary", "timeout: render signal of renderDone"},
                      QueueFault{"device-lost", "timeline", "device lost: the render fence"}),
    [](const ::testing::TestParamInfo<QueueFault>& p) {
      std::string name = std::string(p.param.fault) + "_" + p.param.sync;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

}  // namespace
}  // namespace vksim::testing
