// The surface texture an app holds against the host's texture of the vertices
// in its buffer (writeSurfaceTexture, sim/surface_texture.h), level by level:
// shared by the lavapipe and the NVIDIA machine's tests of the render-queue
// backends' texture.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "app/app.h"
#include "sim/surface_texture.h"

namespace vksim {

// A small headless run of `backend` whose texture varies while a test watches
// it: `grid` cells a side, a ripple drop every 3 steps, a 64x64 image.
inline Options textureTestOptions(BackendChoice backend, SyncMode sync, ModelKind model, uint32_t grid) {
  Options options;
  options.headless = true;
  options.backend = backend;
  options.sync = sync;
  options.model.model = model;
  options.model.grid = grid;
  options.model.dropInterval = 3;  // ripple: drops land while the test runs, so the texture varies
  options.width = options.height = 64;
  return options;
}

struct LevelDifference {
  uint32_t level = 0, width = 0, height = 0;
  size_t differing = 0;  // bytes that differ from the reference
  size_t first = 0;      // the first of them (the level's size when none)
};

// After a drain: reads the vertices and every level back, writes the host's
// texture of those vertices into *reference (every level, the packed layout)
// and returns each level's difference. A level of the wrong size is a test
// failure and is left out.
inline std::vector<LevelDifference> textureAgainstItsVertices(App& app, std::vector<uint8_t>* reference) {
  const uint32_t grid = app.grid.texture.width;
  const std::vector<uint8_t> vertexBytes = readSharedVertices(app.device, app.grid);
  std::vector<Vertex> vertices(size_t(grid) * grid);
  EXPECT_EQ(vertexBytes.size(), vertices.size() * sizeof(Vertex));
  std::memcpy(vertices.data(), vertexBytes.data(), std::min(vertexBytes.size(), vertices.size() * sizeof(Vertex)));
  reference->assign(surfaceTextureBytes(grid), 0);
  writeSurfaceTexture(vertices.data(), grid, reference->data());
  std::vector<LevelDifference> levels;
  for (uint32_t level = 0; level < app.grid.texture.levels; ++level) {
    const SurfaceTextureLevel layout = surfaceTextureLevel(grid, level);
    const std::vector<uint8_t> texels = readSharedTexture(app.device, app.grid, level);
    if (texels.size() != size_t(layout.width) * layout.height * kSurfaceTexelBytes) {
      ADD_FAILURE() << "level " << level << " read back " << texels.size() << " bytes";
      continue;
    }
    LevelDifference difference{level, layout.width, layout.height, 0, texels.size()};
    for (size_t i = 0; i < texels.size(); ++i)
      if (texels[i] != (*reference)[layout.offset + i]) {
        ++difference.differing;
        difference.first = std::min(difference.first, i);
      }
    levels.push_back(difference);
  }
  return levels;
}

// After a drain: every level of the app's texture byte-equal to the host's
// texture of the vertices in its buffer; `what` names the case in a failure.
inline void expectEveryLevelEqual(App& app, const std::string& what) {
  std::vector<uint8_t> reference;
  const std::vector<LevelDifference> levels = textureAgainstItsVertices(app, &reference);
  ASSERT_EQ(levels.size(), size_t(app.grid.texture.levels)) << what;
  for (const LevelDifference& level : levels)
    EXPECT_EQ(level.differing, 0u) << what << " level " << level.level << " (" << level.width << "x" << level.height
                                   << "): bytes that differ from the CPU reference, the first at byte "
                                   << level.first;
}

}  // namespace vksim
