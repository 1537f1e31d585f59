#version 450
// sinewaveVertex (sim/model_math.h) for one vertex. The per-column sin and
// per-row cos factors come from the host (table[grid ..] and table[2*grid ..]),
// computed there by the CPU reference's own sinewaveFactorX/Z: Vulkan bounds
// sin and cos only to an absolute 2^-11 inside [-pi, pi], far from the
// reference's 1 ulp, and the arguments grow with time.
#include "compute_common.glsl"

layout(local_size_x = kComputeGroupSize, local_size_y = kComputeGroupSize) in;

float factorX(uint i) { return table[pc.grid + i]; }
float factorZ(uint j) { return table[2u * pc.grid + j]; }
float sinewaveHeight(float fx, float fz) {
  precise float height = pc.amplitude * fx * fz;
  return height;
}

void main() {
  const uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;
  if (i >= pc.grid || j >= pc.grid) return;
  const uvec2 alongX = slopeNeighbours(i), alongZ = slopeNeighbours(j);
  const float fx = factorX(i), fz = factorZ(j);
  precise float height = sinewaveHeight(fx, fz);
  precise float slopeX = finiteDifferenceSlope(sinewaveHeight(factorX(alongX.x), fz),
                                               sinewaveHeight(factorX(alongX.y), fz), alongX);
  precise float slopeZ = finiteDifferenceSlope(sinewaveHeight(fx, factorZ(alongZ.x)),
                                               sinewaveHeight(fx, factorZ(alongZ.y)), alongZ);
  vertices[j * pc.grid + i] = Vertex(vec4(coordinate(i), height, coordinate(j), 1.0), surfaceNormal(slopeX, slopeZ));
}
