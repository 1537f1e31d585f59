// The surface texture that the simulation writes beside the vertices: one
// RGBA8 texel per grid vertex (grid x grid at level 0), coloured from the
// vertex's height and slope (sim/model_math.h, surfaceTexel), and a full mip
// chain in which each level is the 2x2 box filter of the one above. The CPU
// backend writes every level into host memory packed as described here, and
// the OpenCL backend into an exported buffer in the same packing; the CUDA
// backend writes the same levels into an imported Vulkan image, and the
// render-queue backends into the image itself (sim/vulkan). No Vulkan or
// CUDA types.
#pragma once
#include <cstdint>

#include "shaders/shared_layout.h"

namespace vksim {

inline constexpr uint32_t kSurfaceTexelBytes = 4;  // R8G8B8A8_UNORM

// One mip level of the texture for a grid: its extent (max(1, grid >> level)
// on each side, the rule of both Vulkan images and CUDA mipmapped arrays) and
// where it starts in the packed host layout (levels one after another, rows
// tightly packed, level 0 first).
struct SurfaceTextureLevel {
  uint32_t width = 0, height = 0;
  uint64_t offset = 0;  // bytes from the start of the packed texels
};

// floor(log2(grid)) + 1: the full chain down to 1x1. grid >= 1.
uint32_t surfaceTextureLevelCount(uint32_t grid);

// Level `level` (< surfaceTextureLevelCount(grid)) of the packed layout.
SurfaceTextureLevel surfaceTextureLevel(uint32_t grid, uint32_t level);

// Bytes of every level packed together.
uint64_t surfaceTextureBytes(uint32_t grid);

// The CPU reference: every level of the texture of `vertices` (grid*grid,
// row-major, z rows of x) into `texels` (surfaceTextureBytes(grid) bytes,
// the packed layout). Texel (x, y) of level 0 is vertex (i = x, j = y).
void writeSurfaceTexture(const Vertex* vertices, uint32_t grid, uint8_t* texels);

// The same in parts, for a writer that has one row of vertices at a time:
// level 0's row j from that row's `grid` vertices, then, once every row is
// written, the levels below from level 0.
void writeSurfaceTexelRow(const Vertex* row, uint32_t grid, uint32_t j, uint8_t* texels);
void writeSurfaceTextureMips(uint32_t grid, uint8_t* texels);

}  // namespace vksim
