// The levels that the Vulkan backend's ripple step writes itself (levels
// 0-3, sim/vulkan/step_texel_levels.glsl) in each of its shapes, on lavapipe
// with the validation layer and synchronization validation on: every level
// read back from the image equals, byte for byte, the CPU reference's
// texture of the vertices read back (QueueTextureLevels, test_queue_texture.cpp,
// checks the same at lavapipe's default width in both sync modes, rows
// shape only). The tile shape (VKSIM_VULKAN_TILE_STEP=1) and the rows shape
// run in-process; the subgroup widths that lavapipe takes from
// LP_NATIVE_VECTOR_WIDTH, fixed when the driver loads, run this binary again
// with that variable: 256 bits give 8-lane strips, 512 16-lane strips, 1024
// partial subgroups (cellsAlone, which must fill the texel tile too). The
// grids cut the workgroups' tiles (200, 257: no multiple of 24, 32, 48 or
// 96), reach odd extents on levels 1-3 (257: 128, 64, 32; 200: 100, 50, 25)
// and have fewer levels than the step writes (2, 3: two levels; 5: three).
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <ostream>
#include <string>

#include "app/app.h"
#include "app/frame_loop.h"
#include "app_runner.h"
#include "sim/surface_texture.h"
#include "sync_validation.h"
#include "texture_check.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

const uint32_t kGrids[] = {2, 3, 5, 200, 257};

// Each level of a ripple run of `grid` against the CPU reference, the step
// shape chosen by `tiles` (VKSIM_VULKAN_TILE_STEP, read when the backend is made).
void expectStepLevelsMatch(uint32_t grid, bool tiles) {
  SCOPED_TRACE(std::string(tiles ? "tiles" : "rows") + ", grid " + std::to_string(grid));
  setenv("VKSIM_VULKAN_TILE_STEP", tiles ? "1" : "0", 1);
  const ValidationWatch watch;
  App app;
  app.headless = true;
  createApp(app, textureTestOptions(BackendChoice::vulkan, SyncMode::timeline, ModelKind::ripple, grid));
  unsetenv("VKSIM_VULKAN_TILE_STEP");
  ASSERT_TRUE(app.instance.validation && app.instance.synchronizationValidation);
  ASSERT_EQ(app.grid.texture.writer, TextureWriter::queueCompute);
  ASSERT_EQ(app.grid.texture.levels, surfaceTextureLevelCount(grid));
  for (int frame = 0; frame < 9; ++frame) ASSERT_EQ(runFrame(app), FrameStatus::rendered);
  drainSchedule(app);
  expectEveryLevelEqual(app, tiles ? "tiles" : "rows");
  destroyApp(app);
  EXPECT_EQ(watch.newErrors(), 0u);
  EXPECT_EQ(watch.newWarnings(), 0u);
}

TEST(VulkanStepTexels, EveryLevelEqualsTheCpuReferenceInBothShapes) {
  enableSynchronizationValidation();
  for (uint32_t grid : kGrids) {
    expectStepLevelsMatch(grid, /*tiles=*/true);
    expectStepLevelsMatch(grid, /*tiles=*/false);
  }
  // A grid large enough for every level the step writes to be wide
  // (1000: 500, 250, 125), in the rows shape only (the one that runs where
  // subgroups allow).
  expectStepLevelsMatch(1000, /*tiles=*/false);
}

struct WidthCase {
  const char* vectorBits;
  const char* shapeLine;  // what the rows step says of itself at that width
};

void PrintTo(const WidthCase& width, std::ostream* out) {
  *out << width.vectorBits << " bits";
}

class VulkanStepTexelWidths : public ::testing::TestWithParam<WidthCase> {};

// The test above again in a child with the width set, which must say the
// shape it ran and pass.
TEST_P(VulkanStepTexelWidths, EveryLevelEqualsTheCpuReference) {
  char self[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(length, 0);
  const testing::AppResult child =
      testing::runApp({"--gtest_filter=VulkanStepTexels.EveryLevelEqualsTheCpuReferenceInBothShapes"},
                      {"VKSIM_VALIDATION=1", std::string("LP_NATIVE_VECTOR_WIDTH=") + GetParam().vectorBits},
                      600, std::string(self, size_t(length)));
  EXPECT_EQ(child.exitCode, 0) << child.out << child.err;
  EXPECT_NE(child.out.find(GetParam().shapeLine), std::string::npos) << child.out;
  EXPECT_NE(child.out.find("[  PASSED  ] 1 test"), std::string::npos) << child.out;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, VulkanStepTexelWidths,
                         ::testing::Values(WidthCase{"256", "subgroup rows, 8 lanes x 3 rows a subgroup"},
                                           WidthCase{"512", "subgroup rows, 16 lanes x 3 rows a subgroup"},
                                           // Reports 32 lanes, runs partial subgroups: cellsAlone.
                                           WidthCase{"1024", "subgroup rows, 32 lanes x 3 rows a subgroup"}),
                         [](const ::testing::TestParamInfo<WidthCase>& width) {
                           return std::string("bits") + width.param.vectorBits;
                         });

}  // namespace
}  // namespace vksim
