#version 450
// One mip level of the surface texture from the level above: texel (x, y) is
// downsampleTexel (sim/model_math.h) of texels (2x, 2y), (2x+1, 2y),
// (2x, 2y+1), (2x+1, 2y+1), each coordinate clamped to the level above's
// extent, as writeSurfaceTextureMips does (on a square chain the clamp never
// acts: an odd extent's last row and column are not read; sim/model_math.h). Integer arithmetic on the packed words:
// exact, so the bytes equal the CPU reference's.
#extension GL_GOOGLE_include_directive : require
#include "texture_layout.h"
#include "downsample_common.glsl"

layout(local_size_x = kTextureGroupSize, local_size_y = kTextureGroupSize) in;

layout(set = 0, binding = kTextureSourceBinding, r32ui) uniform readonly uimage2D source;
layout(set = 0, binding = kTextureTargetBinding, r32ui) uniform writeonly uimage2D target;

void main() {
  const ivec2 extent = imageSize(target);
  const ivec2 xy = ivec2(gl_GlobalInvocationID.xy);
  if (xy.x >= extent.x || xy.y >= extent.y) return;
  const ivec2 last = imageSize(source) - 1;
  const uvec4 texels = uvec4(imageLoad(source, min(2 * xy, last)).x,
                             imageLoad(source, min(2 * xy + ivec2(1, 0), last)).x,
                             imageLoad(source, min(2 * xy + ivec2(0, 1), last)).x,
                             imageLoad(source, min(2 * xy + ivec2(1, 1), last)).x);
  imageStore(target, xy, uvec4(downsampleWord(texels), 0u, 0u, 0u));
}
