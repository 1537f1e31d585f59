#version 450
// rippleNextHeight (sim/model_math.h) for one cell: the leapfrog step from
// the current field and the cell's own previous height into the next field.
#include "compute_common.glsl"

void main() {
  const uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;
  if (i >= pc.grid || j >= pc.grid) return;
  const uint cell = j * pc.grid + i;
  const uint current = fieldOffset(pc.currentField);
  precise float next = 0.0;
  if (isInteriorCell(i, j)) {
    const float centre = heights[current + cell];
    precise float lap = ((heights[current + cell - 1u] + heights[current + cell + 1u]) +
                         (heights[current + cell - pc.grid] + heights[current + cell + pc.grid])) -
                        4.0 * centre;
    const float previous = heights[fieldOffset(pc.previousField) + cell];
    next = ((2.0 * centre - pc.keepPrevious * previous) + pc.courantSquared * lap) * pc.inverseDenominator;
  }
  heights[fieldOffset(pc.nextField) + cell] = next;
}
