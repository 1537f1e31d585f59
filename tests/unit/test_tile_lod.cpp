// The mesh's level of detail (renderer/tile_lod.h): the tiling, the patterns'
// seams, the level choice against the camera, and the neighbour limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "app/ui/camera.h"
#include "renderer/tile_lod.h"

namespace vksim {
namespace {

// Every tile drawn, at the given (limited) levels: the triangles in grid
// vertex indices, as the GPU would assemble them from the patterns.
std::vector<uint32_t> assemble(const TileGrid& tiles, const TilePatterns& patterns,
                               const std::vector<uint8_t>& levels) {
  const uint32_t side = tiles.tilesPerSide;
  std::vector<uint32_t> triangles;
  for (uint32_t row = 0; row < side; ++row)
    for (uint32_t column = 0; column < side; ++column) {
      const uint8_t level = levels[row * side + column];
      auto coarser = [&](bool exists, uint32_t r, uint32_t c, TileEdge edge) {
        return exists && levels[r * side + c] > level ? uint32_t(edge) : 0u;
      };
      const uint32_t mask = coarser(row > 0, row - 1, column, kEdgeLowZ) |
                            coarser(row + 1 < side, row + 1, column, kEdgeHighZ) |
                            coarser(column > 0, row, column - 1, kEdgeLowX) |
                            coarser(column + 1 < side, row, column + 1, kEdgeHighX);
      const TilePattern pattern =
          patterns.patterns[patternSlot(tiles, column + 1 == side, row + 1 == side, level, mask)];
      const uint32_t first = (row * tiles.grid + column) * tiles.tileCells;
      for (uint32_t i = 0; i < pattern.indexCount; ++i)
        triangles.push_back(first + patterns.indices[pattern.firstIndex + i]);
    }
  return triangles;
}

// What makes a mesh drawn from tiles watertight: every edge inside the grid
// is used once in each direction (two triangles, the same winding, nothing
// overlapping or folded), only the grid's border has edges used once, and
// the triangles cover the grid's area exactly once.
void expectWatertight(const TileGrid& tiles, const std::vector<uint32_t>& triangles) {
  const uint32_t grid = tiles.grid, last = grid - 1;
  std::map<std::pair<uint32_t, uint32_t>, int> directed;
  int64_t twiceArea = 0;
  for (size_t t = 0; t < triangles.size(); t += 3) {
    const uint32_t v[3] = {triangles[t], triangles[t + 1], triangles[t + 2]};
    for (int e = 0; e < 3; ++e) ++directed[{v[e], v[(e + 1) % 3]}];
    auto x = [grid](uint32_t i) { return int64_t(i % grid); };
    auto z = [grid](uint32_t i) { return int64_t(i / grid); };
    // Twice the signed area in (x, z): negative for the grid's winding. Zero
    // only for a sliver whose three vertices line up seen from above (it
    // closes the gap where two snapped edges meet; its edges are counted).
    const int64_t cross = (x(v[1]) - x(v[0])) * (z(v[2]) - z(v[0])) - (z(v[1]) - z(v[0])) * (x(v[2]) - x(v[0]));
    ASSERT_TRUE(v[0] != v[1] && v[1] != v[2] && v[0] != v[2]) << "triangle " << t / 3 << " is degenerate";
    ASSERT_LE(cross, 0) << "triangle " << t / 3 << " is folded: (" << x(v[0]) << "," << z(v[0]) << ") ("
                        << x(v[1]) << "," << z(v[1]) << ") (" << x(v[2]) << "," << z(v[2]) << ")";
    twiceArea -= cross;
  }
  EXPECT_EQ(twiceArea, 2 * int64_t(last) * last) << "the triangles do not cover the grid exactly once";
  auto onBorder = [&](uint32_t a, uint32_t b) {
    const uint32_t ax = a % grid, az = a / grid, bx = b % grid, bz = b / grid;
    return (ax == bx && (ax == 0 || ax == last)) || (az == bz && (az == 0 || az == last));
  };
  int cracks = 0;
  for (const auto& [edge, count] : directed) {
    const auto reverse = directed.find({edge.second, edge.first});
    const int back = reverse == directed.end() ? 0 : reverse->second;
    EXPECT_EQ(count, 1) << "edge " << edge.first << "-" << edge.second << " drawn twice the same way";
    if (back == 0 && !onBorder(edge.first, edge.second)) ++cracks;
  }
  EXPECT_EQ(cracks, 0) << "edges inside the grid with a triangle on one side only: a seam gap";
}

TEST(TileLod, TilingCoversTheGridWithPowerOfTwoTiles) {
  for (uint32_t grid : {2u, 33u, 64u, 512u, 2048u, 4096u, 8192u}) {
    const TileGrid tiles = makeTileGrid(grid);
    EXPECT_EQ(tiles.tileCells & (tiles.tileCells - 1), 0u) << grid;
    EXPECT_LE(tiles.tilesPerSide, 32u) << grid;
    EXPECT_EQ((tiles.tilesPerSide - 1) * tiles.tileCells + tiles.lastTileCells, grid - 1) << grid;
    EXPECT_GE(tiles.lastTileCells, 1u) << grid;
    EXPECT_LE(tiles.lastTileCells, tiles.tileCells) << grid;
    EXPECT_EQ(1u << (tiles.levelCount - 1), tiles.tileCells) << grid;
  }
  EXPECT_EQ(makeTileGrid(8192).tileCells, 256u);
  EXPECT_EQ(makeTileGrid(512).tileCells, 32u);
}

TEST(TileLod, TheFinestLevelDrawsExactlyTheWholeGrid) {
  const TileGrid tiles = makeTileGrid(100);
  const TilePatterns patterns = buildTilePatterns(tiles);
  const std::vector<uint8_t> finest(tiles.tilesPerSide * tiles.tilesPerSide, 0);
  const std::vector<uint32_t> triangles = assemble(tiles, patterns, finest);
  EXPECT_EQ(triangles.size(), size_t{6} * 99 * 99);
  expectWatertight(tiles, triangles);
}

// Random levels, limited as a frame limits them, on grids whose last tile
// is narrower than the others and on one that divides evenly.
TEST(TileLod, SeamsBetweenLevelsLeaveNoGap) {
  std::mt19937 random(7);
  for (uint32_t grid : {129u, 150u, 300u, 1100u}) {
    const TileGrid tiles = makeTileGrid(grid);
    const TilePatterns patterns = buildTilePatterns(tiles);
    for (int trial = 0; trial < (grid > 1000 ? 2 : 6); ++trial) {
      std::vector<uint8_t> levels(tiles.tilesPerSide * tiles.tilesPerSide);
      std::uniform_int_distribution<int> level(0, int(tiles.levelCount) - 1);
      for (uint8_t& l : levels) l = uint8_t(level(random));
      limitLevelSteps(tiles, levels);
      SCOPED_TRACE("grid " + std::to_string(grid) + " trial " + std::to_string(trial));
      expectWatertight(tiles, assemble(tiles, patterns, levels));
    }
  }
}

TEST(TileLod, NeighbouringTilesDifferByAtMostOneLevelAndNoneGetsCoarser) {
  const TileGrid tiles = makeTileGrid(1100);
  const uint32_t side = tiles.tilesPerSide;
  std::vector<uint8_t> levels(side * side, uint8_t(tiles.levelCount - 1));
  levels[5 * side + 7] = 0;  // one fine tile in a coarse field
  const std::vector<uint8_t> chosen = levels;
  limitLevelSteps(tiles, levels);
  for (uint32_t row = 0; row < side; ++row)
    for (uint32_t column = 0; column < side; ++column) {
      const int here = levels[row * side + column];
      EXPECT_LE(here, chosen[row * side + column]);
      if (column + 1 < side) {
        EXPECT_LE(std::abs(here - levels[row * side + column + 1]), 1);
      }
      if (row + 1 < side) {
        EXPECT_LE(std::abs(here - levels[(row + 1) * side + column]), 1);
      }
    }
  EXPECT_EQ(levels[5 * side + 8], 1);
  EXPECT_EQ(levels[5 * side + 9], 2);
}

uint8_t maxVisibleLevel(const TileChoice& choice) {
  uint8_t level = 0;
  for (size_t t = 0; t < choice.levels.size(); ++t)
    if (choice.visible[t]) level = std::max(level, choice.levels[t]);
  return level;
}

uint8_t minVisibleLevel(const TileChoice& choice) {
  uint8_t level = 0xFF;
  for (size_t t = 0; t < choice.levels.size(); ++t)
    if (choice.visible[t]) level = std::min(level, choice.levels[t]);
  return level;
}

// The nearest tiles (the finest level in view) get coarser with distance.
TEST(TileLod, LevelsGetCoarserAsTheCameraMovesAway) {
  const TileGrid tiles = makeTileGrid(4096);
  OrbitCamera camera;
  int previous = -1;
  for (float distance : {0.5f, 1.5f, 3.8f, 12.0f}) {
    camera.distance = distance;
    const TileChoice choice = chooseTileLevels(tiles, makeLodView(camera, 1280, 720, 2.0f, 0.1f));
    const int level = minVisibleLevel(choice);
    EXPECT_GT(level, previous) << "distance " << distance;
    previous = level;
  }
  // Close up, the tiles under the eye are drawn at full detail.
  camera.distance = 0.5f;
  EXPECT_EQ(minVisibleLevel(chooseTileLevels(tiles, makeLodView(camera, 1280, 720, 2.0f, 0.1f))), 0);
}

TEST(TileLod, ATallerViewportDrawsFinerLevels) {
  const TileGrid tiles = makeTileGrid(4096);
  const OrbitCamera camera;
  const TileChoice small = chooseTileLevels(tiles, makeLodView(camera, 640, 360, 2.0f, 0.1f));
  const TileChoice large = chooseTileLevels(tiles, makeLodView(camera, 2560, 1440, 2.0f, 0.1f));
  EXPECT_GT(maxVisibleLevel(small), maxVisibleLevel(large));
}

TEST(TileLod, TilesOutsideTheViewAreCulled) {
  const TileGrid tiles = makeTileGrid(2048);
  OrbitCamera camera;
  const TileChoice wide = chooseTileLevels(tiles, makeLodView(camera, 1280, 720, 2.0f, 0.1f));
  EXPECT_EQ(std::count(wide.visible.begin(), wide.visible.end(), 1), std::ptrdiff_t(wide.visible.size()))
      << "the default view shows the whole grid";
  camera.distance = 0.5f;
  camera.targetX = 0.8f;
  camera.targetZ = 0.8f;
  const TileChoice close = chooseTileLevels(tiles, makeLodView(camera, 1280, 720, 2.0f, 0.1f));
  const auto visible = std::count(close.visible.begin(), close.visible.end(), 1);
  EXPECT_GT(visible, 0);
  EXPECT_LT(visible, std::ptrdiff_t(close.visible.size()) / 2);
  // The tile under the target is in view; the opposite corner is not.
  const uint32_t side = tiles.tilesPerSide;
  EXPECT_EQ(close.visible[(side - 2) * side + side - 2], 1);
  EXPECT_EQ(close.visible[0], 0);
}

TEST(TileLod, APlanDrawsOnlyVisibleTilesWithStitchedPatterns) {
  const TileGrid tiles = makeTileGrid(2048);
  const TilePatterns patterns = buildTilePatterns(tiles);
  const TileDrawPlan plan = planTileDraws(tiles, patterns.patterns, makeLodView(OrbitCamera{}, 1280, 720, 2.0f, 0.1f));
  EXPECT_EQ(plan.tilesDrawn, plan.draws.size());
  EXPECT_GT(plan.maxLevel, plan.minLevel) << "the default view is near at the front and far at the back";
  EXPECT_LT(plan.triangles, uint64_t{2} * 2047 * 2047 / 4);
  uint64_t triangles = 0;
  for (const TileDraw& draw : plan.draws) triangles += patterns.patterns[draw.pattern].indexCount / 3;
  EXPECT_EQ(triangles, plan.triangles);
}

}  // namespace
}  // namespace vksim
