// Every injected fault ends cleanly on the CUDA backend (docs/testing.md), as
// tests/integration/test_fault_injection.cpp checks for the CPU backend:
// exit 4 (3 for the start-up faults), exactly one stderr line naming the wait,
// the mode and the frame, teardown complete (no second line, which a stream
// that never finished would print), and after import or export failures no
// fd left open. The hang guard kills a child still running after the wait
// bound plus 2 s plus start-up: it turns a hang into a failure, nothing more.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "app/app.h"
#include "app_runner.h"
#include "gpu_environment.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

using testing::openFdCount;

constexpr int kWaitTimeoutMs = 1000;
constexpr int kStartUpAllowanceSeconds = 30;  // CUDA context and Vulkan device creation
constexpr int kHangGuardSeconds = kWaitTimeoutMs / 1000 + 2 + kStartUpAllowanceSeconds;
constexpr int kFaultFrame = 3;

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) result.push_back(line);
  return result;
}

struct CudaFaultCase {
  const char* fault;
  const char* sync;
  const char* waitStrategy;
  const char* transfer;
  uint64_t reportedFrame;
  const char* wait;
};

// Readable names in test listings instead of the struct's bytes.
void PrintTo(const CudaFaultCase& c, std::ostream* out) { *out << c.fault << " " << c.sync << " " << c.waitStrategy; }

std::string caseName(const ::testing::TestParamInfo<CudaFaultCase>& info) {
  std::string name = std::string(info.param.fault) + "_" + info.param.sync + "_" + info.param.waitStrategy + "_" +
                     info.param.transfer;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class CudaRunTimeFault : public ::testing::TestWithParam<CudaFaultCase> {};

TEST_P(CudaRunTimeFault, EndsWithExitFourAndOneLine) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const CudaFaultCase& c = GetParam();
  // Lazy module loading on: the stall kernel must have been loaded before any
  // external wait was enqueued, or its first launch could block this thread.
  std::vector<std::string> args{"--headless", "--backend", "cuda", "--grid", "64", "--size", "96x64", "--frames",
                                "40", "--sync", c.sync, "--transfer", c.transfer, "--inject-fault",
                                std::string(c.fault) + "@" + std::to_string(kFaultFrame)};
  // --wait-strategy is refused with --transfer copy (it has no semaphore wait to choose).
  if (std::string(c.transfer) != "copy") args.insert(args.end(), {"--wait-strategy", c.waitStrategy});
  const testing::AppResult result = testing::runApp(
      args,
      {"VKSIM_VALIDATION=1", "VKSIM_WAIT_TIMEOUT_MS=" + std::to_string(kWaitTimeoutMs), "CUDA_MODULE_LOADING=LAZY"},
      kHangGuardSeconds);
  ASSERT_FALSE(result.timedOut) << "still running after " << kHangGuardSeconds << " s\n" << result.out << result.err;
  EXPECT_EQ(result.exitCode, 4) << result.out << result.err;
  const std::vector<std::string> errorLines = lines(result.err);
  ASSERT_EQ(errorLines.size(), 1u) << result.err;
  EXPECT_NE(errorLines[0].find(c.wait), std::string::npos) << errorLines[0];
  EXPECT_NE(errorLines[0].find("(frame " + std::to_string(c.reportedFrame) + ", " + c.sync + " mode)"),
            std::string::npos)
      << errorLines[0];
}

// sim-stalls on CUDA: the step is enqueued and spins; with poll the host sees
// render 4's wait unsatisfied, with enqueue render 4 is submitted and frame
// 5's fence wait runs out. The copy path waits for the copy to host memory.
INSTANTIATE_TEST_SUITE_P(
    CudaBackend, CudaRunTimeFault,
    ::testing::Values(
        CudaFaultCase{"sim-skips-signal", "timeline", "poll", "zero-copy", 4, "simulation signal of timeline value 8"},
        CudaFaultCase{"sim-skips-signal", "timeline", "enqueue", "zero-copy", 4,
                      "simulation signal of timeline value 8"},
        CudaFaultCase{"sim-skips-signal", "binary", "poll", "zero-copy", 4, "simulation signal of simDone"},
        CudaFaultCase{"sim-skips-signal", "binary", "enqueue", "zero-copy", 4, "simulation signal of simDone"},
        CudaFaultCase{"render-skips-signal", "timeline", "poll", "zero-copy", 3, "render signal of timeline value 7"},
        CudaFaultCase{"render-skips-signal", "timeline", "enqueue", "zero-copy", 3,
                      "render signal of timeline value 7"},
        CudaFaultCase{"render-skips-signal", "binary", "poll", "zero-copy", 3, "render signal of renderDone"},
        CudaFaultCase{"render-skips-signal", "binary", "enqueue", "zero-copy", 3, "render signal of renderDone"},
        CudaFaultCase{"sim-stalls", "timeline", "poll", "zero-copy", 4, "simulation signal of timeline value 8"},
        CudaFaultCase{"sim-stalls", "timeline", "enqueue", "zero-copy", 5, "render fence of the previous frame"},
        CudaFaultCase{"sim-stalls", "binary", "poll", "zero-copy", 4, "simulation signal of simDone"},
        CudaFaultCase{"sim-stalls", "binary", "enqueue", "zero-copy", 5, "render fence of the previous frame"},
        CudaFaultCase{"sim-stalls", "timeline", "poll", "copy", 4, "simulation copy to host memory"},
        CudaFaultCase{"device-lost", "timeline", "poll", "zero-copy", 3, "device lost: the render fence"},
        CudaFaultCase{"device-lost", "binary", "enqueue", "zero-copy", 3, "device lost: the render fence"}),
    caseName);

TEST(CudaStartUpFault, ImportAndExportFailuresExitThreeWithOneLine) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  for (const char* fault : {"import-fails", "export-fails"}) {
    const testing::AppResult result =
        testing::runApp({"--headless", "--backend", "cuda", "--grid", "64", "--frames", "10", "--inject-fault", fault},
                        {"VKSIM_VALIDATION=1"}, kHangGuardSeconds);
    ASSERT_FALSE(result.timedOut) << fault;
    EXPECT_EQ(result.exitCode, 3) << fault << "\n" << result.out << result.err;
    const std::vector<std::string> errorLines = lines(result.err);
    ASSERT_EQ(errorLines.size(), 1u) << result.err;
    EXPECT_NE(errorLines[0].find(std::string("injected fault ") + fault), std::string::npos) << errorLines[0];
  }
}

// In-process: the exported memory and semaphore fds are closed after a failed
// import or export. A first run that succeeds opens whatever the CUDA and
// Vulkan drivers keep for the process's life, so that the count compares
// like with like.
TEST(CudaStartUpFault, NoExportedFdStaysOpenAfterAFailedHandoff) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  Options options;
  options.headless = true;
  options.backend = BackendChoice::cuda;
  options.model.grid = 64;
  options.width = options.height = 64;
  {
    App warm;
    warm.headless = true;
    createApp(warm, options);
    destroyApp(warm);
  }
  for (FaultKind kind : {FaultKind::importFails, FaultKind::exportFails}) {
    const int before = openFdCount();
    Options faulty = options;
    faulty.faults.faults = {{kind, 0}};
    App app;
    app.headless = true;
    EXPECT_THROW(createApp(app, faulty), EnvironmentError) << toString(kind);
    destroyApp(app);
    EXPECT_EQ(openFdCount(), before) << toString(kind) << ": an exported fd stayed open";
  }
}

}  // namespace
}  // namespace vksim
