#version 450
// The whole ripple step in one pass, as the CUDA kernel does it: the next
// heights (rippleNextHeight, sim/model_math.h) of the workgroup's 16 x 16
// cells and of a one-cell ring around them, then each cell's vertex
// (heightFieldVertex) from those next heights. The ring's next heights are
// also computed by the neighbouring workgroups, from the same values with
// the same expression, so every copy has the same bits; only the workgroup's
// own cells are stored. (ripple_vertices.comp, which makes the vertices of a
// field already in memory, serves the initial state.) The same step in two
// dispatches, the next field going through memory between them, wrote the
// same bytes and took 13 % longer on the H200
// (docs/results/2026-12-04-texture-in-step.md).
#include "compute_common.glsl"

#ifdef VKSIM_STEP_TEXELS
// The Vulkan backend's step with the texture on: texel (i, j) of level 0 from
// vertex (i, j)'s height and normal while they are still in registers, so the
// vertices are not read back (surface_texels.comp's word, stored the same
// way; the levels below are the writer's, surface_texture_writer.h).
#include "texture_common.glsl"
layout(set = kComputeTexelSet, binding = 0, r32ui) uniform writeonly uimage2D level0;
#endif

const uint kTile = kComputeGroupSize;
const uint kNextSide = kTile + 2u;     // next heights: the tile and its ring
const uint kCurrentSide = kTile + 4u;  // current heights: the ring's stencils too

shared float currentTile[kCurrentSide * kCurrentSide];
shared float nextTile[kNextSide * kNextSide];

// Current height of cell (ci, cj), 0 outside the grid (never used there).
float currentAt(int ci, int cj, uint field) {
  if (ci < 0 || cj < 0 || ci >= int(pc.grid) || cj >= int(pc.grid)) return 0.0;
  return heights[field + uint(cj) * pc.grid + uint(ci)];
}

void main() {
  const uint local = gl_LocalInvocationIndex;
  const int i0 = int(gl_WorkGroupID.x * kTile), j0 = int(gl_WorkGroupID.y * kTile);
  const uint current = fieldOffset(pc.currentField);
  for (uint t = local; t < kCurrentSide * kCurrentSide; t += kTile * kTile)
    currentTile[t] = currentAt(i0 - 2 + int(t % kCurrentSide), j0 - 2 + int(t / kCurrentSide), current);
  barrier();

  // Next heights of the tile and its ring: rippleNextHeight's expression.
  for (uint t = local; t < kNextSide * kNextSide; t += kTile * kTile) {
    const uint x = t % kNextSide, y = t / kNextSide;
    const int ci = i0 - 1 + int(x), cj = j0 - 1 + int(y);
    precise float next = 0.0;
    if (ci > 0 && cj > 0 && ci + 1 < int(pc.grid) && cj + 1 < int(pc.grid)) {
      const uint c = (y + 1u) * kCurrentSide + (x + 1u);
      const float centre = currentTile[c];
      precise float lap = ((currentTile[c - 1u] + currentTile[c + 1u]) +
                           (currentTile[c - kCurrentSide] + currentTile[c + kCurrentSide])) -
                          4.0 * centre;
      const float previous = heights[fieldOffset(pc.previousField) + uint(cj) * pc.grid + uint(ci)];
      next = ((2.0 * centre - pc.keepPrevious * previous) + pc.courantSquared * lap) * pc.inverseDenominator;
    }
    nextTile[t] = next;
  }
  barrier();

  const uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;
  if (i >= pc.grid || j >= pc.grid) return;
  const uint x = gl_LocalInvocationID.x + 1u, y = gl_LocalInvocationID.y + 1u;  // in nextTile
  const float height = nextTile[y * kNextSide + x];
  heights[fieldOffset(pc.nextField) + j * pc.grid + i] = height;
  // ripple_vertices.comp's slopes over the next field: a neighbour that is
  // the cell itself (at an edge) is its own height.
  const uvec2 alongX = slopeNeighbours(i), alongZ = slopeNeighbours(j);
  const float lowerX = nextTile[y * kNextSide + (x + alongX.x - i)];
  const float upperX = nextTile[y * kNextSide + (x + alongX.y - i)];
  const float lowerZ = nextTile[(y + alongZ.x - j) * kNextSide + x];
  const float upperZ = nextTile[(y + alongZ.y - j) * kNextSide + x];
  precise float slopeX = finiteDifferenceSlope(lowerX, upperX, alongX);
  precise float slopeZ = finiteDifferenceSlope(lowerZ, upperZ, alongZ);
  const vec4 normal = surfaceNormal(slopeX, slopeZ);
  vertices[j * pc.grid + i] = Vertex(vec4(coordinate(i), height, coordinate(j), 1.0), normal);
#ifdef VKSIM_STEP_TEXELS
  imageStore(level0, ivec2(i, j), uvec4(surfaceTexelWord(height, normal.y), 0u, 0u, 0u));
#endif
}
