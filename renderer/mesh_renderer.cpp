#include "renderer/mesh_renderer.h"

#include <array>
#include <cstring>
#include <vector>

#include "embedded.h"
#include "renderer/frame_sync.h"
#include "renderer/gpu_buffer.h"
#include "renderer/shared_texture.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

// The layout of shaders/shared_layout.h, the same one the simulation writes.
constexpr VkVertexInputBindingDescription kVertexBinding{0, static_cast<uint32_t>(kVertexStride),
                                                         VK_VERTEX_INPUT_RATE_VERTEX};
constexpr std::array<VkVertexInputAttributeDescription, 2> kVertexAttributes{{
    {static_cast<uint32_t>(kPositionLocation), 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0},
    {static_cast<uint32_t>(kNormalLocation), 0, VK_FORMAT_R32G32B32A32_SFLOAT, static_cast<uint32_t>(kNormalOffset)},
}};

constexpr VkPipelineColorBlendAttachmentState kBlendAttachment{
    .colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                      VK_COLOR_COMPONENT_A_BIT};

constexpr std::array<VkDynamicState, 2> kDynamicStates{VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};

VkShaderModule createShaderModule(const Device& device, const uint32_t* code, size_t sizeBytes) {
  VkShaderModuleCreateInfo createInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  createInfo.codeSize = sizeBytes;  // bytes, a multiple of 4
  createInfo.pCode = code;
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(vkCreateShaderModule(device.device, &createInfo, nullptr, &module));
  return module;
}

// The texture set layout and the pipeline layout, into `pipeline`.
void createMeshPipelineLayout(const Device& device, MeshPipeline& pipeline) {
  // One range for both stages: the fragment shader reads the light and the
  // camera, the vertex shader the matrix, and both declare the whole block.
  VkPushConstantRange pushRange{};
  pushRange.stageFlags = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
  pushRange.offset = 0;
  pushRange.size = sizeof(MeshPushConstants);
  pipeline.textureSetLayout = createSurfaceTextureSetLayout(device);
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &pipeline.textureSetLayout;
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &pushRange;
  VK_CHECK(vkCreatePipelineLayout(device.device, &layoutInfo, nullptr, &pipeline.layout));
}

std::array<VkPipelineShaderStageCreateInfo, 2> shaderStages(VkShaderModule vertexModule,
                                                            VkShaderModule fragmentModule) {
  std::array<VkPipelineShaderStageCreateInfo, 2> stages{};
  stages[0] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertexModule;
  stages[0].pName = "main";
  stages[1] = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fragmentModule;
  stages[1].pName = "main";
  return stages;
}

VkPipelineVertexInputStateCreateInfo vertexInputState() {
  VkPipelineVertexInputStateCreateInfo vertexInput{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  vertexInput.vertexBindingDescriptionCount = 1;
  vertexInput.pVertexBindingDescriptions = &kVertexBinding;
  vertexInput.vertexAttributeDescriptionCount = static_cast<uint32_t>(kVertexAttributes.size());
  vertexInput.pVertexAttributeDescriptions = kVertexAttributes.data();
  return vertexInput;
}

// No culling: the camera may orbit below the surface, and the fragment
// shader lights back faces with the flipped normal. Front faces are
// counter-clockwise (the grid's winding seen from +y; the camera's
// projection flips y for Vulkan's clip space, which keeps that winding).
VkPipelineRasterizationStateCreateInfo rasterizationState() {
  VkPipelineRasterizationStateCreateInfo rasterization{
      VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  rasterization.polygonMode = VK_POLYGON_MODE_FILL;
  rasterization.cullMode = VK_CULL_MODE_NONE;
  rasterization.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  rasterization.lineWidth = 1.0f;
  return rasterization;
}

VkPipelineDepthStencilStateCreateInfo depthStencilState() {
  VkPipelineDepthStencilStateCreateInfo depthStencil{
      VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
  depthStencil.depthTestEnable = VK_TRUE;
  depthStencil.depthWriteEnable = VK_TRUE;
  depthStencil.depthCompareOp = VK_COMPARE_OP_LESS;  // cleared to 1.0, depth range 0..1
  return depthStencil;
}

}  // namespace

MeshPipeline createMeshPipeline(const Device& device, VkRenderPass renderPass) {
  MeshPipeline result;
  createMeshPipelineLayout(device, result);
  VkShaderModule vertexModule = createShaderModule(device, kMeshVertSpirv, sizeof(kMeshVertSpirv));
  VkShaderModule fragmentModule = createShaderModule(device, kMeshFragSpirv, sizeof(kMeshFragSpirv));
  const std::array<VkPipelineShaderStageCreateInfo, 2> stages = shaderStages(vertexModule, fragmentModule);

  const VkPipelineVertexInputStateCreateInfo vertexInput = vertexInputState();
  VkPipelineInputAssemblyStateCreateInfo inputAssembly{
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  inputAssembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  // Counts only: viewport and scissor are dynamic so a resize needs no new pipeline.
  VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewport.viewportCount = 1;
  viewport.scissorCount = 1;
  const VkPipelineRasterizationStateCreateInfo rasterization = rasterizationState();
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  const VkPipelineDepthStencilStateCreateInfo depthStencil = depthStencilState();
  VkPipelineColorBlendStateCreateInfo colorBlend{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  colorBlend.attachmentCount = 1;
  colorBlend.pAttachments = &kBlendAttachment;
  VkPipelineDynamicStateCreateInfo dynamic{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamic.dynamicStateCount = static_cast<uint32_t>(kDynamicStates.size());
  dynamic.pDynamicStates = kDynamicStates.data();

  VkGraphicsPipelineCreateInfo createInfo{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  createInfo.stageCount = static_cast<uint32_t>(stages.size());
  createInfo.pStages = stages.data();
  createInfo.pVertexInputState = &vertexInput;
  createInfo.pInputAssemblyState = &inputAssembly;
  createInfo.pViewportState = &viewport;
  createInfo.pRasterizationState = &rasterization;
  createInfo.pMultisampleState = &multisample;
  createInfo.pDepthStencilState = &depthStencil;
  createInfo.pColorBlendState = &colorBlend;
  createInfo.pDynamicState = &dynamic;
  createInfo.layout = result.layout;
  createInfo.renderPass = renderPass;
  createInfo.subpass = 0;
  const VkResult created =
      vkCreateGraphicsPipelines(device.device, VK_NULL_HANDLE, 1, &createInfo, nullptr, &result.pipeline);
  // The modules are only needed while the pipeline is created.
  vkDestroyShaderModule(device.device, fragmentModule, nullptr);
  vkDestroyShaderModule(device.device, vertexModule, nullptr);
  if (created != VK_SUCCESS) failVulkanCall("vkCreateGraphicsPipelines", created, __FILE__, __LINE__);
  return result;
}

void destroyMeshPipeline(const Device& device, MeshPipeline& pipeline) {
  if (pipeline.pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device.device, pipeline.pipeline, nullptr);
  if (pipeline.layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device.device, pipeline.layout, nullptr);
  if (pipeline.textureSetLayout != VK_NULL_HANDLE)
    vkDestroyDescriptorSetLayout(device.device, pipeline.textureSetLayout, nullptr);
  pipeline = MeshPipeline{};
}

GridIndexBuffer createGridIndexBuffer(const Device& device, uint32_t grid) {
  if (grid < 2) throw RuntimeFailure("createGridIndexBuffer: a grid needs at least 2 vertices per side");
  // Vertices are row-major, z rows of x (sim/simulation.h): v = row * grid + column.
  std::vector<uint32_t> indices;
  const TileGrid tiles = makeTileGrid(grid);
  TilePatterns patterns = buildTilePatterns(tiles);
  indices.reserve(size_t{6} * (grid - 1) * (grid - 1) + patterns.indices.size());
  for (uint32_t row = 0; row + 1 < grid; ++row)
    for (uint32_t column = 0; column + 1 < grid; ++column) {
      const uint32_t v00 = row * grid + column;  // (x, z)
      const uint32_t v10 = v00 + 1;              // (x + h, z)
      const uint32_t v01 = v00 + grid;           // (x, z + h)
      const uint32_t v11 = v01 + 1;
      // Counter-clockwise seen from +y: (v01 - v00) x (v10 - v00) points up.
      indices.insert(indices.end(), {v00, v01, v10, v10, v01, v11});
    }
  const uint32_t wholeGridCount = static_cast<uint32_t>(indices.size());
  indices.insert(indices.end(), patterns.indices.begin(), patterns.indices.end());
  for (TilePattern& pattern : patterns.patterns) pattern.firstIndex += wholeGridCount;

  GridIndexBuffer result;
  result.grid = grid;
  result.indexCount = wholeGridCount;
  result.tiles = tiles;
  result.tilePatterns = std::move(patterns.patterns);
  const VkDeviceSize bytes = indices.size() * sizeof(uint32_t);

  GpuBuffer staging =
      createGpuBuffer(device, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  std::memcpy(staging.mapped, indices.data(), bytes);
  GpuBuffer target =
      createGpuBuffer(device, bytes, VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  runOneTimeCommands(device, [&](VkCommandBuffer commandBuffer) {
    const VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(commandBuffer, staging.buffer, target.buffer, 1, &region);
    // The host's fence wait does not make the copy visible to later
    // submissions; this barrier does, for every index read that follows in
    // submission order.
    VkBufferMemoryBarrier barrier{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_INDEX_READ_BIT;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = target.buffer;
    barrier.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0,
                         0, nullptr, 1, &barrier, 0, nullptr);
  });
  destroyGpuBuffer(device, staging);
  result.buffer = target.buffer;
  result.memory = target.memory;
  return result;
}

void destroyGridIndexBuffer(const Device& device, GridIndexBuffer& indices) {
  if (indices.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device.device, indices.buffer, nullptr);
  if (indices.memory != VK_NULL_HANDLE) vkFreeMemory(device.device, indices.memory, nullptr);
  indices = GridIndexBuffer{};
}

namespace {

// Everything a mesh draw needs bound, whichever indices it then draws.
void bindMeshDrawState(VkCommandBuffer commandBuffer, const MeshPipeline& pipeline, const MeshDrawInputs& draw) {
  const VkExtent2D extent = draw.extent;
  // Dynamic state must be set in this command buffer before the draw
  // (VUID-vkCmdDrawIndexed-commandBuffer-02701); setting it on every draw
  // also covers a pipeline bound in between (the ImGui overlay's).
  const VkViewport viewport{0.0f, 0.0f, static_cast<float>(extent.width), static_cast<float>(extent.height),
                            0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, extent};
  vkCmdSetViewport(commandBuffer, 0, 1, &viewport);
  vkCmdSetScissor(commandBuffer, 0, 1, &scissor);
  vkCmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.pipeline);
  vkCmdBindDescriptorSets(commandBuffer, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline.layout,
                          static_cast<uint32_t>(kSurfaceTextureSet), 1, &draw.textureSet, 0, nullptr);
  const VkDeviceSize offset = 0;
  vkCmdBindVertexBuffers(commandBuffer, 0, 1, &draw.vertexBuffer, &offset);
  vkCmdBindIndexBuffer(commandBuffer, draw.indices->buffer, 0, VK_INDEX_TYPE_UINT32);
  vkCmdPushConstants(commandBuffer, pipeline.layout,
                     VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, sizeof(MeshPushConstants),
                     &draw.constants);
}

}  // namespace

void recordMeshDraw(VkCommandBuffer commandBuffer, const MeshPipeline& pipeline, const MeshDrawInputs& draw) {
  bindMeshDrawState(commandBuffer, pipeline, draw);
  vkCmdDrawIndexed(commandBuffer, draw.indices->indexCount, 1, 0, 0, 0);
}

void recordTiledMeshDraw(VkCommandBuffer commandBuffer, const MeshPipeline& pipeline, const MeshDrawInputs& draw,
                         const TileDrawPlan& plan) {
  bindMeshDrawState(commandBuffer, pipeline, draw);
  // A pattern's indices count from its tile's first vertex: the vertex
  // offset moves it onto the tile, so one pattern serves every tile of its
  // shape and the vertices stay where the simulation wrote them.
  for (const TileDraw& tile : plan.draws) {
    const TilePattern& pattern = draw.indices->tilePatterns[tile.pattern];
    if (pattern.indexCount > 0)
      vkCmdDrawIndexed(commandBuffer, pattern.indexCount, 1, pattern.firstIndex, tile.vertexOffset, 0);
  }
}

}  // namespace vksim
