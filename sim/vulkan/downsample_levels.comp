#version 450
// Mip levels of the surface texture from the first at most
// kTextureLevelsFusedExtent wide, up to
// kTextureLevelsADispatch of them in one dispatch, each from the level
// above: texel (x, y) is downsampleTexel (sim/model_math.h) of texels
// (2x, 2y), (2x+1, 2y), (2x, 2y+1), (2x+1, 2y+1), each coordinate clamped to
// the level above's extent, as writeSurfaceTextureMips does (on a square
// chain the clamp never acts: an odd extent's last row and column are not
// read; sim/model_math.h). Integer arithmetic on the packed words: exact, so
// the bytes equal the CPU reference's, and downsample_texels.comp's.
//
// Each workgroup owns a kTextureGroupSize-square tile of the first level it
// writes and the tiles below it (half as wide on each level), keeping each
// level's tile in shared memory for the next: only the level above the
// first is read from its image, and no workgroup waits for another. One
// dispatch and one barrier for five levels instead of five of each. The
// wider levels are downsample_texels.comp's, one texel an invocation.
#extension GL_GOOGLE_include_directive : require
#include "texture_layout.h"
#include "downsample_common.glsl"

layout(local_size_x = kTextureGroupSize, local_size_y = kTextureGroupSize) in;

layout(set = 0, binding = kTextureSourceBinding, r32ui) uniform readonly uimage2D source;
// targets[k] is level first + k; the slots past `count` repeat the last
// level and are never written.
layout(set = 0, binding = kTextureTargetBinding, r32ui) uniform writeonly uimage2D targets[kTextureLevelsADispatch];
layout(push_constant) uniform Levels {
  uint count;  // 1 .. kTextureLevelsADispatch
};

const uint kTileTexels = kTextureGroupSize * kTextureGroupSize;
shared uint tiles[2][kTileTexels];  // level k's tile in tiles[k % 2], read by level k + 1

// Texel `xy` of level first + k, from `source` (k = 0) or from level
// first + k - 1's tile, whose corner is 2 * corner and pitch 2 * pitch.
uint aboveTexel(uint k, ivec2 xy, ivec2 aboveLast, ivec2 corner, uint pitch) {
  const ivec2 at = min(xy, aboveLast);
  if (k == 0u) return imageLoad(source, at).x;
  const uvec2 inTile = uvec2(at - 2 * corner);
  return tiles[(k - 1u) % 2u][inTile.y * (2u * pitch) + inTile.x];
}

// An array of storage images is indexed by constants only (Vulkan 1.0
// without shaderStorageImageArrayDynamicIndexing).
ivec2 targetSize(uint k) {
  if (k == 0u) return imageSize(targets[0]);
  if (k == 1u) return imageSize(targets[1]);
  if (k == 2u) return imageSize(targets[2]);
  if (k == 3u) return imageSize(targets[3]);
  return imageSize(targets[4]);
}
void storeTarget(uint k, ivec2 xy, uint packed) {
  const uvec4 word = uvec4(packed, 0u, 0u, 0u);
  if (k == 0u) imageStore(targets[0], xy, word);
  else if (k == 1u) imageStore(targets[1], xy, word);
  else if (k == 2u) imageStore(targets[2], xy, word);
  else if (k == 3u) imageStore(targets[3], xy, word);
  else imageStore(targets[4], xy, word);
}

void main() {
  const uint t = gl_LocalInvocationIndex;
  uint pitch = kTextureGroupSize;
  ivec2 corner = ivec2(gl_WorkGroupID.xy) * int(kTextureGroupSize);  // the tile's corner on this level
  ivec2 aboveLast = imageSize(source) - 1;
  for (uint k = 0u; k < count; ++k) {
    const ivec2 extent = targetSize(k);
    const ivec2 xy = corner + ivec2(t % pitch, t / pitch);
    if (t < pitch * pitch && xy.x < extent.x && xy.y < extent.y) {
      const uvec4 texels = uvec4(aboveTexel(k, 2 * xy, aboveLast, corner, pitch),
                                 aboveTexel(k, 2 * xy + ivec2(1, 0), aboveLast, corner, pitch),
                                 aboveTexel(k, 2 * xy + ivec2(0, 1), aboveLast, corner, pitch),
                                 aboveTexel(k, 2 * xy + ivec2(1, 1), aboveLast, corner, pitch));
      const uint packed = downsampleWord(texels);
      tiles[k % 2u][t] = packed;
      storeTarget(k, xy, packed);
    }
    // Level k's tile is complete before level k + 1 reads it, and level
    // k - 1's readers are done before level k + 1 overwrites its buffer.
    memoryBarrierShared();
    barrier();
    aboveLast = extent - 1;
    pitch /= 2u;
    corner /= 2;
  }
}
