// The first levels of the surface texture from a ripple step's workgroup
// (ripple_step.comp and ripple_step_rows.comp with VKSIM_STEP_TEXELS), as
// the CUDA kernel writes them (writeBlockMips, sim/cuda/
// cuda_ripple_warp_rows.cuh). Each invocation puts its cells' level-0 texels
// into the workgroup's tile in shared memory; then, after a barrier, the
// workgroup stores level 0 from there and computes levels 1 .. kStepLevels-1
// each from the level above in shared memory, so that no level is read back
// from the image (the downsample dispatches read level 0 whole to make
// level 1: about twice the bytes). The levels below are the writer's
// (surface_texture_writer.h), from level kStepLevels on.
//
// The includer declares, before including, kTexelTileWidth and
// kTexelTileRows (the workgroup's cells: its corner is gl_WorkGroupID.xy
// times those), kTexelInvocations (the workgroup's size), and defines
// texelTileWord and setTexelTileWord over its shared memory, which holds
// level 0's tile row by row from word 0 (kTexelTileWidth a row), level 1's
// from word kTexelTileWidth * kTexelTileRows and level 2's from word 0
// again (level 0's readers are done by then; level 3 is not kept).
//
// Texel (x, y) of level L is downsampleWord of texels (2x, 2y) .. (2x+1,
// 2y+1) of level L-1, each coordinate clamped to that level's extent as
// writeSurfaceTextureMips does: integer arithmetic, so the bytes are the CPU
// reference's. The host's kStepLevels (vulkan_compute_simulation.cpp) is at
// most the texture's levels, and only as many as the tile halves evenly
// into, so that every level's corner is even and each texel's four texels
// above are the workgroup's own.
#include "downsample_common.glsl"

// 1 .. kComputeStepTexelLevels; the same for every invocation, so every
// branch on it is uniform.
layout(constant_id = kComputeStepLevelsConstant) const uint kStepLevels = 1u;
// levels[L] is level L's R32_UINT view; the slots past kStepLevels repeat
// the last level and are never written (an array of storage images is
// indexed by constants only, as in downsample_levels.comp).
layout(set = kComputeTexelSet, binding = 0, r32ui) uniform writeonly uimage2D levels[kComputeStepTexelLevels];

uint texelTileWord(uint index);
void setTexelTileWord(uint index, uint word);

void storeLevelTexel(uint level, uvec2 xy, uint word) {
  const uvec4 value = uvec4(word, 0u, 0u, 0u);
  if (level == 0u) imageStore(levels[0], ivec2(xy), value);
  else if (level == 1u) imageStore(levels[1], ivec2(xy), value);
  else if (level == 2u) imageStore(levels[2], ivec2(xy), value);
  else imageStore(levels[3], ivec2(xy), value);
}

// Level 0 of the tile from shared memory: each 32 consecutive invocations
// store a block `across` columns wide (16 where the tile allows) and 32 /
// across rows high. Why not row by row from the step's registers: on the
// NVIDIA GPU the CUDA kernel's stores of 16 columns of two rows cost about
// half what rows of 32 texels cost (docs/benchmarks.md, "Why level 0 costs
// twice its bytes"). Row by row where the tile's rows do not split so.
void storeLevel0(uvec2 corner) {
  const uint across = min(16u, kTexelTileWidth), down = 32u / across;
  const bool blocks = kTexelTileWidth % across == 0u && kTexelTileRows % down == 0u;
  for (uint e = gl_LocalInvocationIndex; e < kTexelTileWidth * kTexelTileRows; e += kTexelInvocations) {
    uvec2 xy = uvec2(e % kTexelTileWidth, e / kTexelTileWidth);
    if (blocks) {
      const uint block = e / 32u, k = e % 32u, blocksAcross = kTexelTileWidth / across;
      xy = uvec2((block % blocksAcross) * across + k % across, (block / blocksAcross) * down + k / across);
    }
    const uvec2 texel = corner + xy;
    if (texel.x < pc.grid && texel.y < pc.grid)
      storeLevelTexel(0u, texel, texelTileWord(xy.y * kTexelTileWidth + xy.x));
  }
}

// Level `level` (1 .. 3) of the tile from the level above in shared memory;
// levels 1 and 2 are kept for the level below.
void storeMip(uint level) {
  const uint pitch = kTexelTileWidth >> level, rows = kTexelTileRows >> level;
  const uint above = level == 2u ? kTexelTileWidth * kTexelTileRows : 0u;  // the level above's first word
  const uint here = level == 1u ? kTexelTileWidth * kTexelTileRows : 0u;
  const uint extent = max(pc.grid >> level, 1u), aboveLast = max(pc.grid >> (level - 1u), 1u) - 1u;
  const uvec2 corner = gl_WorkGroupID.xy * uvec2(pitch, rows);  // the tile's corner on this level
  for (uint t = gl_LocalInvocationIndex; t < pitch * rows; t += kTexelInvocations) {
    const uvec2 xy = corner + uvec2(t % pitch, t / pitch);
    if (xy.x >= extent || xy.y >= extent) continue;  // square levels
    uvec4 texels;
    [[unroll]] for (uint k = 0u; k < 4u; ++k) {
      const uvec2 at = min(2u * xy + uvec2(k % 2u, k / 2u), uvec2(aboveLast)) - 2u * corner;
      texels[k] = texelTileWord(above + at.y * (2u * pitch) + at.x);
    }
    const uint word = downsampleWord(texels);
    if (level < 3u) setTexelTileWord(here + t, word);
    storeLevelTexel(level, xy, word);
  }
}

// Levels 0 .. kStepLevels-1 from the level-0 tile in shared memory. Every
// invocation of the workgroup calls it, in uniform control flow. Each
// barrier: the level above is complete in shared memory, and the last
// readers of the words the next level overwrites are done.
void storeStepLevels() {
  memoryBarrierShared();
  barrier();
  storeLevel0(gl_WorkGroupID.xy * uvec2(kTexelTileWidth, kTexelTileRows));
  if (kStepLevels > 1u) storeMip(1u);
  if (kStepLevels > 2u) {
    memoryBarrierShared();
    barrier();
    storeMip(2u);
  }
  if (kStepLevels > 3u) {
    memoryBarrierShared();
    barrier();
    storeMip(3u);
  }
}
