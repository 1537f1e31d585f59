#version 450
// The Vulkan backend's ripple step as tiles, where the device's subgroups do
// not allow ripple_step_rows.comp or VKSIM_VULKAN_TILE_STEP=1 asks for it
// (subgroup_rows.h). The whole ripple step in one pass, as the CUDA kernel
// does it: the next heights (rippleNextHeight, sim/model_math.h) of the
// workgroup's tile and of a one-cell ring around it, then each cell's vertex
// (heightFieldVertex) from those next heights. The ring's next heights are also computed by the
// neighbouring workgroups, from the same values with the same expression, so
// every copy has the same bits; only the workgroup's own cells are stored.
// (ripple_vertices.comp, which makes the vertices of a field already in
// memory, serves the initial state.)
//
// The shape, for speed (H200 run 22, texture off: 0.272 / 1.049 ms a step
// at grids 4096 / 8192 against 0.335 / 1.307 for the 16 x 16 tile it
// replaced; docs/results/2026-12-05-h200-run22.md): the step is bound by
// memory, and a memory-bound kernel runs at the speed of the bytes it keeps
// in flight, so every height the tile needs, current and previous, is
// loaded before the first barrier, several an invocation. The
// tile is 32 columns by 32 rows, each invocation one column of 4 rows, which
// keeps the rings that neighbouring tiles load too small: the current
// heights' two-cell ring is 272 cells of 1024 (144 of 256 in a 16 x 16 tile),
// the next heights' one-cell ring 132. Each row's vertices are stored as
// consecutive vec4s.
#extension GL_EXT_control_flow_attributes : require  // [[unroll]]
#include "compute_common.glsl"

layout(local_size_x = kRippleStepColumns, local_size_y = kRippleStepThreadRows) in;

const uint kThreads = kRippleStepColumns * kRippleStepThreadRows;
const uint kTileRows = kRippleStepThreadRows * kRippleStepRowsPerThread;
// Next heights: the tile and its ring. Current heights: the ring's stencils too.
const uint kNextWidth = kRippleStepColumns + 2u, kNextCount = kNextWidth * (kTileRows + 2u);
const uint kCurrentWidth = kRippleStepColumns + 4u, kCurrentCount = kCurrentWidth * (kTileRows + 4u);
const uint kCurrentLoads = (kCurrentCount + kThreads - 1u) / kThreads;
const uint kNextCells = (kNextCount + kThreads - 1u) / kThreads;

// The current heights' bits (floatBitsToUint: a move, no rounding), as
// words so that the texels below can take the same shared memory.
shared uint currentTile[kCurrentCount];
shared float nextTile[kNextCount];

#ifdef VKSIM_STEP_TEXELS
// The Vulkan backend's step with the texture on: texel (i, j) of level 0 from
// vertex (i, j)'s height and normal while they are still in registers
// (surface_texels.comp's word), into the workgroup's tile in shared memory;
// then levels 0 .. kStepLevels-1 from there (step_texel_levels.glsl), so the
// vertices are not read back, nor level 0 for level 1. The texel tile (level
// 0's 1,024 words, level 1's 256 after them) takes currentTile's words,
// whose last readers are done at the barrier before the vertices: shared
// memory stays the tile's 9,808 bytes (currentTile 5,184, nextTile 4,624).
#include "texture_common.glsl"
const uint kTexelTileWidth = kRippleStepColumns;
const uint kTexelTileRows = kTileRows;
const uint kTexelInvocations = kThreads;
// An array of negative size, a compile error, unless the texels fit.
const uint kTexelsFit[kCurrentCount >= kRippleStepColumns * kTileRows * 5u / 4u ? 1 : -1] = uint[](0u);
uint texelTileWord(uint index) { return currentTile[index]; }
void setTexelTileWord(uint index, uint word) { currentTile[index] = word; }
#include "step_texel_levels.glsl"
#endif
layout(std430, set = 0, binding = kComputeVertexBinding) writeonly buffer VertexWords { vec4 vertexWords[]; };

// Current height of cell (ci, cj), 0 outside the grid (never used there).
float currentAt(int ci, int cj, uint field) {
  if (ci < 0 || cj < 0 || ci >= int(pc.grid) || cj >= int(pc.grid)) return 0.0;
  return heights[field + uint(cj) * pc.grid + uint(ci)];
}

bool interior(int ci, int cj) { return ci > 0 && cj > 0 && ci + 1 < int(pc.grid) && cj + 1 < int(pc.grid); }

// The cell of nextTile entry t: (ci, cj) in the grid.
ivec2 nextCell(uint t, ivec2 corner) { return corner - 1 + ivec2(t % kNextWidth, t / kNextWidth); }

void main() {
  const uint local = gl_LocalInvocationIndex;
  const ivec2 corner = ivec2(gl_WorkGroupID.xy * uvec2(kRippleStepColumns, kTileRows));
  const uint current = fieldOffset(pc.currentField), previous = fieldOffset(pc.previousField);
  // Every load first: the current heights into shared memory, the previous
  // heights of the cells this invocation computes into registers.
  [[unroll]] for (uint k = 0u; k < kCurrentLoads; ++k) {
    const uint t = local + k * kThreads;
    if (t < kCurrentCount)
      currentTile[t] =
          floatBitsToUint(currentAt(corner.x - 2 + int(t % kCurrentWidth), corner.y - 2 + int(t / kCurrentWidth), current));
  }
  float previousHeights[kNextCells];
  [[unroll]] for (uint k = 0u; k < kNextCells; ++k) {
    const uint t = local + k * kThreads;
    const ivec2 cell = nextCell(t, corner);
    previousHeights[k] =
        t < kNextCount && interior(cell.x, cell.y) ? heights[previous + uint(cell.y) * pc.grid + uint(cell.x)] : 0.0;
  }
  barrier();

  // Next heights of the tile and its ring: rippleNextHeight's expression.
  [[unroll]] for (uint k = 0u; k < kNextCells; ++k) {
    const uint t = local + k * kThreads;
    if (t >= kNextCount) break;
    const ivec2 cell = nextCell(t, corner);
    precise float next = 0.0;
    if (interior(cell.x, cell.y)) {
      const uint c = (t / kNextWidth + 1u) * kCurrentWidth + (t % kNextWidth + 1u);
      const float centre = uintBitsToFloat(currentTile[c]);
      precise float lap = ((uintBitsToFloat(currentTile[c - 1u]) + uintBitsToFloat(currentTile[c + 1u])) +
                           (uintBitsToFloat(currentTile[c - kCurrentWidth]) +
                            uintBitsToFloat(currentTile[c + kCurrentWidth]))) -
                          4.0 * centre;
      next = ((2.0 * centre - pc.keepPrevious * previousHeights[k]) + pc.courantSquared * lap) * pc.inverseDenominator;
    }
    nextTile[t] = next;
  }
  barrier();

  const uint next = fieldOffset(pc.nextField);
  // The next heights, one column an invocation.
  const uint i = gl_GlobalInvocationID.x;
  [[unroll]] for (uint r = 0u; r < kRippleStepRowsPerThread; ++r) {
    const uint row = gl_LocalInvocationID.y + r * kRippleStepThreadRows;
    const uint j = uint(corner.y) + row;
    if (i < pc.grid && j < pc.grid) heights[next + j * pc.grid + i] = nextTile[(row + 1u) * kNextWidth + gl_LocalInvocationID.x + 1u];
  }
  // The vertices, as the row's consecutive vec4s: word w of a row is vertex
  // w / 2's position (w even) or normal (w odd), so a 32-wide subgroup's store
  // is 512 consecutive bytes.
  const uint count = 2u * min(kRippleStepColumns, pc.grid - uint(corner.x));
  [[unroll]] for (uint r = 0u; r < kRippleStepRowsPerThread; ++r) {
    const uint row = gl_LocalInvocationID.y + r * kRippleStepThreadRows;
    const uint j = uint(corner.y) + row;
    if (j >= pc.grid) break;
    const uint y = row + 1u;  // in nextTile
    [[unroll]] for (uint h = 0u; h < 2u; ++h) {
      const uint w = gl_LocalInvocationID.x + h * kRippleStepColumns;
      if (w >= count) break;
      const uint v = w / 2u, ci = uint(corner.x) + v, x = v + 1u;
      const float height = nextTile[y * kNextWidth + x];
      vec4 word;
      if ((w & 1u) == 0u) {
        word = vec4(coordinate(ci), height, coordinate(j), 1.0);
      } else {
        // ripple_vertices.comp's slopes over the next field: a neighbour that
        // is the cell itself (at an edge) is its own height.
        const uvec2 alongX = slopeNeighbours(ci), alongZ = slopeNeighbours(j);
        const float lowerX = nextTile[y * kNextWidth + (x + alongX.x - ci)];
        const float upperX = nextTile[y * kNextWidth + (x + alongX.y - ci)];
        const float lowerZ = nextTile[(y + alongZ.x - j) * kNextWidth + x];
        const float upperZ = nextTile[(y + alongZ.y - j) * kNextWidth + x];
        precise float slopeX = finiteDifferenceSlope(lowerX, upperX, alongX);
        precise float slopeZ = finiteDifferenceSlope(lowerZ, upperZ, alongZ);
        word = surfaceNormal(slopeX, slopeZ);
#ifdef VKSIM_STEP_TEXELS
        setTexelTileWord(row * kRippleStepColumns + v, surfaceTexelWord(height, word.y));
#endif
      }
      vertexWords[2u * (j * pc.grid + uint(corner.x)) + w] = word;
    }
  }
#ifdef VKSIM_STEP_TEXELS
  storeStepLevels();  // every invocation: main has no early return
#endif
}
