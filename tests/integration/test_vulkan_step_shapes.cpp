// The Vulkan backend's ripple step in its two shapes (sim/vulkan/
// subgroup_rows.h), on lavapipe with the validation layer on: subgroup rows
// (the default where subgroups allow) and tiles (VKSIM_VULKAN_TILE_STEP=1)
// write the same vertices, bit for bit, texture on. The rows run strict
// (VKSIM_STRICT_SUBGROUP_ROWS=1: a workgroup of partial subgroups writes
// nothing), so equal vertices show that the strips themselves wrote every
// cell. lavapipe's subgroup size follows LP_NATIVE_VECTOR_WIDTH: 256 bits
// give 8 lanes, 512 give 16; at 1024 it reports 32 lanes but runs partial
// subgroups of 16, which the rows step computes cell by cell (cellsAlone).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app_runner.h"

namespace vksim::testing {
namespace {

struct Shape {
  AppResult run;
  std::string vertices;
};

Shape runShape(int grid, const std::string& vectorBits, const std::string& switchLine, const std::string& name) {
  const std::string dump = makeTempDir("step-shapes") + "/" + name + ".bin";
  std::vector<std::string> env = kValidation;
  env.push_back("LP_NATIVE_VECTOR_WIDTH=" + vectorBits);
  if (!switchLine.empty()) env.push_back(switchLine);
  Shape shape;
  shape.run = runApp({"--headless", "--backend", "vulkan", "--grid", std::to_string(grid), "--frames", "40",
                      "--seed", "5", "--texture", "on", "--size", "96x64", "--dump-vertices", dump},
                     env, 300);
  shape.vertices = readFile(dump);
  return shape;
}

struct ShapeCase {
  const char* vectorBits;
  const char* lanesLine;  // what the rows step says of itself at that width
};

class VulkanStepShapes : public ::testing::TestWithParam<ShapeCase> {};

// Grids that cut the strips (37 and 333 are no multiple of 8 or 16) and one
// that does not (64); each far enough from the start for the drops to spread.
TEST_P(VulkanStepShapes, StrictRowsWriteTheTilesVerticesBitForBit) {
  for (int grid : {37, 64, 333}) {
    const Shape tiles = runShape(grid, GetParam().vectorBits, "VKSIM_VULKAN_TILE_STEP=1", "tiles");
    const Shape rows = runShape(grid, GetParam().vectorBits, "VKSIM_STRICT_SUBGROUP_ROWS=1", "rows");
    expectCleanRun(tiles.run);
    expectCleanRun(rows.run);
    EXPECT_NE(tiles.run.out.find("vulkan ripple step: tiles (VKSIM_VULKAN_TILE_STEP=1)"), std::string::npos)
        << tiles.run.out;
    EXPECT_NE(rows.run.out.find(GetParam().lanesLine), std::string::npos) << rows.run.out;
    ASSERT_EQ(tiles.vertices.size(), size_t(grid) * grid * 32) << "grid " << grid;
    EXPECT_TRUE(rows.vertices == tiles.vertices) << "grid " << grid << ": the rows step's vertices differ";
  }
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, VulkanStepShapes,
                         ::testing::Values(ShapeCase{"256", "subgroup rows, 8 lanes x 3 rows a subgroup"},
                                           ShapeCase{"512", "subgroup rows, 16 lanes x 3 rows a subgroup"}),
                         [](const ::testing::TestParamInfo<ShapeCase>& shape) {
                           return std::string("bits") + shape.param.vectorBits;
                         });

// Partial subgroups (lavapipe at 1024 bits): the default computes every cell
// one by one and still writes the tiles' vertices; strict writes nothing
// there, so its vertices differ, which shows that strict is what the first
// test's equality rests on.
TEST(VulkanStepShapesPartial, CellsAloneWritesTheTilesVerticesAndStrictDoesNot) {
  const int grid = 37;
  const Shape tiles = runShape(grid, "1024", "VKSIM_VULKAN_TILE_STEP=1", "tiles");
  const Shape rows = runShape(grid, "1024", "", "rows");
  const Shape strict = runShape(grid, "1024", "VKSIM_STRICT_SUBGROUP_ROWS=1", "strict");
  expectCleanRun(tiles.run);
  expectCleanRun(rows.run);
  expectCleanRun(strict.run);
  ASSERT_EQ(tiles.vertices.size(), size_t(grid) * grid * 32);
  EXPECT_TRUE(rows.vertices == tiles.vertices);
  EXPECT_FALSE(strict.vertices == tiles.vertices);
}

TEST(VulkanStepShapesSwitches, AMisspeltSwitchIsRefusedWithExitTwo) {
  for (const char* name : {"VKSIM_VULKAN_TILE_STEP", "VKSIM_STRICT_SUBGROUP_ROWS"}) {
    const AppResult result = runApp({"--headless", "--frames", "2"}, {std::string(name) + "=yes"});
    EXPECT_EQ(result.exitCode, 2) << name;
    EXPECT_NE(result.err.find(std::string(name) + " must be 0 or 1 (got 'yes')"), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace vksim::testing
