#version 450
// heightFieldVertex (sim/model_math.h): vertex (i, j) of the current field.
#include "compute_common.glsl"

layout(local_size_x = kComputeGroupSize, local_size_y = kComputeGroupSize) in;

void main() {
  const uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;
  if (i >= pc.grid || j >= pc.grid) return;
  const uint field = fieldOffset(pc.currentField);
  const uvec2 alongX = slopeNeighbours(i), alongZ = slopeNeighbours(j);
  precise float slopeX = finiteDifferenceSlope(heights[field + j * pc.grid + alongX.x],
                                               heights[field + j * pc.grid + alongX.y], alongX);
  precise float slopeZ = finiteDifferenceSlope(heights[field + alongZ.x * pc.grid + i],
                                               heights[field + alongZ.y * pc.grid + i], alongZ);
  vertices[j * pc.grid + i] =
      Vertex(vec4(coordinate(i), heights[field + j * pc.grid + i], coordinate(j), 1.0), surfaceNormal(slopeX, slopeZ));
}
