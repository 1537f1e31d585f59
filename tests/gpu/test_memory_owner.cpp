// The reverse direction (--memory-owner cuda): CUDA allocates the vertex
// memory (cuMemCreate, exported as an opaque fd) and Vulkan imports it. The
// same schedule on either owner must give the same bytes: the vertex dump
// after 500 frames is bitwise equal between the owners, in both sync modes,
// with the validation layer (synchronization validation included) on and
// silent. Reported skipped without a CUDA device (gpu_environment.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app_runner.h"
#include "gpu_environment.h"

namespace vksim::testing {
namespace {

constexpr int kFrames = 500;
constexpr int kGrid = 256;

AppResult runOwner(const std::string& owner, const std::string& sync, const std::string& dump) {
  return runApp({"--headless", "--backend", "cuda", "--memory-owner", owner, "--sync", sync, "--frames",
                 std::to_string(kFrames), "--grid", std::to_string(kGrid), "--size", "256x256", "--dump-vertices",
                 dump},
                {"VKSIM_VALIDATION=1"}, 300);
}

TEST(MemoryOwner, CudaOwnedMemoryGivesTheSameVerticesAsVulkanOwnedInBothSyncModes) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  ASSERT_TRUE(validationRequestedForTests()) << "run with VKSIM_VALIDATION=1 (ctest and scripts/gpu-check set it)";
  const std::string dir = makeTempDir("memory-owner");
  for (const std::string sync : {"timeline", "binary"}) {
    const std::string vulkanDump = dir + "/vulkan-" + sync + ".bin";
    const std::string cudaDump = dir + "/cuda-" + sync + ".bin";
    const AppResult vulkan = runOwner("vulkan", sync, vulkanDump);
    const AppResult cuda = runOwner("cuda", sync, cudaDump);
    for (const AppResult* result : {&vulkan, &cuda}) {
      ASSERT_EQ(result->exitCode, 0) << sync << "\n" << result->out << result->err;
      expectValidationOnAndSilent(*result);
      EXPECT_EQ(summaryField(result->out, "backend"), "cuda") << result->out;
      EXPECT_EQ(summaryField(result->out, "frames"), std::to_string(kFrames)) << result->out;
    }
    EXPECT_EQ(summaryField(vulkan.out, "memory_owner"), "vulkan") << vulkan.out;
    EXPECT_EQ(summaryField(cuda.out, "memory_owner"), "cuda") << cuda.out;
    if (sync == "timeline") {
      EXPECT_EQ(summaryField(cuda.out, "timeline_value"), std::to_string(2 * kFrames));
    }
    const std::string vulkanBytes = readFile(vulkanDump);
    const std::string cudaBytes = readFile(cudaDump);
    ASSERT_EQ(vulkanBytes.size(), size_t(kGrid) * kGrid * 32) << sync;
    ASSERT_EQ(cudaBytes.size(), vulkanBytes.size()) << sync;
    EXPECT_TRUE(cudaBytes == vulkanBytes) << sync << ": the vertex dumps differ between the memory owners";
  }
}

// Switching the sync mode every frame and rebuilding nothing: the reverse
// direction keeps the schedule's guarantees across switches too, and the
// capture summary names the owner.
TEST(MemoryOwner, CudaOwnedMemorySurvivesSwitchingAndTheCaptureNamesTheOwner) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const std::string dir = makeTempDir("memory-owner-switch");
  const AppResult result =
      runApp({"--headless", "--backend", "cuda", "--memory-owner", "cuda", "--switch-sync-every", "1", "--frames",
              "60", "--grid", "128", "--size", "128x128", "--capture", dir + "/run.csv"},
             {"VKSIM_VALIDATION=1"}, 300);
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  expectValidationOnAndSilent(result);
  EXPECT_EQ(summaryField(result.out, "switches"), "60") << result.out;
  EXPECT_NE(readFile(dir + "/run.summary.json").find("\"memoryOwner\": \"cuda\""), std::string::npos)
      << readFile(dir + "/run.summary.json");
}

}  // namespace
}  // namespace vksim::testing
