// The lit triangle mesh: a pipeline reading the shared vertex buffer (layout
// in shaders/shared_layout.h), a static index buffer for the grid, and the
// commands that draw it inside a render pass.
#pragma once
#include <volk.h>

#include <cstdint>

#include <vector>

#include "renderer/tile_lod.h"
#include "renderer/vulkan_context.h"
#include "shared_layout.h"

namespace vksim {

struct MeshPipeline {
  VkDescriptorSetLayout textureSetLayout = VK_NULL_HANDLE;  // set 0: the surface texture (shared_texture.h)
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;  // viewport and scissor dynamic
};

// Shaders come from the SPIR-V embedded at build time (shaders/embedded.h).
// Usable in renderPass and any render pass compatible with it (both targets'
// passes have the same attachment layout, but their formats may differ).
// Vertex binding 0: Vertex (kVertexStride), position and normal as vec4.
// Depth test LESS with writes, no culling, triangle list. Set 0 holds the
// surface texture (createSurfaceTextureSetLayout's definition).
MeshPipeline createMeshPipeline(const Device& device, VkRenderPass renderPass);
void destroyMeshPipeline(const Device& device, MeshPipeline& pipeline);

struct GridIndexBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint32_t indexCount = 0;  // the whole grid's: 6 * (grid-1)^2, uint32 indices from index 0
  uint32_t grid = 0;
  // The level-of-detail patterns (renderer/tile_lod.h), stored after the
  // whole grid's indices; their firstIndex counts from the buffer's start.
  TileGrid tiles;
  std::vector<TilePattern> tilePatterns;
};

// Two triangles per grid cell, counter-clockwise seen from +y, for vertices
// laid out row-major (z rows of x, as the simulation writes them), then every
// tile pattern of makeTileGrid(grid); uploaded once into device-local memory
// through a staging buffer (blocking, outside the frame loop). grid >= 2.
GridIndexBuffer createGridIndexBuffer(const Device& device, uint32_t grid);
void destroyGridIndexBuffer(const Device& device, GridIndexBuffer& indices);

// Inside a render pass: sets viewport/scissor to extent, binds (textureSet:
// a SharedTexture's set, whose image is in its sampledLayout), pushes the
// constants and draws the whole grid. The caller orders the draw after the
// simulation's writes to vertexBuffer and the texture (the value schedule's
// semaphore wait, and the texture's acquire or upload).
struct MeshDrawInputs {
  VkBuffer vertexBuffer = VK_NULL_HANDLE;
  VkDescriptorSet textureSet = VK_NULL_HANDLE;
  const GridIndexBuffer* indices = nullptr;
  MeshPushConstants constants{};
  VkExtent2D extent{};
};
void recordMeshDraw(VkCommandBuffer commandBuffer, const MeshPipeline& pipeline, const MeshDrawInputs& draw);

// What the last mesh draw drew (the overlay shows it, the bench reports it).
struct MeshDrawReport {
  bool tiled = false;  // tiles at their levels; false: every triangle of the grid (one draw)
  uint32_t minLevel = 0, maxLevel = 0;  // over the drawn tiles; level l draws every 2^l-th vertex
  uint32_t tilesDrawn = 0, tiles = 0;
  uint64_t triangles = 0, gridTriangles = 0;  // drawn, and the whole grid's
};

// As recordMeshDraw, but only the tiles of `plan` (planTileDraws over
// draw.indices->tiles and tilePatterns), each at its own level: one indexed
// draw per tile, its pattern offset to the tile's first vertex. The vertices
// are read from the same buffer, at the same stage, as by recordMeshDraw.
void recordTiledMeshDraw(VkCommandBuffer commandBuffer, const MeshPipeline& pipeline, const MeshDrawInputs& draw,
                         const TileDrawPlan& plan);

}  // namespace vksim
