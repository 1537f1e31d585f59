// What every compute shader of the Vulkan backend shares: the bindings, the
// push constants and the per-cell arithmetic of sim/model_math.h, in the same
// operations and the same order. Every result that reaches memory is declared
// `precise`: no operation that contributes to it may be contracted into a
// fused multiply-add (SPIR-V NoContraction), since the CPU reference rounds
// every product and sum on its own. Vulkan rounds +, - and * correctly; a
// division may be off by 2.5 ULP and sqrt inherits 1/inversesqrt's error
// (docs/queue-backends.md derives the bounds that follow from this).
#extension GL_GOOGLE_include_directive : require
#include "compute_layout.h"
#include "shared_layout.h"

layout(std430, set = 0, binding = kComputeVertexBinding) writeonly buffer Vertices { Vertex vertices[]; };
layout(std430, set = 0, binding = kComputeHeightBinding) buffer Heights { float heights[]; };
layout(std430, set = 0, binding = kComputeTableBinding) readonly buffer Table { float table[]; };
struct DropEntry {
  vec4 shape;   // x, z, amplitude, 1/(2 sigma^2)
  uvec4 cells;  // footprint: firstI, endI, firstJ, endJ
};
layout(std430, set = 0, binding = kComputeDropBinding) readonly buffer Drops { DropEntry drops[]; };

// The block's one member is compute_layout.h's struct, as the mesh shaders
// take MeshPushConstants: one declaration for C++ and GLSL.
layout(push_constant) uniform PushConstants { ComputePushConstants pc; };

// gridCoordinate(i, grid), computed on the host (a division here could be
// 2.5 ULP off): table[0 .. grid-1].
float coordinate(uint index) { return table[index]; }

uvec2 slopeNeighbours(uint index) {
  return uvec2(index > 0u ? index - 1u : index, index + 1u < pc.grid ? index + 1u : index);
}

float finiteDifferenceSlope(float lowerHeight, float upperHeight, uvec2 pair) {
  precise float slope = (upperHeight - lowerHeight) / (float(pair.y - pair.x) * pc.spacing);
  return slope;
}

vec4 surfaceNormal(float slopeX, float slopeZ) {
  precise float inverseLength = 1.0 / sqrt((slopeX * slopeX + slopeZ * slopeZ) + 1.0);
  precise vec4 normal = vec4(-slopeX * inverseLength, inverseLength, -slopeZ * inverseLength, 0.0);
  return normal;
}

uint fieldOffset(uint field) { return field * pc.grid * pc.grid; }

bool isInteriorCell(uint i, uint j) { return i > 0u && j > 0u && i + 1u < pc.grid && j + 1u < pc.grid; }
