#version 450
// addDropsKernel / RippleModel::applyDrop: the step's drops, in order, added
// to the current and previous field of each cell of their footprints. The
// dispatch covers the union of the footprints: invocation (0, 0) is cell
// (cellsFirstI, cellsFirstJ).
#include "compute_common.glsl"

layout(local_size_x = kComputeGroupSize, local_size_y = kComputeGroupSize) in;

bool inCells(uvec4 cells, uint i, uint j) { return i >= cells.x && i < cells.y && j >= cells.z && j < cells.w; }

void main() {
  const uint i = pc.cellsFirstI + gl_GlobalInvocationID.x, j = pc.cellsFirstJ + gl_GlobalInvocationID.y;
  if (!inCells(uvec4(pc.cellsFirstI, pc.cellsEndI, pc.cellsFirstJ, pc.cellsEndJ), i, j)) return;
  const float x = coordinate(i), z = coordinate(j);
  const uint cell = j * pc.grid + i;
  precise float current = heights[fieldOffset(pc.currentField) + cell];
  precise float previous = heights[fieldOffset(pc.previousField) + cell];
  for (uint d = 0u; d < pc.dropCount; ++d) {
    if (!inCells(drops[d].cells, i, j)) continue;
    const vec4 drop = drops[d].shape;
    precise float dx = x - drop.x;
    precise float dz = z - drop.y;
    precise float height = drop.z * exp(-((dx * dx + dz * dz) * drop.w));
    current += height;
    previous += height;
  }
  heights[fieldOffset(pc.currentField) + cell] = current;
  heights[fieldOffset(pc.previousField) + cell] = previous;
}
