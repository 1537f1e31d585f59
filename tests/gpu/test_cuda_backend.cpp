// The CUDA backend on a real NVIDIA device (skipped elsewhere, with the
// reason). Most tests run the app as a user would; the lazy-loading test and
// the one-memory test drive the pieces directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "app_runner.h"
#include "gpu_environment.h"

namespace vksim::testing {
namespace {

std::vector<float> readFloats(const std::string& path) {
  const std::string bytes = readFile(path);
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

void expectClean(const AppResult& result) {
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(summaryField(result.out, "validation_errors"), "0") << result.err;
}

AppResult runCuda(std::vector<std::string> args) {
  args.insert(args.begin(), {"--headless", "--backend", "cuda", "--size", "256x256"});
  return runApp(args, {}, 300);
}

// Largest |cuda - cpu| over position and normal components separately.
struct Difference {
  double position = 0, normal = 0;
};
Difference maxDifference(const std::vector<float>& a, const std::vector<float>& b) {
  Difference d;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = std::fabs(double(a[i]) - double(b[i]));
    ((i % 8) < 4 ? d.position : d.normal) = std::max((i % 8) < 4 ? d.position : d.normal, diff);
  }
  return d;
}

struct ModelBound {
  const char* model;
  double position;  // world units (heights ~0.1)
  double normal;    // unit-vector components
};

class CudaAgainstCpu : public ::testing::TestWithParam<ModelBound> {};

// Bounds, derived in docs/interop-walkthrough.md ("CUDA against the CPU
// reference"): both backends run the same arithmetic (sim/model_math.h, no FMA
// contraction on either side, coefficients computed once on the host), so
// they differ only where CUDA's sinf/cosf/expf (<= 2 ulp) and glibc's (<= 1
// ulp) differ: at most 3 ulp per call.
//  - sinewave, amplitude 0.1: |dh| <= 8 * 2^-24 * 0.1 = 4.8e-8; normals
//    change at most by the slope change, sqrt(2) * |dh| * (n - 1) = 3.5e-5 at n = 512.
//  - ripple, 500 frames at n = 512: drop values differ by <= 2.1e-8 each and
//    the scheme does not amplify them; rounding after that walks at ~4 ulp a
//    step: |dh| <= 2e-6, |dn| <= sqrt(2) * dh * (n - 1) / 2 = 7.2e-4 -> 1e-3.
TEST_P(CudaAgainstCpu, After500FramesWithinTheDerivedBound) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const auto [model, positionBound, normalBound] = GetParam();
  const std::string dir = makeTempDir(std::string("vs-cpu-") + model);
  const std::vector<std::string> common{"--headless", "--sim", model, "--grid", "512", "--frames", "500",
                                        "--seed", "3", "--size", "256x256"};
  auto run = [&](const char* backend, const std::string& dump) {
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--backend", backend, "--dump-vertices", dump});
    return runApp(args, {}, 300);
  };
  const AppResult cuda = run("cuda", dir + "/cuda.bin");
  expectClean(cuda);
  const AppResult cpu = run("cpu", dir + "/cpu.bin");
  expectClean(cpu);
  const auto a = readFloats(dir + "/cuda.bin"), b = readFloats(dir + "/cpu.bin");
  ASSERT_EQ(a.size(), size_t(512 * 512 * 8));
  ASSERT_EQ(a.size(), b.size());
  const Difference d = maxDifference(a, b);
  std::printf("[ %s ] max |cuda - cpu|: position %.3g, normal %.3g\n", model, d.position, d.normal);
  EXPECT_LE(d.position, positionBound);
  EXPECT_LE(d.normal, normalBound);
  // Not trivially equal because nothing moved.
  EXPECT_NE(std::memcmp(a.data(), a.data() + 8 * 512 * 256, 8 * 512 * sizeof(float)), 0);
}

INSTANTIATE_TEST_SUITE_P(Models, CudaAgainstCpu,
                         ::testing::Values(ModelBound{"sinewave", 4.8e-8, 3.5e-5}, ModelBound{"ripple", 2e-6, 1e-3}),
                         [](const auto& testInfo) { return std::string(testInfo.param.model); });

TEST(CudaSchedule, TimelineCounterIsTwoNAndBinaryRunsEveryFrame) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const AppResult timeline = runCuda({"--sync", "timeline", "--frames", "300", "--grid", "512"});
  expectClean(timeline);
  EXPECT_EQ(summaryField(timeline.out, "backend"), "cuda");
  EXPECT_EQ(summaryField(timeline.out, "timeline_value"), "600");
  const AppResult binary = runCuda({"--sync", "binary", "--frames", "300", "--grid", "512"});
  expectClean(binary);
  EXPECT_EQ(summaryField(binary.out, "frames"), "300");
  EXPECT_EQ(summaryField(binary.out, "timeline_value"), "0");
}

TEST(CudaSchedule, SwitchingEveryFrameFor500FramesEndsInTheSameVertices) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string dir = makeTempDir("cuda-switch");
  for (const char* model : {"ripple", "sinewave"}) {
    const AppResult steady = runCuda({"--sim", model, "--frames", "500", "--grid", "300", "--dump-vertices",
                                      dir + "/steady.bin"});
    expectClean(steady);
    const AppResult switching = runCuda({"--sim", model, "--frames", "500", "--grid", "300",
                                         "--switch-sync-every", "1", "--dump-vertices", dir + "/switch.bin"});
    expectClean(switching);
    EXPECT_EQ(summaryField(switching.out, "switches"), "500");
    EXPECT_TRUE(readFile(dir + "/steady.bin") == readFile(dir + "/switch.bin")) << model;
  }
}

// Synchronization validation on (the layer's hazard tracking, which also
// checks the ownership transfers and the stages they wait at) stays silent
// in every mode the CUDA backend runs: timeline, binary, switching every
// frame, and the copy path. Frame 0 waits on the initial simDone signal in
// each, and --dump-vertices reads the buffer after the drain's acquire.
TEST(CudaSchedule, SynchronizationValidationIsSilentInEveryMode) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string dir = makeTempDir("cuda-syncval");
  const std::vector<std::vector<std::string>> modes{{"--sync", "timeline"},
                                                    {"--sync", "binary"},
                                                    {"--switch-sync-every", "1"},
                                                    {"--transfer", "copy"}};
  for (const auto& mode : modes) {
    std::vector<std::string> args{"--headless", "--backend", "cuda", "--size", "256x256", "--frames", "60",
                                  "--grid", "256", "--dump-vertices", dir + "/vertices.bin"};
    args.insert(args.end(), mode.begin(), mode.end());
    const AppResult result =
        runApp(args, {"VKSIM_VALIDATION=1", "VK_LAYER_ENABLES=VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT"},
               300);
    expectClean(result);
    EXPECT_EQ(summaryField(result.out, "validation_warnings"), "0") << mode[0] << " " << mode[1] << result.err;
    EXPECT_EQ(result.err.find("vulkan "), std::string::npos) << result.err;
    EXPECT_EQ(readFile(dir + "/vertices.bin").size(), size_t(256 * 256 * 32)) << mode[1];
  }
}

// Two Vulkan devices (pack.sh --lavapipe adds llvmpipe beside the NVIDIA one):
// the CUDA backend pairs by UUID, and naming llvmpipe with --backend cuda is
// refused with both devices named.
TEST(CudaDeviceChoice, PairsWithTheNvidiaDeviceAndRefusesLavapipe) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const AppResult list = runApp({"--list-devices"});
  ASSERT_EQ(list.exitCode, 0) << list.err;
  std::printf("%s", list.out.c_str());
  const size_t llvmpipe = list.out.find("llvmpipe");
  ASSERT_NE(llvmpipe, std::string::npos) << "pack with --lavapipe so that two Vulkan devices enumerate";
  const size_t bracket = list.out.rfind('[', llvmpipe);
  const std::string lavapipeIndex = list.out.substr(bracket + 1, list.out.find(']', bracket) - bracket - 1);

  const AppResult paired = runCuda({"--frames", "5", "--grid", "64"});
  expectClean(paired);
  EXPECT_NE(paired.out.find("have the same UUID"), std::string::npos) << paired.out;
  EXPECT_EQ(paired.out.find("llvmpipe"), std::string::npos) << paired.out;

  const AppResult refused = runCuda({"--frames", "5", "--grid", "64", "--device", lavapipeIndex});
  EXPECT_EQ(refused.exitCode, 3) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("llvmpipe"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("CUDA devices"), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace vksim::testing

namespace vksim::testing {
namespace {

// The copy path (CUDA's own buffer -> pinned host memory -> staging buffer ->
// vkCmdCopyBuffer) exists to be measured against zero-copy; it must draw the
// same vertices.
TEST(CudaCopyPath, EndsInTheSameVerticesAsZeroCopy) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string dir = makeTempDir("cuda-copy");
  for (const char* model : {"ripple", "sinewave"}) {
    const AppResult zeroCopy = runCuda({"--sim", model, "--grid", "300", "--frames", "100", "--transfer", "zero-copy",
                                        "--dump-vertices", dir + "/zero.bin"});
    expectClean(zeroCopy);
    const AppResult copy = runCuda({"--sim", model, "--grid", "300", "--frames", "100", "--transfer", "copy",
                                    "--dump-vertices", dir + "/copy.bin"});
    expectClean(copy);
    EXPECT_EQ(summaryField(copy.out, "transfer"), "copy");
    const std::string a = readFile(dir + "/zero.bin"), b = readFile(dir + "/copy.bin");
    EXPECT_EQ(a.size(), size_t(300 * 300 * 32));
    EXPECT_TRUE(a == b) << model;
  }
}

}  // namespace
}  // namespace vksim::testing
