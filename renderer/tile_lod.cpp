#include "renderer/tile_lod.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "base/config.h"

namespace vksim {
namespace {

constexpr uint32_t kMaskCount = 16;  // every combination of the four TileEdge bits

// A pattern's tile: its size in cells (the last column and row may be narrower).
struct TileShape {
  uint32_t width = 0, depth = 0;
};

TileShape shapeOf(const TileGrid& tiles, bool lastColumn, bool lastRow) {
  return {lastColumn ? tiles.lastTileCells : tiles.tileCells, lastRow ? tiles.lastTileCells : tiles.tileCells};
}

// Where an edge vertex goes when the neighbour across the edge draws every
// `coarseStride`-th vertex: onto the neighbour's vertex at or below it. The
// edge's far end stays put, as the neighbour's does (a narrower last tile
// ends off the stride; its end vertex is drawn at every level).
uint32_t snapToStride(uint32_t position, uint32_t coarseStride, uint32_t end) {
  return position == end ? end : position / coarseStride * coarseStride;
}

// A vertex of a pattern, in cells from the tile's first vertex.
struct PatternVertex {
  uint32_t x = 0, z = 0;
};

// The pattern's vertex (column i, row j) at `stride`, snapped along the
// edges in `coarserEdges`. Columns past the tile's width clamp to it: a
// narrower tile's last cell is narrower at every level.
PatternVertex patternVertex(TileShape shape, uint32_t stride, uint32_t coarserEdges, uint32_t i, uint32_t j) {
  const uint32_t x0 = std::min(i * stride, shape.width), z0 = std::min(j * stride, shape.depth);
  const uint32_t coarse = stride * 2;  // limitLevelSteps: a neighbour is at most one level coarser
  uint32_t x = x0, z = z0;
  if ((z0 == 0 && (coarserEdges & kEdgeLowZ)) || (z0 == shape.depth && (coarserEdges & kEdgeHighZ)))
    x = snapToStride(x0, coarse, shape.width);
  if ((x0 == 0 && (coarserEdges & kEdgeLowX)) || (x0 == shape.width && (coarserEdges & kEdgeHighX)))
    z = snapToStride(z0, coarse, shape.depth);
  return {x, z};
}

// Two triangles per cell at `level`, wound as createGridIndexBuffer's
// (v00, v01, v10) and (v10, v01, v11). Snapping collapses some triangles
// onto two vertices: they cover no pixel and are left out. Where two
// snapped edges meet at a tile's corner, a triangle's three vertices may
// line up seen from above; it is kept: the vertices' heights differ, and it
// closes the gap between the edge that skips the middle vertex and the two
// edges that use it.
void appendPattern(const TileGrid& tiles, TileShape shape, uint32_t level, uint32_t coarserEdges,
                   std::vector<uint32_t>& indices) {
  const uint32_t stride = 1u << level;
  const uint32_t columns = (shape.width + stride - 1) / stride, rows = (shape.depth + stride - 1) / stride;
  auto addTriangle = [&](PatternVertex a, PatternVertex b, PatternVertex c) {
    auto same = [](PatternVertex p, PatternVertex q) { return p.x == q.x && p.z == q.z; };
    if (same(a, b) || same(b, c) || same(a, c)) return;
    for (const PatternVertex& v : {a, b, c}) indices.push_back(uint32_t(v.z) * tiles.grid + uint32_t(v.x));
  };
  for (uint32_t j = 0; j < rows; ++j)
    for (uint32_t i = 0; i < columns; ++i) {
      const PatternVertex v00 = patternVertex(shape, stride, coarserEdges, i, j);
      const PatternVertex v10 = patternVertex(shape, stride, coarserEdges, i + 1, j);
      const PatternVertex v01 = patternVertex(shape, stride, coarserEdges, i, j + 1);
      const PatternVertex v11 = patternVertex(shape, stride, coarserEdges, i + 1, j + 1);
      addTriangle(v00, v01, v10);
      addTriangle(v10, v01, v11);
    }
}

// The rows of a column-major 4x4 matrix, as the planes a point p is inside
// of when dot(plane.xyz, p) + plane.w >= 0: Vulkan's clip volume is
// -w <= x, y <= w and 0 <= z <= w.
std::array<std::array<float, 4>, 6> frustumPlanes(const std::array<float, 16>& m) {
  auto row = [&m](int r) { return std::array<float, 4>{m[0 + r], m[4 + r], m[8 + r], m[12 + r]}; };
  const auto r0 = row(0), r1 = row(1), r2 = row(2), r3 = row(3);
  std::array<std::array<float, 4>, 6> planes{};
  for (int c = 0; c < 4; ++c) {
    planes[0][c] = r3[c] + r0[c];
    planes[1][c] = r3[c] - r0[c];
    planes[2][c] = r3[c] + r1[c];
    planes[3][c] = r3[c] - r1[c];
    planes[4][c] = r2[c];
    planes[5][c] = r3[c] - r2[c];
  }
  return planes;
}

struct Box {
  std::array<float, 3> low{}, high{};
};

bool boxInFrustum(const Box& box, const std::array<std::array<float, 4>, 6>& planes) {
  for (const auto& plane : planes) {
    // The box corner furthest along the plane's normal: if even it is
    // outside, the whole box is.
    float reach = plane[3];
    for (int axis = 0; axis < 3; ++axis) reach += plane[axis] * (plane[axis] >= 0 ? box.high[axis] : box.low[axis]);
    if (reach < 0.0f) return false;
  }
  return true;
}

float distanceToBox(const Box& box, const std::array<float, 3>& eye) {
  float squared = 0.0f;
  for (int axis = 0; axis < 3; ++axis) {
    const float nearest = std::clamp(eye[axis], box.low[axis], box.high[axis]);
    squared += (eye[axis] - nearest) * (eye[axis] - nearest);
  }
  return std::sqrt(squared);
}

Box tileBox(const TileGrid& tiles, uint32_t column, uint32_t row, float heightBound) {
  const uint32_t cells = tiles.grid - 1;
  const float cell = 2.0f / float(cells);  // the grid spans [-1, 1]
  const uint32_t x0 = column * tiles.tileCells, x1 = std::min(x0 + tiles.tileCells, cells);
  const uint32_t z0 = row * tiles.tileCells, z1 = std::min(z0 + tiles.tileCells, cells);
  return {{-1.0f + float(x0) * cell, -heightBound, -1.0f + float(z0) * cell},
          {-1.0f + float(x1) * cell, heightBound, -1.0f + float(z1) * cell}};
}

// The coarsest level whose vertex spacing spans at most cellPixels pixels at
// `distance`: a spacing of s world units there spans s * pixelsPerRadian /
// distance pixels (the small-angle projection at the view's centre; off
// centre a cell spans more, and at a grazing angle less, so the choice errs
// towards finer where it matters least).
uint8_t levelAtDistance(const TileGrid& tiles, const LodView& view, float distance) {
  const float cellWorld = 2.0f / float(tiles.grid - 1);
  const float finestPixels = cellWorld * view.pixelsPerRadian / std::max(distance, 1e-6f);
  if (finestPixels >= view.cellPixels) return 0;
  const int level = int(std::floor(std::log2(view.cellPixels / finestPixels)));
  return uint8_t(std::clamp(level, 0, int(tiles.levelCount) - 1));
}

}  // namespace

TileGrid makeTileGrid(uint32_t grid) {
  TileGrid tiles;
  tiles.grid = grid;
  const uint32_t cells = grid - 1;
  const uint32_t wanted = (cells + kLodTilesPerSide - 1) / kLodTilesPerSide;
  tiles.tileCells = std::max(kLodMinTileCells, std::bit_ceil(wanted));
  tiles.tilesPerSide = (cells + tiles.tileCells - 1) / tiles.tileCells;
  tiles.lastTileCells = cells - (tiles.tilesPerSide - 1) * tiles.tileCells;
  tiles.levelCount = uint32_t(std::countr_zero(tiles.tileCells)) + 1;
  return tiles;
}

uint32_t patternSlot(const TileGrid& tiles, bool lastColumn, bool lastRow, uint32_t level, uint32_t coarserEdges) {
  const uint32_t shape = (lastColumn ? 1u : 0u) + (lastRow ? 2u : 0u);
  return (shape * tiles.levelCount + level) * kMaskCount + coarserEdges;
}

TilePatterns buildTilePatterns(const TileGrid& tiles) {
  TilePatterns result;
  result.patterns.resize(size_t{4} * tiles.levelCount * kMaskCount);
  for (uint32_t shape = 0; shape < 4; ++shape)
    for (uint32_t level = 0; level < tiles.levelCount; ++level)
      for (uint32_t mask = 0; mask < kMaskCount; ++mask) {
        const bool lastColumn = shape & 1u, lastRow = shape & 2u;
        TilePattern& pattern = result.patterns[patternSlot(tiles, lastColumn, lastRow, level, mask)];
        pattern.firstIndex = uint32_t(result.indices.size());
        appendPattern(tiles, shapeOf(tiles, lastColumn, lastRow), level, mask, result.indices);
        pattern.indexCount = uint32_t(result.indices.size()) - pattern.firstIndex;
      }
  return result;
}

TileChoice chooseTileLevels(const TileGrid& tiles, const LodView& view) {
  const auto planes = frustumPlanes(view.viewProjection);
  TileChoice choice;
  choice.levels.resize(size_t{tiles.tilesPerSide} * tiles.tilesPerSide);
  choice.visible.resize(choice.levels.size());
  for (uint32_t row = 0; row < tiles.tilesPerSide; ++row)
    for (uint32_t column = 0; column < tiles.tilesPerSide; ++column) {
      const Box box = tileBox(tiles, column, row, view.heightBound);
      const size_t tile = size_t{row} * tiles.tilesPerSide + column;
      choice.levels[tile] = levelAtDistance(tiles, view, distanceToBox(box, view.eye));
      choice.visible[tile] = boxInFrustum(box, planes) ? 1 : 0;
    }
  return choice;
}

void limitLevelSteps(const TileGrid& tiles, std::vector<uint8_t>& levels) {
  const uint32_t side = tiles.tilesPerSide;
  // Each pass lowers a tile to one above its finest neighbour; a level can
  // only fall, and by levelCount passes every chain has settled.
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t row = 0; row < side; ++row)
      for (uint32_t column = 0; column < side; ++column) {
        uint8_t& level = levels[size_t{row} * side + column];
        auto limitBy = [&](uint32_t r, uint32_t c) {
          const uint8_t bound = uint8_t(levels[size_t{r} * side + c] + 1);
          if (level > bound) {
            level = bound;
            changed = true;
          }
        };
        if (row > 0) limitBy(row - 1, column);
        if (row + 1 < side) limitBy(row + 1, column);
        if (column > 0) limitBy(row, column - 1);
        if (column + 1 < side) limitBy(row, column + 1);
      }
  }
}

TileDrawPlan planTileDraws(const TileGrid& tiles, const std::vector<TilePattern>& patterns, const LodView& view) {
  TileChoice choice = chooseTileLevels(tiles, view);
  limitLevelSteps(tiles, choice.levels);
  const uint32_t side = tiles.tilesPerSide;
  TileDrawPlan plan;
  plan.levels = std::move(choice.levels);
  plan.minLevel = tiles.levelCount;
  for (uint32_t row = 0; row < side; ++row)
    for (uint32_t column = 0; column < side; ++column) {
      const size_t tile = size_t{row} * side + column;
      if (!choice.visible[tile]) continue;
      const uint8_t level = plan.levels[tile];
      auto coarser = [&](bool exists, uint32_t r, uint32_t c, TileEdge edge) {
        return exists && plan.levels[size_t{r} * side + c] > level ? uint32_t(edge) : 0u;
      };
      const uint32_t mask = coarser(row > 0, row - 1, column, kEdgeLowZ) |
                            coarser(row + 1 < side, row + 1, column, kEdgeHighZ) |
                            coarser(column > 0, row, column - 1, kEdgeLowX) |
                            coarser(column + 1 < side, row, column + 1, kEdgeHighX);
      const uint32_t slot = patternSlot(tiles, column + 1 == side, row + 1 == side, level, mask);
      const int32_t firstVertex = int32_t((row * tiles.grid + column) * tiles.tileCells);
      plan.draws.push_back({slot, firstVertex});
      plan.triangles += patterns[slot].indexCount / 3;
      plan.minLevel = std::min<uint32_t>(plan.minLevel, level);
      plan.maxLevel = std::max<uint32_t>(plan.maxLevel, level);
    }
  plan.tilesDrawn = uint32_t(plan.draws.size());
  if (plan.draws.empty()) plan.minLevel = 0;
  return plan;
}

}  // namespace vksim
