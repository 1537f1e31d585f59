// The lit triangle mesh: a pipeline reading the shared vertex buffer (layout
// in shaders/shared_layout.h), a static index buffer for the grid, and the
// commands that draw it inside a render pass.
#pragma once
#include <volk.h>

#include <cstdint>

#include "renderer/vulkan_context.h"
#include "shared_layout.h"

namespace vksim {

struct MeshPipeline {
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;  // viewport and scissor dynamic
};

// Shaders come from the SPIR-V embedded at build time (shaders/embedded.h).
MeshPipeline createMeshPipeline(const Device& device, VkRenderPass renderPass);
void destroyMeshPipeline(const Device& device, MeshPipeline& pipeline);

struct GridIndexBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint32_t indexCount = 0;  // 6 * (grid-1)^2, uint32 indices
  uint32_t grid = 0;
};

// Two triangles per grid cell, counter-clockwise seen from +y, uploaded once
// (blocking, outside the frame loop).
GridIndexBuffer createGridIndexBuffer(const Device& device, uint32_t grid);
void destroyGridIndexBuffer(const Device& device, GridIndexBuffer& indices);

// Inside a render pass: sets viewport/scissor to extent, binds, pushes the
// constants and draws the whole grid.
void recordMeshDraw(VkCommandBuffer commandBuffer, const MeshPipeline& pipeline, VkBuffer vertexBuffer,
                    const GridIndexBuffer& indices, const MeshPushConstants& constants, VkExtent2D extent);

}  // namespace vksim
