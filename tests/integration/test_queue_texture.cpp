// The surface texture on the render-queue path (--backend vulkan), in-process
// on lavapipe with the validation layer and synchronization validation on:
// every level that Vulkan reads back from the image equals, byte for byte,
// the CPU reference's texture (writeSurfaceTexture, sim/surface_texture.h) of
// the vertices Vulkan reads back, at grids that cut the 16 x 16 workgroups
// and whose levels reach odd extents, in both sync modes; `--texture off`
// binds the placeholder; and the picture matches the CPU backend's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app_runner.h"
#include "image_file.h"
#include "renderer/vk_check.h"
#include "sim/surface_texture.h"
#include "sync_validation.h"
#include "texture_check.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

Options queueTextureOptions(SyncMode sync, ModelKind model, uint32_t grid) {
  return textureTestOptions(BackendChoice::vulkan, sync, model, grid);
}

struct QueueTextureCase {
  SyncMode sync;
  ModelKind model;
  uint32_t grid;
};
void PrintTo(const QueueTextureCase& c, std::ostream* out) {
  *out << toString(c.sync) << " " << toString(c.model) << " " << c.grid;
}

class QueueTextureLevels : public ::testing::TestWithParam<QueueTextureCase> {};

TEST_P(QueueTextureLevels, EveryLevelEqualsTheCpuReferenceOfTheSameVertices) {
  enableSynchronizationValidation();
  const QueueTextureCase testCase = GetParam();
  const uint32_t grid = testCase.grid;
  const ValidationWatch watch;
  App app;
  app.headless = true;
  createApp(app, queueTextureOptions(testCase.sync, testCase.model, grid));
  ASSERT_TRUE(app.instance.validation && app.instance.synchronizationValidation);
  ASSERT_EQ(app.grid.texture.writer, TextureWriter::queueCompute);
  ASSERT_TRUE(textureDrawn(app.grid));
  ASSERT_EQ(app.grid.texture.width, grid);
  ASSERT_EQ(app.grid.texture.levels, surfaceTextureLevelCount(grid));
  for (int frame = 0; frame < 9; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  // A paused step writes neither vertices nor texels: after the drain the
  // image holds the texture of the vertices now in the buffer, as the last
  // advancing step wrote both.
  app.paused = true;
  ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  drainSchedule(app);
  std::vector<uint8_t> reference;
  const std::vector<LevelDifference> levels = textureAgainstItsVertices(app, &reference);
  ASSERT_EQ(levels.size(), size_t(app.grid.texture.levels));
  for (const LevelDifference& level : levels)
    EXPECT_EQ(level.differing, 0u) << "level " << level.level << " (" << level.width << "x" << level.height
                                   << "): bytes that differ from the CPU reference, the first at byte " << level.first;
  // Not a constant image: the waves (or the sine) give level 0 many colours.
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 4 <= size_t(grid) * grid * 4; i += 4) {
    uint32_t colour = 0;
    std::memcpy(&colour, &reference[i], 4);
    colours.insert(colour);
  }
  EXPECT_GT(colours.size(), grid < 16 ? 3u : 20u);
  destroyApp(app);
  EXPECT_EQ(watch.newErrors(), 0u);
  EXPECT_EQ(watch.newWarnings(), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    GridsThatCutWorkgroups, QueueTextureLevels,
    ::testing::Values(QueueTextureCase{SyncMode::timeline, ModelKind::ripple, 5},
                      QueueTextureCase{SyncMode::binary, ModelKind::ripple, 5},
                      QueueTextureCase{SyncMode::timeline, ModelKind::ripple, 37},
                      QueueTextureCase{SyncMode::binary, ModelKind::ripple, 37},
                      QueueTextureCase{SyncMode::timeline, ModelKind::ripple, 333},
                      QueueTextureCase{SyncMode::binary, ModelKind::ripple, 333},
                      QueueTextureCase{SyncMode::timeline, ModelKind::ripple, 512},
                      QueueTextureCase{SyncMode::binary, ModelKind::ripple, 512},
                      // The ripple's step writes levels 0-3 (550, 275 and 137 wide
                      // below level 0), downsample_levels.comp the rest.
                      QueueTextureCase{SyncMode::timeline, ModelKind::ripple, 1100},
                      // The sinewave's level 1 (550) is wider than
                      // kTextureLevelsFusedExtent: one downsample_texels.comp
                      // dispatch, then downsample_levels.comp.
                      QueueTextureCase{SyncMode::timeline, ModelKind::sinewave, 1100},
                      QueueTextureCase{SyncMode::timeline, ModelKind::sinewave, 37},
                      QueueTextureCase{SyncMode::binary, ModelKind::sinewave, 333}),
    [](const auto& testInfo) {
      return std::string(toString(testInfo.param.sync)) + "_" + toString(testInfo.param.model) + "_" +
             std::to_string(testInfo.param.grid);
    });

// --texture off: the placeholder, and the step writes no texels (no writer
// is made), with validation silent.
TEST(QueueTexture, OffBindsThePlaceholder) {
  enableSynchronizationValidation();
  Options options = queueTextureOptions(SyncMode::timeline, ModelKind::ripple, 37);
  options.texture = false;
  const ValidationWatch watch;
  App app;
  app.headless = true;
  createApp(app, options);
  EXPECT_EQ(app.grid.texture.writer, TextureWriter::placeholder);
  EXPECT_FALSE(textureDrawn(app.grid));
  EXPECT_EQ(app.grid.texture.width, 1u);
  for (int frame = 0; frame < 5; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  destroyApp(app);
  EXPECT_EQ(watch.newErrors(), 0u);
  EXPECT_EQ(watch.newWarnings(), 0u);
}

}  // namespace
}  // namespace vksim

namespace vksim::testing {
namespace {

// The picture: the vulkan backend's screenshot is the CPU backend's (the
// same texture of vertices that agree within docs/queue-backends.md's
// bounds), and differs from its own with --texture off (the texture is
// drawn). Measured at 256², 60 frames, 1280x720: 20 of 921600 pixels
// differed from the CPU backend's, by 1 level.
TEST(QueueTextureScreenshot, MatchesTheCpuBackendsPicture) {
  const std::string dir = makeTempDir("queue-texture-screenshot");
  auto shoot = [&](const std::string& backend, const std::string& texture) {
    const std::string path = dir + "/" + backend + "-" + texture + ".png";
    const AppResult result =
        runApp({"--headless", "--backend", backend, "--sim", "ripple", "--grid", "128", "--seed", "3", "--size",
                "320x200", "--frames", "60", "--texture", texture, "--screenshot", path},
               {"VKSIM_VALIDATION=1"});
    expectCleanRun(result);
    return loadImage(path);
  };
  const Image vulkan = shoot("vulkan", "on"), cpu = shoot("cpu", "on"), off = shoot("vulkan", "off");
  ASSERT_EQ(vulkan.rgba.size(), cpu.rgba.size());
  ASSERT_EQ(vulkan.rgba.size(), off.rgba.size());
  const size_t pixels = vulkan.rgba.size() / 4;
  size_t fromCpu = 0, fromOff = 0;
  int largest = 0;
  for (size_t i = 0; i < vulkan.rgba.size(); i += 4) {
    int pixelLargest = 0;
    for (size_t channel = 0; channel < 3; ++channel)
      pixelLargest = std::max(pixelLargest, std::abs(int(vulkan.rgba[i + channel]) - int(cpu.rgba[i + channel])));
    fromCpu += pixelLargest > 0;
    largest = std::max(largest, pixelLargest);
    fromOff += std::memcmp(&vulkan.rgba[i], &off.rgba[i], 3) != 0;
  }
  EXPECT_LE(fromCpu, pixels / 1000) << "pixels that differ from the CPU backend's picture";
  EXPECT_LE(largest, 2) << "the largest channel difference from the CPU backend's picture";
  EXPECT_GT(fromOff, pixels / 20) << "the texture changed less than a twentieth of the pixels";
}

}  // namespace
}  // namespace vksim::testing
