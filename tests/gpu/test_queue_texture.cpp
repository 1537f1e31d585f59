// The surface texture on the render-queue path on the NVIDIA machine
// (skipped without a CUDA device, with the reason): --backend vulkan and
// --backend cuda-nvx both write it in the step's own command buffer:
// vulkan's ripple step writes level 0 itself and Vulkan compute shaders the
// levels below (sim/vulkan/surface_texture_writer.h); cuda-nvx's step is the
// CUDA backend's rippleStepTexelsKernel, which writes levels 0-3, and
// downsampleLevelsKernel the levels below, through the handles of the
// image's level views (sim/cuda_nvx/cuda_nvx_simulation.cu). Every level, read back by Vulkan after the drain, equals the CPU
// reference's texture (writeSurfaceTexture) of the vertices read back with
// it, byte for byte: the colour function is +, -, *, a clamp and a
// truncation, each rounded on its own (`precise`), and the box filter is
// integer arithmetic. Both sync modes, grids that cut the 16 x 16
// workgroups and a large one, validation and synchronization validation
// silent (ctest's VKSIM_VALIDATION=1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "gpu_environment.h"
#include "sim/surface_texture.h"
#include "texture_check.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

constexpr int kFrames = 500;

struct QueueTextureCase {
  BackendChoice backend;
  SyncMode sync;
  uint32_t grid;
};
void PrintTo(const QueueTextureCase& c, std::ostream* out) {
  *out << toString(c.backend) << " " << toString(c.sync) << " " << c.grid;
}

class QueueTextureOnGpu : public ::testing::TestWithParam<QueueTextureCase> {};

TEST_P(QueueTextureOnGpu, EveryLevelEqualsTheCpuReferenceOfTheSameVertices) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const QueueTextureCase testCase = GetParam();
  const uint32_t grid = testCase.grid;
  Options options;
  options.headless = true;
  options.backend = testCase.backend;
  options.sync = testCase.sync;
  options.model.model = ModelKind::ripple;
  options.model.grid = grid;
  options.model.seed = 3;
  options.width = options.height = 256;
  const ValidationWatch watch;
  App app;
  app.headless = true;
  createApp(app, options);
  ASSERT_TRUE(app.instance.validation && app.instance.synchronizationValidation)
      << "run with VKSIM_VALIDATION=1 (ctest sets it)";
  ASSERT_EQ(app.grid.texture.writer, TextureWriter::queueCompute);
  ASSERT_EQ(app.grid.texture.levels, surfaceTextureLevelCount(grid));
  for (int frame = 0; frame < kFrames; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered) << "frame " << frame;
  drainSchedule(app);
  std::vector<uint8_t> reference;
  const std::vector<LevelDifference> levels = textureAgainstItsVertices(app, &reference);
  ASSERT_EQ(levels.size(), size_t(app.grid.texture.levels));
  for (const LevelDifference& level : levels)
    EXPECT_EQ(level.differing, 0u) << toString(testCase.backend) << " level " << level.level << " (" << level.width
                                   << "x" << level.height << "): bytes that differ from the CPU reference";
  destroyApp(app);
  EXPECT_EQ(watch.newErrors(), 0u);
  EXPECT_EQ(watch.newWarnings(), 0u);
}

std::vector<QueueTextureCase> cases() {
  std::vector<QueueTextureCase> all;
  for (BackendChoice backend : {BackendChoice::vulkan, BackendChoice::cudaNvx})
    for (SyncMode sync : {SyncMode::timeline, SyncMode::binary})
      for (uint32_t grid : {333u, 512u, 4096u}) all.push_back({backend, sync, grid});
  return all;
}

INSTANTIATE_TEST_SUITE_P(RenderQueueBackends, QueueTextureOnGpu, ::testing::ValuesIn(cases()),
                         [](const auto& testInfo) {
                           std::string backend = toString(testInfo.param.backend);
                           std::replace(backend.begin(), backend.end(), '-', '_');
                           return backend + "_" + toString(testInfo.param.sync) + "_" +
                                  std::to_string(testInfo.param.grid);
                         });

}  // namespace
}  // namespace vksim
