#version 450
// The Vulkan backend's ripple step where the device's subgroups allow
// (subgroup_rows.h; ripple_step.comp's tile otherwise): the tile's work in
// the CUDA kernel's warp-rows shape (sim/cuda/cuda_ripple_warp_rows.cuh).
//
// Why this shape: the tile shares its loads across the workgroup through
// shared memory, so every invocation waits at a barrier for the slowest load
// of the workgroup. Here each subgroup shares only within itself, by
// subgroupShuffleUp/Down, so it runs at the pace of its own loads: no shared
// memory, no barrier (with the texture on, the texel tile's barriers come
// only after every strip's loads and stores). On the H200 it takes the CUDA
// kernel's time where the tile took 1.37 times it (docs/queue-backends.md
// has the runs). It differs
// from the tile in more than that: 32 x 24 cells a workgroup where W = 32,
// against 32 x 32; 3 rows a lane against 4; the vertex words moved by
// shuffles rather than read from shared memory; and unlike the CUDA kernel
// its vertex stores carry no evict-first hint, which GLSL cannot express.
// Subgroup s of a workgroup covers the kStripWidth columns i0 .. i0+W-1 of
// R = kRippleRowsPerSubgroup consecutive rows j0 .. j0+R-1 (the workgroup's
// subgroups are stacked: W columns x (kRippleRowsInvocations / W) R rows).
// Each lane keeps its column's window in registers, all of it loaded before
// the first shuffle:
//   current (i, j0-2 .. j0+R+1)  the stencils' centre, below and above
//   previous(i, j0-1 .. j0+R)    for the next heights of rows j0-1 .. j0+R
// and computes next(i, r) for r = j0-1 .. j0+R once; the left and right
// current heights and next heights come from the neighbouring lanes. The
// columns just outside the strip (i0-1 for the first lane, i0+W for the
// last) are the edge lanes' own: they load that column's current heights
// (and the one beyond it, for its next heights) and compute its next heights.
//
// Every value goes through ripple_step.comp's expressions with the same
// operands in the same order (rippleNext below is its next height; the
// slopes and normal are compute_common.glsl's), 0 outside the interior. So
// far that has given the tile's bits (lavapipe with 8 and 16 lanes:
// tests/integration/test_vulkan_step_shapes.cpp; the H200: docs/
// queue-backends.md), but Vulkan does not promise it: a division or a sqrt
// may round differently in another shader, within compute_common.glsl's
// bounds.
//
// Subgroup size: kStripWidth is the host's VkPhysicalDeviceSubgroupProperties
// ::subgroupSize (a specialization constant, so the host's dispatch and the
// shader agree). SPIR-V 1.5 without subgroup size control makes
// gl_SubgroupSize that value, but whole subgroups are not promised without
// VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT: a workgroup
// whose subgroups are not whole runs cellsAlone, the same cells without
// sharing (main says how it knows).
//
// Every shuffle runs with every lane of the subgroup active: a workgroup
// whose strips would reach past the grid's last column runs cellsAlone
// (main), and whole subgroups past the last row skip their strip together,
// before any shuffle (with the texture on they still meet the workgroup's
// barriers after it). Strips that touch no edge of the grid run rows(true,
// ...), where the bounds tests are constants and fold away after inlining.
#extension GL_EXT_control_flow_attributes : require  // [[unroll]]
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require           // the vertex words' transpose
#extension GL_KHR_shader_subgroup_shuffle_relative : require  // the neighbours' heights
#include "compute_common.glsl"

layout(constant_id = 0) const uint kStripWidth = 32u;
// False under VKSIM_STRICT_SUBGROUP_ROWS=1 (a test facility): partial
// subgroups write nothing, so a dump identical to the tile step's shows the
// strips ran.
layout(constant_id = 1) const bool kCellsAlone = true;
layout(local_size_x = kRippleRowsInvocations) in;

const uint kRows = kRippleRowsPerSubgroup;

#ifdef VKSIM_STEP_TEXELS
// With the texture on: texel (i, j) of level 0 from vertex (i, j)'s height
// and normal, as ripple_step.comp computes it, into the workgroup's tile in
// shared memory; then levels 0 .. kStepLevels-1 from there
// (step_texel_levels.glsl). The tile is kStripWidth columns by
// kRippleRowsInvocations / kStripWidth * kRows rows: 768 texels whatever the
// width. Shared memory: level 0's 768 words and level 1's 192, 3,840 bytes a
// workgroup (level 2 reuses level 0's words, level 3 is not kept); the
// strips themselves use none. Kept small: on an H100, one block an SM
// fewer cost cuda-nvx's textured step 0.13 ms at 8192² (docs/benchmarks.md,
// "Why cuda-nvx's cost more, and what changed it").
#include "texture_common.glsl"
const uint kTexelTileWidth = kStripWidth;
const uint kTexelTileRows = (kRippleRowsInvocations / kStripWidth) * kRows;
const uint kTexelInvocations = kRippleRowsInvocations;
const uint kTexelTileWords = kRippleRowsInvocations * kRows;
shared uint texelTile[kTexelTileWords + kTexelTileWords / 4u];
uint texelTileWord(uint index) { return texelTile[index]; }
void setTexelTileWord(uint index, uint word) { texelTile[index] = word; }
#include "step_texel_levels.glsl"
#endif
layout(std430, set = 0, binding = kComputeVertexBinding) writeonly buffer VertexWords { vec4 vertexWords[]; };

// ripple_step.comp's next height of an interior cell: rippleNextFromNeighbours
// (sim/model_math.h) with every result rounded on its own.
float rippleNext(float centre, float left, float right, float down, float up, float previous) {
  precise float lap = ((left + right) + (down + up)) - 4.0 * centre;
  precise float next = ((2.0 * centre - pc.keepPrevious * previous) + pc.courantSquared * lap) * pc.inverseDenominator;
  return next;
}

bool inside(bool interior, int ci, int cj) {
  return interior || (ci > 0 && cj > 0 && ci + 1 < int(pc.grid) && cj + 1 < int(pc.grid));
}

// Current height of cell (ci, cj), 0 outside the grid (never used there).
float currentAt(bool interior, int ci, int cj, uint field) {
  if (!interior && (ci < 0 || cj < 0 || ci >= int(pc.grid) || cj >= int(pc.grid))) return 0.0;
  return heights[field + uint(cj) * pc.grid + uint(ci)];
}

// Only interior cells' previous heights are read: an edge's next height is 0.
float previousAt(bool interior, int ci, int cj, uint field) {
  if (!inside(interior, ci, cj)) return 0.0;
  return heights[field + uint(cj) * pc.grid + uint(ci)];
}

// The subgroup's strip (columns i0 .. i0+kStripWidth-1, rows j0 ..
// j0+kRows-1) and this lane's place in it: placeStrip.
int i0, j0, i;  // i: the lane's column
uint lane;
bool firstLane, lastLane, edgeLane;
int haloColumn, outerColumn;
// The lane's window, all of it loaded before the first shuffle: loadWindow.
float columnCurrent[kRows + 4];   // current(i, j0 - 2 + m)
float columnPrevious[kRows + 2];  // previous(i, j0 - 1 + m)
float haloCurrent[kRows + 2];     // edge lanes: current(haloColumn, j0 - 1 + m)
float outerCurrent[kRows];        // edge lanes: current(outerColumn, j0 + m)
float haloPrevious[kRows];        // edge lanes: previous(haloColumn, j0 + m)
// The coordinates: each row's z, and the x of the vertex behind each of this
// lane's two vertex words (word w of a row is vertex w / 2's position or normal).
float rowZ[kRows];
float wordX[2];
// The next heights: nextHeights.
float columnNext[kRows + 2];  // next(i, j0 - 1 + m)
float haloNext[kRows];        // edge lanes: next(haloColumn, j0 + m)

void placeStrip(int stripI0, int stripJ0) {
  i0 = stripI0;
  j0 = stripJ0;
  lane = gl_SubgroupInvocationID;
  i = i0 + int(lane);
  firstLane = lane == 0u;
  lastLane = lane == kStripWidth - 1u;
  edgeLane = firstLane || lastLane;
  haloColumn = firstLane ? i0 - 1 : i0 + int(kStripWidth);
  outerColumn = firstLane ? i0 - 2 : i0 + int(kStripWidth) + 1;
}

void loadWindow(bool interior) {
  const int n = int(pc.grid);
  const uint current = fieldOffset(pc.currentField), previous = fieldOffset(pc.previousField);
  [[unroll]] for (uint m = 0u; m < kRows + 4u; ++m) columnCurrent[m] = currentAt(interior, i, j0 - 2 + int(m), current);
  [[unroll]] for (uint m = 0u; m < kRows + 2u; ++m) {
    columnPrevious[m] = previousAt(interior, i, j0 - 1 + int(m), previous);
    haloCurrent[m] = edgeLane ? currentAt(interior, haloColumn, j0 - 1 + int(m), current) : 0.0;
  }
  [[unroll]] for (uint m = 0u; m < kRows; ++m) {
    const bool haloInterior = edgeLane && inside(interior, haloColumn, j0 + int(m));
    outerCurrent[m] = haloInterior ? currentAt(interior, outerColumn, j0 + int(m), current) : 0.0;
    haloPrevious[m] = haloInterior ? previousAt(interior, haloColumn, j0 + int(m), previous) : 0.0;
    rowZ[m] = coordinate(uint(min(j0 + int(m), n - 1)));
  }
  [[unroll]] for (uint h = 0u; h < 2u; ++h)
    wordX[h] = coordinate(uint(i0) + (lane + h * kStripWidth) / 2u);
}

// The lane's column's next heights, rows j0-1 .. j0+kRows, the left and
// right current heights from the neighbouring lanes; the edge lanes' halo
// column's, rows j0 .. j0+kRows-1 (the lane's own current height is the
// halo's inner neighbour).
void nextHeights(bool interior) {
  [[unroll]] for (uint m = 0u; m < kRows + 2u; ++m) {
    const float centre = columnCurrent[m + 1u];
    float left = subgroupShuffleUp(centre, 1u);
    float right = subgroupShuffleDown(centre, 1u);
    if (firstLane) left = haloCurrent[m];
    if (lastLane) right = haloCurrent[m];
    columnNext[m] = inside(interior, i, j0 - 1 + int(m))
                        ? rippleNext(centre, left, right, columnCurrent[m], columnCurrent[m + 2u], columnPrevious[m])
                        : 0.0;
  }
  [[unroll]] for (uint m = 0u; m < kRows; ++m) {
    haloNext[m] = 0.0;
    if (edgeLane && inside(interior, haloColumn, j0 + int(m))) {
      const float inner = columnCurrent[m + 2u], outer = outerCurrent[m];
      haloNext[m] = rippleNext(haloCurrent[m + 1u], firstLane ? outer : inner, firstLane ? inner : outer,
                               haloCurrent[m], haloCurrent[m + 2u], haloPrevious[m]);
    }
  }
}

// Row m's vertices as consecutive vec4 words, as ripple_step.comp stores
// them: word w = lane + h W comes from lane w / 2 (a transpose by shuffle
// where the CUDA kernel stages through shared memory), so each store of the
// subgroup covers W consecutive words.
void storeVertexWords(uint m, float height, vec4 normal) {
  const uint j = uint(j0) + m;
  [[unroll]] for (uint h = 0u; h < 2u; ++h) {
    const uint w = lane + h * kStripWidth, source = w / 2u;
    const float wordHeight = subgroupShuffle(height, source);
    const vec3 wordNormal = vec3(subgroupShuffle(normal.x, source), subgroupShuffle(normal.y, source),
                                 subgroupShuffle(normal.z, source));
    vertexWords[2u * (j * pc.grid + uint(i0)) + w] =
        (w & 1u) == 0u ? vec4(wordX[h], wordHeight, rowZ[m], 1.0) : vec4(wordNormal, 0.0);
  }
}

// The strip's next heights and vertices (and level-0 texels), row by row;
// the left and right next heights of the slopes from the neighbouring lanes.
void storeRows(bool interior) {
  const uint next = fieldOffset(pc.nextField);
  const uint column = uint(i);
  // In the interior every slope is central: the pair slopeNeighbours gives.
  const uvec2 alongX = interior ? uvec2(column - 1u, column + 1u) : slopeNeighbours(column);
  [[unroll]] for (uint m = 0u; m < kRows; ++m) {
    const uint j = uint(j0) + m;
    if (!interior && j >= pc.grid) break;  // the same row for every lane of the subgroup
    const float height = columnNext[m + 1u];
    heights[next + j * pc.grid + column] = height;
    const float fromLeft = subgroupShuffleUp(height, 1u);
    const float fromRight = subgroupShuffleDown(height, 1u);
    const uvec2 alongZ = interior ? uvec2(j - 1u, j + 1u) : slopeNeighbours(j);
    // ripple_step.comp's slopes over the next field: a neighbour that is the
    // cell itself (at an edge) is its own height.
    const float lowerX = (!interior && alongX.x == column) ? height : (firstLane ? haloNext[m] : fromLeft);
    const float upperX = (!interior && alongX.y == column) ? height : (lastLane ? haloNext[m] : fromRight);
    const float lowerZ = (!interior && alongZ.x == j) ? height : columnNext[m];
    const float upperZ = (!interior && alongZ.y == j) ? height : columnNext[m + 2u];
    precise float slopeX = finiteDifferenceSlope(lowerX, upperX, alongX);
    precise float slopeZ = finiteDifferenceSlope(lowerZ, upperZ, alongZ);
    const vec4 normal = surfaceNormal(slopeX, slopeZ);
#ifdef VKSIM_STEP_TEXELS
    // The strip's rows are the tile's rows gl_SubgroupID * kRows ..: the
    // lane's column is tile column `lane`.
    texelTile[(gl_SubgroupID * kRows + m) * kStripWidth + lane] = surfaceTexelWord(height, normal.y);
#endif
    storeVertexWords(m, height, normal);
  }
}

// The strip from (stripI0, stripJ0), through the interior body when the whole
// strip is interior.
void rows(const bool interior, int stripI0, int stripJ0) {
  placeStrip(stripI0, stripJ0);
  loadWindow(interior);
  nextHeights(interior);
  storeRows(interior);
}

// Next height of cell (ci, cj) from memory alone: ripple_step.comp's value.
float nextAt(int ci, int cj) {
  if (!inside(false, ci, cj)) return 0.0;
  const uint current = fieldOffset(pc.currentField);
  return rippleNext(currentAt(false, ci, cj, current), currentAt(false, ci - 1, cj, current),
                    currentAt(false, ci + 1, cj, current), currentAt(false, ci, cj - 1, current),
                    currentAt(false, ci, cj + 1, current), previousAt(false, ci, cj, fieldOffset(pc.previousField)));
}

// Partial subgroups (the strips would miss columns): each invocation
// computes kRows cells of the workgroup's tile on its own, every height from
// memory, no shuffle. Slow, but the same bits.
void cellsAlone() {
  const uint next = fieldOffset(pc.nextField);
  const uvec2 corner = gl_WorkGroupID.xy * uvec2(kStripWidth, (kRippleRowsInvocations / kStripWidth) * kRows);
  for (uint k = 0u; k < kRows; ++k) {
    const uint t = gl_LocalInvocationIndex + k * kRippleRowsInvocations;
    const uint ci = corner.x + t % kStripWidth, j = corner.y + t / kStripWidth;
    if (ci >= pc.grid || j >= pc.grid) continue;
    const float height = nextAt(int(ci), int(j));
    heights[next + j * pc.grid + ci] = height;
    // ripple_step.comp's slopes: a neighbour that is the cell itself is its own height.
    const uvec2 alongX = slopeNeighbours(ci), alongZ = slopeNeighbours(j);
    precise float slopeX = finiteDifferenceSlope(nextAt(int(alongX.x), int(j)), nextAt(int(alongX.y), int(j)), alongX);
    precise float slopeZ =
        finiteDifferenceSlope(nextAt(int(ci), int(alongZ.x)), nextAt(int(ci), int(alongZ.y)), alongZ);
    const vec4 normal = surfaceNormal(slopeX, slopeZ);
#ifdef VKSIM_STEP_TEXELS
    texelTile[t] = surfaceTexelWord(height, normal.y);  // the tile's cell t, row by row
#endif
    vertexWords[2u * (j * pc.grid + ci)] = vec4(coordinate(ci), height, coordinate(j), 1.0);
    vertexWords[2u * (j * pc.grid + ci) + 1u] = normal;
  }
}

// The workgroup's cells, by strips where they can be, else cellsAlone.
void cells() {
  // The strips need whole subgroups of kStripWidth lanes: then the
  // workgroup holds exactly kRippleRowsInvocations / kStripWidth of them, and
  // (gl_SubgroupID, gl_SubgroupInvocationID) names every strip and column
  // once. lavapipe with 1024-bit vectors reports 32-lane subgroups but runs
  // 16 subgroups of 16 active lanes here. The same for every invocation.
  if (gl_SubgroupSize != kStripWidth || gl_NumSubgroups != kRippleRowsInvocations / kStripWidth) {
    cellsAlone();
    return;
  }
  const uint subgroups = kRippleRowsInvocations / kStripWidth;
  const int i0 = int(gl_WorkGroupID.x * kStripWidth);
  const int j0 = int((gl_WorkGroupID.y * subgroups + gl_SubgroupID) * kRows);
  const int n = int(pc.grid);
  // A strip that would reach past the grid's last column: its workgroup's
  // cells one by one, with no shuffle (the same for every invocation of the
  // workgroup, so decided before any of them leaves). Its lanes past the
  // edge would store nothing, and a store that only some lanes make is
  // control flow after which Vulkan does not promise the lanes run together
  // again for the next shuffle (that takes VK_KHR_shader_maximal_reconvergence).
  if (i0 + int(kStripWidth) > n) {
    cellsAlone();
    return;
  }
  if (j0 >= n) return;  // the whole subgroup skips its strip together, before any shuffle
  // Every cell whose next height the strip computes (columns i0-1 .. i0+W,
  // rows j0-1 .. j0+kRows) interior, every load in the grid: the same for
  // every lane.
  if (i0 >= 2 && i0 + int(kStripWidth) + 2 <= n && j0 >= 2 && j0 + int(kRows) + 2 <= n)
    rows(true, i0, j0);
  else
    rows(false, i0, j0);
}

void main() {
  // Strict (a test facility): a workgroup of partial subgroups writes
  // nothing, texels included. The same for every invocation of the
  // workgroup, so no barrier is skipped by some and met by others.
  const bool whole = gl_SubgroupSize == kStripWidth && gl_NumSubgroups == kRippleRowsInvocations / kStripWidth;
  if (!whole && !kCellsAlone) return;
  cells();
#ifdef VKSIM_STEP_TEXELS
  storeStepLevels();  // every invocation, after its cells: cells() returns, it never leaves the shader
#endif
}
