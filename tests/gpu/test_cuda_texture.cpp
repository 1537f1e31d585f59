// The surface texture written by CUDA (skipped without a CUDA device, with
// the reason): the image Vulkan exported, imported by CUDA and mapped as a
// mipmapped array, written level by level through surface objects every
// step, and read back by Vulkan after the drain's acquire.
// - Exactly: every level equals the texture of CUDA's own vertices computed
//   on the host (the colour function and the box filter are exact or
//   IEEE-rounded on both sides, so the same vertices give the same bytes).
// - Within the derived bound: every level against the CPU backend's texture
//   after the same 500 steps (docs/interop-walkthrough.md derives it from
//   the vertex bounds of test_cuda_backend.cpp).
// - On --memory-owner cuda (CUDA's vertex memory, the same Vulkan image):
//   exact for its own vertices and byte-equal to the default route's.
// Both sync modes, validation and synchronization validation silent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "gpu_environment.h"
#include "sim/surface_texture.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

constexpr uint32_t kGrid = 512;
constexpr int kFrames = 500;

Options textureOptions(BackendChoice backend, ModelKind model, SyncMode sync, uint32_t grid = kGrid,
                       MemoryOwner owner = MemoryOwner::vulkan) {
  Options options;
  options.memoryOwner = owner;
  options.headless = true;
  options.backend = backend;
  options.sync = sync;
  options.model.model = model;
  options.model.grid = grid;
  options.model.seed = 3;
  options.width = options.height = 256;
  return options;
}

struct TextureRun {
  std::vector<Vertex> vertices;
  std::vector<uint8_t> texels;  // every level, the packed layout of sim/surface_texture.h
};

// kFrames frames, the drain (which acquires the buffer and, with it, the
// texture from VK_QUEUE_FAMILY_EXTERNAL), then Vulkan's read-backs. The
// CUDA backend writes the texture in the step that writes the vertices, so
// both hold the state after the last step.
TextureRun runCuda(ModelKind model, SyncMode sync, uint32_t grid = kGrid, int frames = kFrames,
                   MemoryOwner owner = MemoryOwner::vulkan) {
  TextureRun run;
  App app;
  app.headless = true;
  createApp(app, textureOptions(BackendChoice::cuda, model, sync, grid, owner));
  EXPECT_TRUE(app.instance.validation && app.instance.synchronizationValidation)
      << "run with VKSIM_VALIDATION=1 (ctest sets it)";
  EXPECT_EQ(app.grid.texture.writer, TextureWriter::external);
  EXPECT_EQ(app.grid.texture.levels, surfaceTextureLevelCount(grid));
  for (int frame = 0; frame < frames; ++frame)
    if (runFrame(app) != FrameStatus::rendered) ADD_FAILURE() << "frame " << frame << " was not rendered";
  // Released to the other API: a Vulkan read-back is refused until the drain.
  EXPECT_THROW(readSharedTexture(app.device, app.grid, 0), RuntimeFailure);
  drainSchedule(app);
  EXPECT_EQ(app.grid.vertexOwner, VertexOwner::vulkan);
  const std::vector<uint8_t> vertexBytes = readSharedVertices(app.device, app.grid);
  run.vertices.resize(size_t(grid) * grid);
  std::memcpy(run.vertices.data(), vertexBytes.data(), std::min(vertexBytes.size(), run.vertices.size() * sizeof(Vertex)));
  run.texels.resize(surfaceTextureBytes(grid));
  for (uint32_t level = 0; level < app.grid.texture.levels; ++level) {
    const std::vector<uint8_t> texels = readSharedTexture(app.device, app.grid, level);
    const SurfaceTextureLevel layout = surfaceTextureLevel(grid, level);
    EXPECT_EQ(texels.size(), size_t(layout.width) * layout.height * kSurfaceTexelBytes);
    std::memcpy(run.texels.data() + layout.offset, texels.data(),
                std::min<size_t>(texels.size(), run.texels.size() - layout.offset));
  }
  destroyApp(app);
  return run;
}

// The CPU backend's texture after the same steps: the host reference from
// its vertices (tests/integration/test_texture.cpp shows that its uploads
// equal exactly this). Run with the texture off: the backend would read its
// vertices back from mapped device memory every step, slowly, to make texels
// that the test computes once here instead.
TextureRun runCpu(ModelKind model, SyncMode sync) {
  TextureRun run;
  App app;
  app.headless = true;
  Options options = textureOptions(BackendChoice::cpu, model, sync);
  options.texture = false;
  createApp(app, options);
  for (int frame = 0; frame < kFrames; ++frame)
    if (runFrame(app) != FrameStatus::rendered) ADD_FAILURE() << "frame " << frame << " was not rendered";
  drainSchedule(app);
  const std::vector<uint8_t> vertexBytes = readSharedVertices(app.device, app.grid);
  run.vertices.resize(size_t(kGrid) * kGrid);
  std::memcpy(run.vertices.data(), vertexBytes.data(), std::min(vertexBytes.size(), run.vertices.size() * sizeof(Vertex)));
  destroyApp(app);
  run.texels.resize(surfaceTextureBytes(kGrid));
  writeSurfaceTexture(run.vertices.data(), kGrid, run.texels.data());
  return run;
}

// The bound on |CUDA texel - CPU texel| per channel, from the vertex bounds
// (docs/interop-walkthrough.md, "The surface texture"): a channel is
// 255 * clamp(colour), whose slope is at most 255 * 0.53 * 6 = 810.9 per
// unit of height and 255 * 0.95 * 25 = 6056.25 per unit of normal.y; the
// rounding to a byte adds at most 1, and the box filter of the lower levels
// never widens a difference.
int texelBound(double heightBound, double normalBound) {
  return int(std::floor(810.9 * heightBound + 6056.25 * normalBound + 1e-4)) + 1;
}

struct TextureCase {
  ModelKind model;
  SyncMode sync;
  double heightBound, normalBound;  // test_cuda_backend.cpp's, 500 frames at n = 512
};

// Every level of a CUDA run's texture against the host's texture of that
// run's own vertices (writeSurfaceTexture): equal byte for byte.
void expectEveryLevelOfItsOwnVertices(const TextureRun& cuda, uint32_t grid) {
  std::vector<uint8_t> ofCudaVertices(surfaceTextureBytes(grid));
  writeSurfaceTexture(cuda.vertices.data(), grid, ofCudaVertices.data());
  for (uint32_t level = 0; level < surfaceTextureLevelCount(grid); ++level) {
    const SurfaceTextureLevel layout = surfaceTextureLevel(grid, level);
    const size_t bytes = size_t(layout.width) * layout.height * kSurfaceTexelBytes;
    EXPECT_EQ(std::memcmp(cuda.texels.data() + layout.offset, ofCudaVertices.data() + layout.offset, bytes), 0)
        << "grid " << grid << " level " << level << " differs from the host's texture of CUDA's own vertices";
  }
}

class CudaTexture : public ::testing::TestWithParam<TextureCase> {};

TEST_P(CudaTexture, EveryLevelExactForItsVerticesAndWithinTheBoundOfTheCpuBackend) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const TextureCase testCase = GetParam();
  const ValidationWatch watch;
  const TextureRun cuda = runCuda(testCase.model, testCase.sync);
  ASSERT_FALSE(HasFailure());

  expectEveryLevelOfItsOwnVertices(cuda, kGrid);

  const TextureRun cpu = runCpu(testCase.model, testCase.sync);
  const int bound = texelBound(testCase.heightBound, testCase.normalBound);
  int worst = 0;
  for (size_t i = 0; i < cuda.texels.size(); ++i) worst = std::max(worst, std::abs(int(cuda.texels[i]) - int(cpu.texels[i])));
  std::printf("[ %s %s ] max |cuda - cpu| texel channel: %d (bound %d)\n", toString(testCase.model),
              toString(testCase.sync), worst, bound);
  EXPECT_LE(worst, bound);
  // Not trivially equal: the texture has more than one colour.
  EXPECT_NE(std::memcmp(cuda.texels.data(), cuda.texels.data() + 4 * kGrid * (kGrid / 2), 4 * kGrid), 0);
  EXPECT_EQ(watch.newWarnings(), 0u);
  EXPECT_EQ(watch.newErrors(), 0u);
}

INSTANTIATE_TEST_SUITE_P(ModelsAndModes, CudaTexture,
                         ::testing::Values(TextureCase{ModelKind::ripple, SyncMode::timeline, 2e-6, 1e-3},
                                           TextureCase{ModelKind::ripple, SyncMode::binary, 2e-6, 1e-3},
                                           TextureCase{ModelKind::sinewave, SyncMode::timeline, 4.8e-8, 3.5e-5},
                                           TextureCase{ModelKind::sinewave, SyncMode::binary, 4.8e-8, 3.5e-5}),
                         [](const auto& testInfo) {
                           return std::string(toString(testInfo.param.model)) + "_" + toString(testInfo.param.sync);
                         });

// The ripple step writes the texture's first levels itself, each block from
// its own texels (RippleWarpRows::stepWithTexels): grids that are no multiple
// of the block's 32 x 24 texels, odd ones and ones smaller than a block, where
// the blocks at the edges are partial and the levels' extents are odd.
TEST(CudaTexture, EveryLevelExactForItsVerticesAtGridsThatCutTheBlocks) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const ValidationWatch watch;
  for (const uint32_t grid : {5u, 37u, 333u, 1000u}) {
    const TextureRun cuda = runCuda(ModelKind::ripple, SyncMode::timeline, grid, 60);
    ASSERT_FALSE(HasFailure()) << "grid " << grid;
    expectEveryLevelOfItsOwnVertices(cuda, grid);
  }
  EXPECT_EQ(watch.newWarnings(), 0u);
  EXPECT_EQ(watch.newErrors(), 0u);
}

// --memory-owner cuda: the vertex memory is CUDA's, the texture still the
// Vulkan image the default route exports, written by the same kernels. Every
// level exact for the run's own vertices, within the derived bound of the
// CPU backend's texture, and equal byte for byte to the default route's after
// the same frames (the vertices are, test_memory_owner.cpp): the same picture
// and the same work on both owners.
TEST(CudaTexture, CudaOwnedMemoryWritesTheSameTextureAsTheDefaultRoute) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const ValidationWatch watch;
  for (const SyncMode sync : {SyncMode::timeline, SyncMode::binary}) {
    const TextureRun cudaOwned = runCuda(ModelKind::ripple, sync, kGrid, kFrames, MemoryOwner::cuda);
    ASSERT_FALSE(HasFailure()) << toString(sync);
    expectEveryLevelOfItsOwnVertices(cudaOwned, kGrid);
    const TextureRun cpu = runCpu(ModelKind::ripple, sync);
    int worst = 0;
    for (size_t i = 0; i < cudaOwned.texels.size(); ++i)
      worst = std::max(worst, std::abs(int(cudaOwned.texels[i]) - int(cpu.texels[i])));
    EXPECT_LE(worst, texelBound(2e-6, 1e-3)) << toString(sync) << ": against the CPU backend's texture";
    const TextureRun vulkanOwned = runCuda(ModelKind::ripple, sync);
    ASSERT_FALSE(HasFailure()) << toString(sync);
    ASSERT_EQ(cudaOwned.vertices.size(), vulkanOwned.vertices.size());
    EXPECT_EQ(std::memcmp(cudaOwned.vertices.data(), vulkanOwned.vertices.data(),
                          cudaOwned.vertices.size() * sizeof(Vertex)),
              0)
        << toString(sync) << ": the vertices differ";
    EXPECT_TRUE(cudaOwned.texels == vulkanOwned.texels) << toString(sync) << ": the textures differ";
  }
  EXPECT_EQ(watch.newWarnings(), 0u);
  EXPECT_EQ(watch.newErrors(), 0u);
}

// With the texture off on `owner`'s vertex memory: the placeholder is bound
// and 20 frames render with validation silent.
void expectOffBindsThePlaceholder(MemoryOwner owner) {
  Options options = textureOptions(BackendChoice::cuda, ModelKind::ripple, SyncMode::timeline, 128, owner);
  options.texture = false;
  const ValidationWatch watch;
  App app;
  app.headless = true;
  createApp(app, options);
  EXPECT_EQ(app.grid.texture.writer, TextureWriter::placeholder);
  for (int frame = 0; frame < 20; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  destroyApp(app);
  EXPECT_EQ(watch.newWarnings(), 0u);
  EXPECT_EQ(watch.newErrors(), 0u);
}

// With the texture off, nothing is exported for it and the CUDA run is as
// before: the placeholder is bound.
TEST(CudaTexture, OffExportsNoTexture) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  expectOffBindsThePlaceholder(MemoryOwner::vulkan);
}

// The same on --memory-owner cuda: off binds the placeholder there too.
TEST(CudaTexture, OffOnCudaOwnedMemoryBindsThePlaceholder) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  expectOffBindsThePlaceholder(MemoryOwner::cuda);
}

}  // namespace
}  // namespace vksim
