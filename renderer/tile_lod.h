// Level of detail for the grid mesh, drawn from the same shared vertex buffer
// (no copy, no new vertices): the grid's cells are cut into square tiles, and
// each tile is drawn with one of a few index patterns that skip vertices at a
// stride of 1, 2, 4, ... up to the tile's side. The stride is chosen per tile
// and per frame from how far apart the tile's vertices land on screen, so the
// triangle count follows the pixels the mesh covers, not the vertex count.
//
// Seams: neighbouring tiles differ by at most one level, and on an edge whose
// neighbour is coarser the finer tile's edge vertices snap onto the coarser
// tile's (in the index pattern: the same vertex index), so both sides of the
// seam draw the same polyline and no gap opens.
//
// Plain C++ in pipeline order: the tile grid, the patterns (built once per
// grid, uploaded by renderer/mesh_renderer.h), the per-frame plan. No Vulkan.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace vksim {

// How a grid of `grid` x `grid` vertices (row-major: z rows of x, spanning
// [-1, 1]^2 as the simulation writes them) is cut into tiles.
struct TileGrid {
  uint32_t grid = 0;           // vertices per side
  uint32_t tileCells = 0;      // cells per tile side, a power of two
  uint32_t tilesPerSide = 0;   // ceil((grid - 1) / tileCells)
  uint32_t lastTileCells = 0;  // cells per side of the last tile column and row (1..tileCells)
  uint32_t levelCount = 0;     // level l draws every 2^l-th vertex; the last one, one quad per tile
};

// The tiling for `grid` (>= 2): at most kLodTilesPerSide tiles per side, and
// tiles of at least kLodMinTileCells cells (base/config.h says why).
TileGrid makeTileGrid(uint32_t grid);

// The edges of a tile, as bits of a pattern's "coarser neighbour" mask.
enum TileEdge : uint32_t {
  kEdgeLowZ = 1u << 0,   // the edge at the tile's first row (neighbour: the tile row before)
  kEdgeHighZ = 1u << 1,  // the edge at its last row
  kEdgeLowX = 1u << 2,   // the edge at its first column
  kEdgeHighX = 1u << 3,  // the edge at its last column
};

// One pattern's range in TilePatterns::indices.
struct TilePattern {
  uint32_t firstIndex = 0;
  uint32_t indexCount = 0;  // a multiple of 3; degenerate triangles are left out
};

// Every index pattern a frame may draw: for each tile shape (full, or the
// narrower last column and/or row), level and mask of coarser neighbours.
// An index is relative to the tile's first vertex (z * grid + x), so one
// pattern serves every tile of its shape: the draw adds the tile's first
// vertex as its vertex offset. Triangles wind as the full grid's do
// (counter-clockwise seen from +y).
struct TilePatterns {
  std::vector<uint32_t> indices;
  std::vector<TilePattern> patterns;  // indexed by patternSlot
};
TilePatterns buildTilePatterns(const TileGrid& tiles);

// The slot of the pattern for a tile in the last column and/or row, at
// `level`, whose neighbours across the edges in `coarserEdges` (TileEdge
// bits) are one level coarser.
uint32_t patternSlot(const TileGrid& tiles, bool lastColumn, bool lastRow, uint32_t level, uint32_t coarserEdges);

// What the level choice needs of the camera and the view.
struct LodView {
  std::array<float, 3> eye{};               // world space
  std::array<float, 16> viewProjection{};   // column-major, Vulkan clip space (depth 0..1)
  float pixelsPerRadian = 0.0f;             // (viewport height / 2) / tan(fovY / 2)
  float cellPixels = 0.0f;                  // the most pixels a drawn cell may span (base/config.h)
  float heightBound = 0.0f;                 // |y| of every vertex is at most this (world units)
};

// Per tile (row-major, tilesPerSide^2): the coarsest level whose vertex
// spacing, at the distance from the eye to the nearest point of the tile's
// bounding box, spans at most view.cellPixels pixels; and whether any of that
// box is inside the view frustum. Neighbour levels are not yet limited.
struct TileChoice {
  std::vector<uint8_t> levels;
  std::vector<uint8_t> visible;  // 1: drawn, 0: culled
};
TileChoice chooseTileLevels(const TileGrid& tiles, const LodView& view);

// Refines levels (never coarsens) until every two tiles that share an edge
// differ by at most one level. Culled tiles take part, so a visible tile's
// level never depends on what is in view.
void limitLevelSteps(const TileGrid& tiles, std::vector<uint8_t>& levels);

struct TileDraw {
  uint32_t pattern = 0;      // patternSlot
  int32_t vertexOffset = 0;  // the tile's first vertex in the grid
};

// One frame's tiles to draw, and what the overlay and the bench report.
struct TileDrawPlan {
  std::vector<TileDraw> draws;
  std::vector<uint8_t> levels;  // per tile, after limitLevelSteps
  uint32_t minLevel = 0, maxLevel = 0;  // over the drawn tiles (0, 0 when none)
  uint32_t tilesDrawn = 0;
  uint64_t triangles = 0;  // drawn this frame
};

// The frame's plan: levels chosen and limited, culled tiles left out, each
// drawn tile with the pattern that stitches it to its neighbours.
TileDrawPlan planTileDraws(const TileGrid& tiles, const std::vector<TilePattern>& patterns, const LodView& view);

}  // namespace vksim
