#version 450
// addDropsKernel / RippleModel::applyDrop: the step's drops, in order, added
// to the current and previous field of every interior cell.
#include "compute_common.glsl"

void main() {
  const uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;
  if (i >= pc.grid || j >= pc.grid || !isInteriorCell(i, j)) return;
  const float x = coordinate(i), z = coordinate(j);
  const uint cell = j * pc.grid + i;
  precise float current = heights[fieldOffset(pc.currentField) + cell];
  precise float previous = heights[fieldOffset(pc.previousField) + cell];
  for (uint d = 0u; d < pc.dropCount; ++d) {
    const vec4 drop = drops[d];
    precise float dx = x - drop.x;
    precise float dz = z - drop.y;
    precise float height = drop.z * exp(-((dx * dx + dz * dz) * drop.w));
    current += height;
    previous += height;
  }
  heights[fieldOffset(pc.currentField) + cell] = current;
  heights[fieldOffset(pc.previousField) + cell] = previous;
}
