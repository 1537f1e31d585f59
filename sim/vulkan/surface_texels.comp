#version 450
// Level 0 of the surface texture: texel (i, j) is surfaceTexel (sim/model_math.h)
// of vertex (i, j), which the step wrote just before (texture_common.glsl
// says how the bytes equal the CPU reference's). The word is stored through
// an R32_UINT view: a float store through the RGBA8_UNORM format would leave
// the float-to-byte rounding to the implementation, whose rule need not be
// unitToByte's.
#extension GL_GOOGLE_include_directive : require
#include "shared_layout.h"
#include "texture_layout.h"
#include "texture_common.glsl"

layout(local_size_x = kTextureGroupSize, local_size_y = kTextureGroupSize) in;

layout(std430, set = 0, binding = kTextureVertexBinding) readonly buffer Vertices { Vertex vertices[]; };
layout(set = 0, binding = kTextureTargetBinding, r32ui) uniform writeonly uimage2D target;

void main() {
  const ivec2 extent = imageSize(target);  // level 0: grid x grid
  const uint i = gl_GlobalInvocationID.x, j = gl_GlobalInvocationID.y;
  if (i >= uint(extent.x) || j >= uint(extent.y)) return;
  const uint index = j * uint(extent.x) + i;
  const uint packed = surfaceTexelWord(vertices[index].position.y, vertices[index].normal.y);
  imageStore(target, ivec2(i, j), uvec4(packed, 0u, 0u, 0u));
}
