#version 450
// Level 0 of the surface texture: texel (i, j) is surfaceTexel (sim/model_math.h)
// of vertex (i, j), which the step wrote just before. The same operations in
// the same order as the CPU reference, every rounded result `precise` (no
// fused multiply-add), so the same vertex gives the same bytes. The four
// bytes are packed here and stored as one R32_UINT word: a float store
// through the RGBA8_UNORM format would leave the float-to-byte rounding to
// the implementation, whose rule need not be unitToByte's.
#extension GL_GOOGLE_include_directive : require
#include "shared_layout.h"
#include "texture_layout.h"

layout(local_size_x = kTextureGroupSize, local_size_y = kTextureGroupSize) in;

layout(std430, set = 0, binding = kTextureVertexBinding) readonly buffer Vertices { Vertex vertices[]; };
layout(set = 0, binding = kTextureTargetBinding, r32ui) uniform writeonly uimage2D target;

// sim/model_math.h's kTextureHeightScale and kTextureFoamScale.
const float kHeightScale = 6.0;
const float kFoamScale = 25.0;

// clampToUnit's host form (comparisons, NaN -> 0), which is what the CPU
// reference runs.
float clampToUnit(float value) { return value > 0.0 ? (value < 1.0 ? value : 1.0) : 0.0; }

// unitToByte: truncation of value * 255 + 0.5, both rounded on their own.
uint unitToByte(float value) {
  precise float scaled = clampToUnit(value) * 255.0 + 0.5;
  return uint(scaled);
}

// surfaceTexel's mix towards foam of one channel.
uint foamChannel(float base, float foam) {
  precise float mixed = base + (1.0 - base) * foam;
  return unitToByte(mixed);
}

void main() {
  const ivec2 extent = imageSize(target);  // level 0: grid x grid
  const uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;
  if (i >= uint(extent.x) || j >= uint(extent.y)) return;
  const Vertex vertex = vertices[j * uint(extent.x) + i];
  precise float heightShade = vertex.position.y * kHeightScale + 0.5;
  precise float slopeShade = (1.0 - vertex.normal.y) * kFoamScale;
  const float depth = clampToUnit(heightShade);
  const float foam = clampToUnit(slopeShade);
  precise float red = 0.05 + 0.30 * depth;
  precise float green = 0.22 + 0.53 * depth;
  precise float blue = 0.45 + 0.50 * depth;
  const uint packed = foamChannel(red, foam) | (foamChannel(green, foam) << 8) | (foamChannel(blue, foam) << 16) |
                      (255u << 24);
  imageStore(target, ivec2(i, j), uvec4(packed, 0u, 0u, 0u));
}
