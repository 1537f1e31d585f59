#include "sim/surface_texture.h"

#include <algorithm>
#include <cstring>

#include "sim/model_math.h"

namespace vksim {

uint32_t surfaceTextureLevelCount(uint32_t grid) {
  uint32_t levels = 1;
  while ((grid >> levels) > 0) ++levels;
  return levels;
}

SurfaceTextureLevel surfaceTextureLevel(uint32_t grid, uint32_t level) {
  SurfaceTextureLevel result;
  for (uint32_t l = 0;; ++l) {
    result.width = result.height = std::max(grid >> l, 1u);
    if (l == level) return result;
    result.offset += uint64_t(result.width) * result.height * kSurfaceTexelBytes;
  }
}

uint64_t surfaceTextureBytes(uint32_t grid) {
  const uint32_t last = surfaceTextureLevelCount(grid) - 1;
  return surfaceTextureLevel(grid, last).offset + kSurfaceTexelBytes;  // the last level is 1x1
}

void writeSurfaceTexelRow(const Vertex* row, uint32_t grid, uint32_t j, uint8_t* texels) {
  auto* level0 = reinterpret_cast<Texel*>(texels) + size_t(j) * grid;
  for (uint32_t i = 0; i < grid; ++i) level0[i] = surfaceTexel(row[i]);
}

void writeSurfaceTextureMips(uint32_t grid, uint8_t* texels) {
  const uint32_t levels = surfaceTextureLevelCount(grid);
  for (uint32_t level = 1; level < levels; ++level) {
    const SurfaceTextureLevel above = surfaceTextureLevel(grid, level - 1);
    const SurfaceTextureLevel here = surfaceTextureLevel(grid, level);
    const auto* source = reinterpret_cast<const Texel*>(texels + above.offset);
    auto* target = reinterpret_cast<Texel*>(texels + here.offset);
    const auto at = [&](uint32_t x, uint32_t y) {
      return source[size_t(std::min(y, above.height - 1)) * above.width + std::min(x, above.width - 1)];
    };
    for (uint32_t y = 0; y < here.height; ++y)
      for (uint32_t x = 0; x < here.width; ++x)
        target[size_t(y) * here.width + x] =
            downsampleTexel(at(2 * x, 2 * y), at(2 * x + 1, 2 * y), at(2 * x, 2 * y + 1), at(2 * x + 1, 2 * y + 1));
  }
}

void writeSurfaceTexture(const Vertex* vertices, uint32_t grid, uint8_t* texels) {
  for (uint32_t j = 0; j < grid; ++j) writeSurfaceTexelRow(vertices + size_t(j) * grid, grid, j, texels);
  writeSurfaceTextureMips(grid, texels);
}

}  // namespace vksim
