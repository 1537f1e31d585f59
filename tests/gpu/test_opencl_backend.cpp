// The OpenCL backend on a device whose OpenCL platform has the interop
// extensions (the NVIDIA machine, with enter.sh's OCL_ICD_VENDORS); skipped
// elsewhere with the reason, and a failure instead of a skip when
// VKSIM_REQUIRE_CUDA=1 (the NVIDIA runs), so that a missing ICD cannot pass
// as a row of skips. An app run that fails prints what that child's OpenCL
// was (its --list-devices) beside this process's: on the NVIDIA machine the
// children once saw other platforms than this process (docs/gpu-runs.md,
// "Which OpenCL a process sees"), and OpenClLoader checks that they agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app/interop/device_pairing.h"
#include "app/interop/value_schedule.h"
#include "app_runner.h"
#include "gpu_environment.h"
#include "opencl_environment.h"
#include "renderer/vk_check.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim::testing {

namespace {

// The OpenCL part of a --list-devices text: from the loader line to the pairs.
std::string openClSection(const std::string& listing) {
  const size_t begin = listing.find("OpenCL ICD loader:");
  if (begin == std::string::npos) return listing;
  const size_t end = listing.find("Pairs with OpenCL", begin);
  return listing.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// After an app run that did not exit 0: the OpenCL that a child with the
// same environment sees, and this process's, on stdout for the run's log.
void printChildOpenCl(const AppResult& run, const std::vector<std::string>& env = {}) {
  if (run.exitCode == 0) return;
  const AppResult list = runApp({"--list-devices"}, env, 60);
  std::printf(
      "--- %s --list-devices, a child of this process (exit %d), OpenCL part:\n%s%s"
      "--- this process (gpu_tests) sees:\n%s---\n",
      appPath().c_str(), list.exitCode, openClSection(list.out).c_str(), list.err.c_str(),
      openClSection(describeOpenClDevices({}, listOpenClDevices())).c_str());
}

std::vector<float> readFloats(const std::string& path) {
  const std::string bytes = readFile(path);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

void expectClean(const AppResult& result) {
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  expectValidationOnAndSilent(result);
}

AppResult runOpenCl(std::vector<std::string> args) {
  args.insert(args.begin(), {"--headless", "--backend", "opencl", "--size", "256x256"});
  const AppResult result = runApp(args, {}, 300);
  printChildOpenCl(result);
  return result;
}

struct ModelBound {
  const char* model;
  double position;  // world units
  double normal;    // unit-vector components
};

class OpenClAgainstCpu : public ::testing::TestWithParam<ModelBound> {};

// Bounds, derived in docs/interop-walkthrough.md ("OpenCL against the CPU
// reference"): the kernels repeat sim/model_math.h's operations in order,
// with contraction off and division and square root correctly rounded, so
// the two differ only where OpenCL's sin and cos (<= 4 ulp, the full
// profile's bound) and exp (<= 3 ulp) differ from glibc's (<= 1 ulp): at most
// 5 ulp per call.
//  - sinewave, amplitude 0.1: |dh| <= (5 + 5 + 2) * 2^-24 * 0.1 = 7.2e-8; normals
//    by sqrt(2) * |dh| * (n - 1) = 5.2e-5 at n = 512.
//  - ripple, 500 frames at n = 512: the CUDA derivation with 4 instead of 3
//    ulp per drop value (x 4/3): |dh| <= 2.7e-6 -> 3e-6, |dn| <= 1.5e-3.
TEST_P(OpenClAgainstCpu, After500FramesWithinTheDerivedBound) {
  VKSIM_REQUIRE_OPENCL_INTEROP();
  const auto [model, positionBound, normalBound] = GetParam();
  const std::string dir = makeTempDir(std::string("opencl-vs-cpu-") + model);
  const std::vector<std::string> common{"--headless", "--sim", model, "--grid", "512", "--frames", "500",
                                        "--seed", "3", "--size", "256x256", "--sync", "binary"};
  auto run = [&](const char* backend, const std::string& dump) {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--backend", backend, "--dump-vertices", dump});
    const AppResult result = runApp(args, {}, 300);
    printChildOpenCl(result);
    return result;
  };
  const AppResult opencl = run("opencl", dir + "/opencl.bin");
  expectClean(opencl);
  EXPECT_EQ(summaryField(opencl.out, "backend"), "opencl");
  EXPECT_EQ(summaryField(opencl.out, "sync"), "binary");
  EXPECT_EQ(summaryField(opencl.out, "steps"), "500");
  const AppResult cpu = run("cpu", dir + "/cpu.bin");
  expectClean(cpu);
  const auto a = readFloats(dir + "/opencl.bin"), b = readFloats(dir + "/cpu.bin");
  ASSERT_EQ(a.size(), size_t(512 * 512 * 8));
  ASSERT_EQ(a.size(), b.size());
  double position = 0, normal = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(double(a[i]) - double(b[i]));
    double& worst = (i % 8) < 4 ? position : normal;
    worst = std::max(worst, diff);
  }
  std::printf("[ %s ] max |opencl - cpu|: position %.3g, normal %.3g\n", model, position, normal);
  EXPECT_LE(position, positionBound);
  EXPECT_LE(normal, normalBound);
  // Not trivially equal because nothing moved: two rows differ.
  EXPECT_NE(std::memcmp(a.data(), a.data() + 8 * 512 * 256, 8 * 512 * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Models, OpenClAgainstCpu,
                         ::testing::Values(ModelBound{"sinewave", 7.2e-8, 5.2e-5}, ModelBound{"ripple", 3e-6, 1.5e-3}),
                         [](const auto& testInfo) { return std::string(testInfo.param.model); });

TEST(OpenClSchedule, BinaryRunsEveryFrameInBothWaitStrategies) {
  VKSIM_REQUIRE_OPENCL_INTEROP();
  for (const char* wait : {"poll", "enqueue"}) {
    const AppResult run = runOpenCl({"--frames", "300", "--grid", "512", "--wait-strategy", wait});
    expectClean(run);
    EXPECT_EQ(summaryField(run.out, "backend"), "opencl") << wait;
    EXPECT_EQ(summaryField(run.out, "frames"), "300") << wait;
    EXPECT_EQ(summaryField(run.out, "timeline_value"), "0") << wait;
    EXPECT_EQ(summaryField(run.out, "switches"), "0") << wait;
  }
}

// Driven directly: the initial write's simDone signal is what render 0 waits
// on; after 500 frames and the drain, no signal is outstanding on either
// side of the schedule (the frame loop records each signal where it was
// enqueued and each wait that consumed one; a binary semaphore left signalled
// would show as simSignal or renderDoneUnconsumed), Vulkan owns the buffer
// again, and OpenCL's own view of the memory equals Vulkan's read-back.
TEST(OpenClSchedule, FiveHundredFramesLeaveNoSemaphoreSignalledAndOneMemory) {
  VKSIM_REQUIRE_OPENCL_INTEROP();
  Options options;
  options.headless = true;
  options.backend = BackendChoice::opencl;
  options.sync = SyncMode::binary;
  options.model.grid = 256;
  options.width = options.height = 128;
  App app;
  app.headless = true;
  createApp(app, options);
  ASSERT_EQ(app.devices.backend, Backend::opencl);
  ASSERT_TRUE(app.schedule.simSignal) << "the initial write enqueued no simDone signal";
  EXPECT_EQ(app.grid.vertexOwner, VertexOwner::external);
  for (int frame = 0; frame < 500; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered) << frame;
  ASSERT_TRUE(app.grid.simulation->finish(kWaitTimeoutNs));
  const uint64_t bytes = uint64_t(256) * 256 * sizeof(Vertex);
  std::vector<uint8_t> throughOpenCl(bytes);
  ASSERT_TRUE(copyOpenClVerticesToHost(*app.grid.simulation, throughOpenCl.data(), bytes, kWaitTimeoutNs));
  drainSchedule(app);
  EXPECT_FALSE(app.schedule.simSignal) << "a simDone signal was left for nobody";
  EXPECT_FALSE(app.schedule.renderDoneUnconsumed) << "a renderDone signal was left for nobody";
  EXPECT_EQ(app.grid.vertexOwner, VertexOwner::vulkan);
  EXPECT_EQ(app.grid.simulation->stepCount(), 500u);
  const std::vector<uint8_t> throughVulkan = readSharedVertices(app.device, app.grid);
  EXPECT_TRUE(throughVulkan == throughOpenCl);
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// The fault injections that apply to OpenCL: the simulation's skipped signal,
// the render's skipped signal, a lost device, and the start-up import and
// export failures (the stall is refused for OpenCL: app/cli.cpp says why).
TEST(OpenClFaults, RunTimeFaultsEndWithExitFourAndOneLine) {
  VKSIM_REQUIRE_OPENCL_INTEROP();
  for (const char* fault : {"sim-skips-signal@5", "render-skips-signal@5", "device-lost@5"}) {
    const std::vector<std::string> env{"VKSIM_VALIDATION=1", "VKSIM_WAIT_TIMEOUT_MS=1000"};
    const AppResult result = runApp({"--headless", "--backend", "opencl", "--grid", "64", "--size", "96x64",
                                     "--frames", "40", "--inject-fault", fault},
                                    env, 60);
    if (result.exitCode == 3) printChildOpenCl(result, env);
    ASSERT_FALSE(result.timedOut) << fault << result.out << result.err;
    EXPECT_EQ(result.exitCode, 4) << fault << result.out << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << fault << result.err;
  }
  for (const char* fault : {"import-fails", "export-fails"}) {
    const AppResult result = runApp({"--headless", "--backend", "opencl", "--grid", "64", "--frames", "10",
                                     "--inject-fault", fault});
    if (result.err.find("injected fault") == std::string::npos) printChildOpenCl(result);
    EXPECT_EQ(result.exitCode, 3) << fault << result.err;
    EXPECT_NE(result.err.find(std::string("OpenCL backend: ")), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(std::string("injected fault ") + fault), std::string::npos) << result.err;
  }
}

// Needs no GPU: a child started from here (posix_spawn, this environment)
// must see the ICD loader file, the ICD variables and the platforms that
// this process sees. Both views are printed, for the run's log.
TEST(OpenClLoader, AChildSeesTheLoaderAndPlatformsThisProcessSees) {
  const std::string here = openClSection(describeOpenClDevices({}, listOpenClDevices()));
  const AppResult child = runApp({"--list-devices"}, {}, 60);
  ASSERT_EQ(child.exitCode, 0) << child.err;
  const std::string there = openClSection(child.out);
  // The child's stderr too: empty, unless a loader trace was asked for
  // (OCL_ICD_ENABLE_TRACE=1, Khronos' loader).
  std::printf("--- this process (gpu_tests):\n%s--- %s --list-devices:\n%s%s---\n", here.c_str(),
              appPath().c_str(), there.c_str(), child.err.c_str());
  EXPECT_EQ(there, here);
}

}  // namespace
}  // namespace vksim::testing
