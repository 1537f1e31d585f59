// The surface texture on the CPU backend, in-process on lavapipe with the
// validation layer and synchronization validation on: every mip level that
// Vulkan reads back from the image equals the texture the test computes
// itself from the vertices Vulkan reads back (the colour of each vertex, then
// the test's own 2x2 box filter per level), in both sync modes and with an
// odd grid (odd extents on the way down). The texture off, and the copy
// path, bind the placeholder; a screenshot shows the texture (it differs from
// the same frame without it).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app_runner.h"
#include "barrier_recorder.h"
#include "image_file.h"
#include "renderer/vk_check.h"
#include "sim/model_math.h"
#include "sim/surface_texture.h"
#include "sync_validation.h"
#include "texture_check.h"

namespace vksim {
namespace {

Options textureOptions(SyncMode sync, ModelKind model, uint32_t grid) {
  return textureTestOptions(BackendChoice::cpu, sync, model, grid);
}

// The test's own mip chain: level 0 from each vertex's colour, each level
// after it the rounded mean of the 2x2 texels above (clamped at an odd
// edge), level by level as separate images (not the packed layout).
std::vector<std::vector<uint8_t>> referenceLevels(const std::vector<Vertex>& vertices, uint32_t grid) {
  std::vector<std::vector<uint8_t>> levels;
  std::vector<uint8_t> level0(size_t(grid) * grid * 4);
  for (size_t cell = 0; cell < vertices.size(); ++cell) {
    const Texel texel = surfaceTexel(vertices[cell]);
    std::memcpy(&level0[4 * cell], &texel, 4);
  }
  levels.push_back(level0);
  uint32_t width = grid;
  while (width > 1) {
    const std::vector<uint8_t>& above = levels.back();
    const uint32_t aboveWidth = width;
    width /= 2;
    std::vector<uint8_t> level(size_t(width) * width * 4);
    for (uint32_t y = 0; y < width; ++y)
      for (uint32_t x = 0; x < width; ++x)
        for (uint32_t channel = 0; channel < 4; ++channel) {
          uint32_t sum = 0;
          for (uint32_t dy = 0; dy < 2; ++dy)
            for (uint32_t dx = 0; dx < 2; ++dx) {
              const uint32_t ax = std::min(2 * x + dx, aboveWidth - 1), ay = std::min(2 * y + dy, aboveWidth - 1);
              sum += above[(size_t(ay) * aboveWidth + ax) * 4 + channel];
            }
          level[(size_t(y) * width + x) * 4 + channel] = uint8_t((sum + 2) / 4);
        }
    levels.push_back(level);
  }
  return levels;
}

struct TextureCase {
  SyncMode sync;
  ModelKind model;
  uint32_t grid;
};

class SurfaceTextureLevels : public ::testing::TestWithParam<TextureCase> {};

TEST_P(SurfaceTextureLevels, EveryLevelReadBackEqualsTheTestsOwnReference) {
  enableSynchronizationValidation();
  const TextureCase testCase = GetParam();
  App app;
  app.headless = true;
  createApp(app, textureOptions(testCase.sync, testCase.model, testCase.grid));
  ASSERT_TRUE(app.instance.validation && app.instance.synchronizationValidation);
  ASSERT_EQ(app.grid.texture.writer, TextureWriter::hostUpload);
  ASSERT_TRUE(textureDrawn(app.grid));
  EXPECT_EQ(app.grid.texture.width, testCase.grid);
  EXPECT_EQ(app.grid.texture.levels, surfaceTextureLevelCount(testCase.grid));
  for (int frame = 0; frame < 9; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  // Render k uploads what step k-1 wrote; a paused last step writes nothing,
  // so the texture the last render uploaded is that of the vertices now in
  // the buffer, through the frame loop's own upload.
  app.paused = true;
  ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  drainSchedule(app);
  ASSERT_TRUE(waitForFence(app.device, currentSlotResources(app).inFlight, kWaitTimeoutNs));
  const std::vector<uint8_t> vertexBytes = readSharedVertices(app.device, app.grid);
  std::vector<Vertex> vertices(size_t(testCase.grid) * testCase.grid);
  ASSERT_EQ(vertexBytes.size(), vertices.size() * sizeof(Vertex));
  std::memcpy(vertices.data(), vertexBytes.data(), vertexBytes.size());
  const std::vector<std::vector<uint8_t>> reference = referenceLevels(vertices, testCase.grid);
  ASSERT_EQ(reference.size(), app.grid.texture.levels);
  for (uint32_t level = 0; level < reference.size(); ++level) {
    const std::vector<uint8_t> texels = readSharedTexture(app.device, app.grid, level);
    ASSERT_EQ(texels.size(), reference[level].size()) << "level " << level;
    size_t differing = 0;
    for (size_t i = 0; i < texels.size(); ++i) differing += texels[i] != reference[level][i];
    EXPECT_EQ(differing, 0u) << "level " << level << ": bytes that differ from the reference";
  }
  // Not a constant image: the waves and the foam give level 0 many colours.
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 4 <= reference[0].size(); i += 4) {
    uint32_t colour = 0;
    std::memcpy(&colour, &reference[0][i], 4);
    colours.insert(colour);
  }
  EXPECT_GT(colours.size(), 20u);
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    BothModes, SurfaceTextureLevels,
    ::testing::Values(TextureCase{SyncMode::timeline, ModelKind::ripple, 37},
                      TextureCase{SyncMode::binary, ModelKind::ripple, 64},
                      TextureCase{SyncMode::timeline, ModelKind::sinewave, 48},
                      TextureCase{SyncMode::binary, ModelKind::sinewave, 33}),
    [](const auto& testInfo) {
      return std::string(toString(testInfo.param.sync)) + "_" + toString(testInfo.param.model) + "_" +
             std::to_string(testInfo.param.grid);
    });

// Off, and on the copy path: the 1x1 placeholder is bound, nothing uploads,
// and the frames still run with validation silent.
TEST(SurfaceTexture, OffAndTheCopyPathBindThePlaceholder) {
  enableSynchronizationValidation();
  for (const bool copyPath : {false, true}) {
    Options options = textureOptions(SyncMode::timeline, ModelKind::ripple, 32);
    options.texture = copyPath;  // the copy path with the texture on: still the placeholder
    options.transfer = copyPath ? TransferMode::copy : TransferMode::zeroCopy;
    App app;
    app.headless = true;
    createApp(app, options);
    EXPECT_EQ(app.grid.texture.writer, TextureWriter::placeholder);
    EXPECT_FALSE(textureDrawn(app.grid));
    EXPECT_EQ(app.grid.texture.width, 1u);
    EXPECT_EQ(app.path.cpuHost.textureStaging.buffer, VK_NULL_HANDLE);
    for (int frame = 0; frame < 5; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
    destroyApp(app);
  }
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// The CUDA path's barriers for the image on a driver without CUDA: an
// exported texture (GENERAL layout, released to VK_QUEUE_FAMILY_EXTERNAL at
// creation) stands in for the CPU backend's, and the vertex buffer is treated
// as written by another API (as test_interop_teardown.cpp does), so every
// render acquires both from EXTERNAL and releases both back, and the drain
// acquires both: synchronization validation must stay silent, a read-back
// before the drain is refused and one after it succeeds.
TEST(SurfaceTexture, ExternalTexturesOwnershipMovesWithTheVertexBuffer) {
  enableSynchronizationValidation();
  App app;
  app.headless = true;
  createApp(app, textureOptions(SyncMode::timeline, ModelKind::ripple, 40));
  if (!textureExportable(app.device)) {
    destroyApp(app);
    GTEST_SKIP() << "this Vulkan driver cannot export an RGBA8 storage image as an opaque fd";
  }
  destroySharedTexture(app.device, app.grid.texture);
  app.grid.texture = createSharedTexture(app.device, 40, 40, surfaceTextureLevelCount(40), TextureWriter::external);
  EXPECT_EQ(app.grid.texture.sampledLayout, VK_IMAGE_LAYOUT_GENERAL);
  EXPECT_TRUE(app.grid.texture.dedicated);
  const int fd = exportTextureMemoryFd(app.device, app.grid.texture);
  EXPECT_GE(fd, 0);
  if (fd >= 0) close(fd);  // nobody imports it here: still ours
  app.grid.externalWriter = true;
  app.grid.vertexOwner = VertexOwner::external;
  for (int frame = 0; frame < 8; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  EXPECT_THROW(readSharedTexture(app.device, app.grid, 0), RuntimeFailure);
  drainSchedule(app);
  EXPECT_EQ(readSharedTexture(app.device, app.grid, 1).size(), 20u * 20u * 4u);
  destroyApp(app);
  EXPECT_EQ(validationCounts().errors.load(), 0u);
  EXPECT_EQ(validationCounts().warnings.load(), 0u);
}

// The texture's ownership transfers as the frame records them, on any
// driver: lavapipe cannot export the image (the test above skips there), so
// the barriers are recorded into no command buffer, for handles that stand
// for none, and read back. Each names EXTERNAL on the right side, keeps the
// GENERAL layout (a transition could rewrite what CUDA wrote), covers every
// level, and moves with the vertex buffer in the same call.
TEST(SurfaceTexture, ExternalTexturesTransfersNameExternalAndEveryLevel) {
  GridResources shared;
  shared.vertices.buffer = reinterpret_cast<VkBuffer>(uintptr_t(0x1000));
  shared.texture.image = reinterpret_cast<VkImage>(uintptr_t(0x2000));
  shared.texture.writer = TextureWriter::external;
  shared.texture.width = shared.texture.height = 40;
  shared.texture.levels = surfaceTextureLevelCount(40);
  shared.texture.sampledLayout = VK_IMAGE_LAYOUT_GENERAL;
  const uint32_t family = 3;
  testing::BarrierRecorder recorder(/*forward=*/false);
  recordAcquireFromExternal(shared, family, VK_NULL_HANDLE, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT,
                            VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT, /*maintenance8=*/false);
  recordReleaseToExternal(shared, family, VK_NULL_HANDLE, /*maintenance8=*/false);

  const auto acquires = recorder.transfersOf(shared.texture.image, VK_QUEUE_FAMILY_EXTERNAL, family);
  const auto releases = recorder.transfersOf(shared.texture.image, family, VK_QUEUE_FAMILY_EXTERNAL);
  ASSERT_EQ(acquires.size(), 1u);
  ASSERT_EQ(releases.size(), 1u);
  EXPECT_EQ(recorder.transfersOf(shared.vertices.buffer, VK_QUEUE_FAMILY_EXTERNAL, family).size(), 1u);
  EXPECT_EQ(recorder.transfersOf(shared.vertices.buffer, family, VK_QUEUE_FAMILY_EXTERNAL).size(), 1u);
  for (const auto* barrier : {&acquires[0], &releases[0]}) {
    const VkImageMemoryBarrier& image = barrier->images[0];
    EXPECT_EQ(image.oldLayout, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_EQ(image.newLayout, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_EQ(image.subresourceRange.baseMipLevel, 0u);
    EXPECT_EQ(image.subresourceRange.levelCount, shared.texture.levels);
    EXPECT_EQ(image.subresourceRange.aspectMask, VkImageAspectFlags(VK_IMAGE_ASPECT_COLOR_BIT));
  }
  // The acquire chains with the semaphore wait at ALL_COMMANDS and makes the
  // texels visible to the fragment shader that samples them.
  EXPECT_EQ(acquires[0].srcStage, VkPipelineStageFlags(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT));
  EXPECT_NE(acquires[0].dstStage & VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0u);
  EXPECT_NE(acquires[0].images[0].dstAccessMask & VK_ACCESS_SHADER_READ_BIT, 0u);
  // Without VK_KHR_maintenance8: no flag, and the texture's release keeps its
  // ALL_COMMANDS -> BOTTOM_OF_PIPE (rule M21).
  EXPECT_EQ(acquires[0].dependencyFlags, 0u);
  EXPECT_EQ(releases[0].srcStage, VkPipelineStageFlags(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT));
  EXPECT_EQ(releases[0].dstStage, VkPipelineStageFlags(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT));
  EXPECT_EQ(releases[0].dependencyFlags, 0u);
}

// The same barriers with VK_KHR_maintenance8 (rule M22), recorded into no
// command buffer (lavapipe does not offer the extension, and no driver sees
// them): every transfer carries
// VK_DEPENDENCY_QUEUE_FAMILY_OWNERSHIP_TRANSFER_USE_ALL_STAGES_BIT_KHR (0x20)
// and the narrow stages, and the render's wait moves from ALL_COMMANDS to
// the stages the two acquires name.
TEST(SurfaceTexture, WithMaintenance8EveryTransferCarriesTheFlagAndNarrowStages) {
  GridResources shared;
  shared.vertices.buffer = reinterpret_cast<VkBuffer>(uintptr_t(0x1000));
  shared.texture.image = reinterpret_cast<VkImage>(uintptr_t(0x2000));
  shared.texture.writer = TextureWriter::external;
  shared.texture.levels = 1;
  const uint32_t family = 3;
  constexpr VkPipelineStageFlags kVertexInput = VK_PIPELINE_STAGE_VERTEX_INPUT_BIT;
  constexpr VkPipelineStageFlags kFragment = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
  testing::BarrierRecorder recorder(/*forward=*/false);
  recordAcquireFromExternal(shared, family, VK_NULL_HANDLE, kVertexInput, VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT,
                            /*maintenance8=*/true);
  recordReleaseToExternal(shared, family, VK_NULL_HANDLE, /*maintenance8=*/true);
  const auto bufferAcquires = recorder.transfersOf(shared.vertices.buffer, VK_QUEUE_FAMILY_EXTERNAL, family);
  const auto bufferReleases = recorder.transfersOf(shared.vertices.buffer, family, VK_QUEUE_FAMILY_EXTERNAL);
  const auto imageAcquires = recorder.transfersOf(shared.texture.image, VK_QUEUE_FAMILY_EXTERNAL, family);
  const auto imageReleases = recorder.transfersOf(shared.texture.image, family, VK_QUEUE_FAMILY_EXTERNAL);
  ASSERT_EQ(bufferAcquires.size(), 1u);
  ASSERT_EQ(bufferReleases.size(), 1u);
  ASSERT_EQ(imageAcquires.size(), 1u);
  ASSERT_EQ(imageReleases.size(), 1u);
  for (const auto* barrier : {&bufferAcquires[0], &bufferReleases[0], &imageAcquires[0], &imageReleases[0]})
    EXPECT_EQ(barrier->dependencyFlags, VkDependencyFlags(0x20));
  EXPECT_EQ(bufferAcquires[0].srcStage, kVertexInput);
  EXPECT_EQ(bufferAcquires[0].dstStage, kVertexInput);
  EXPECT_EQ(bufferReleases[0].srcStage, kVertexInput);
  EXPECT_EQ(bufferReleases[0].dstStage, kVertexInput);
  EXPECT_EQ(imageAcquires[0].srcStage, kVertexInput | kFragment);
  EXPECT_EQ(imageAcquires[0].dstStage, kVertexInput | kFragment);
  EXPECT_EQ(imageReleases[0].srcStage, kFragment);
  EXPECT_EQ(imageReleases[0].dstStage, kFragment);
  EXPECT_EQ(externalAcquireWaitStage(shared, kVertexInput, true), kVertexInput | kFragment);
  EXPECT_EQ(externalAcquireWaitStage(shared, kVertexInput, false),
            VkPipelineStageFlags(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT));
}

}  // namespace

namespace testing {
namespace {

// The picture shows the texture: the same run with --texture off draws the
// height colour and no foam, so the two screenshots differ; each run is
// clean with the validation layer on.
TEST(SurfaceTextureScreenshot, DiffersFromTheSameFrameWithTheTextureOff) {
  const std::string dir = makeTempDir("texture-screenshot");
  auto shoot = [&](const std::string& texture) {
    const std::string path = dir + "/" + texture + ".png";
    const AppResult result = runApp({"--headless", "--backend", "cpu", "--sim", "ripple", "--grid", "128", "--seed",
                                     "3", "--size", "320x200", "--frames", "60", "--texture", texture,
                                     "--screenshot", path},
                                    {"VKSIM_VALIDATION=1"});
    expectCleanRun(result);
    return loadImage(path);
  };
  const Image on = shoot("on"), off = shoot("off");
  ASSERT_EQ(on.rgba.size(), off.rgba.size());
  size_t differing = 0;
  for (size_t i = 0; i < on.rgba.size(); i += 4) differing += std::memcmp(&on.rgba[i], &off.rgba[i], 3) != 0;
  EXPECT_GT(differing, on.rgba.size() / 4 / 10) << "the texture changed less than a tenth of the pixels";
}

}  // namespace
}  // namespace testing
}  // namespace vksim
