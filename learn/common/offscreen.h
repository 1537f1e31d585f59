// Plain Vulkan drawing for steps 6, 7 and 10 (and step 11, through
// window.h): an offscreen RGBA8 colour target with its render pass, a
// graphics pipeline with the fixed state those steps need, the copy of the
// target into a HostBuffer, and a PNG of it. Nothing here crosses to CUDA;
// it only keeps the drawing boilerplate out of the steps, so that what they
// teach (the acquire, the release, what CUDA wrote) stays visible. Each
// function exits (check.h's codes) instead of returning an error.
#pragma once

#include "earlier.h"

// stb's one-file PNG writer (libstb-dev); its own warnings are not ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

struct Offscreen {
  uint32_t width = 0, height = 0;
  VkImage image = VK_NULL_HANDLE;  // R8G8B8A8_UNORM, COLOR_ATTACHMENT | TRANSFER_SRC
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkRenderPass renderPass = VK_NULL_HANDLE;  // clears; leaves the image TRANSFER_SRC_OPTIMAL
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
};

// The render pass: one subpass, cleared at the start, TRANSFER_SRC_OPTIMAL at
// the end for the copy. Its dependencies order a render after the previous
// render's writes and copy (the image is reused every round) and the copy
// after the render's writes; synchronization validation checks both.
inline VkRenderPass createOffscreenRenderPass(const Device& device) {
  VkAttachmentDescription color{0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT};
  color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  color.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
  VkAttachmentReference reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{0, VK_PIPELINE_BIND_POINT_GRAPHICS};
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &reference;
  const VkPipelineStageFlags output = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  const VkSubpassDependency dependencies[] = {
      {VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT | output, output,
       VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT},
      {0, VK_SUBPASS_EXTERNAL, output, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
       VK_ACCESS_TRANSFER_READ_BIT}};
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 1;
  info.pAttachments = &color;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = 2;
  info.pDependencies = dependencies;
  VkRenderPass renderPass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(device.device, &info, nullptr, &renderPass));
  return renderPass;
}

// A device-local width x height target, its view, render pass and framebuffer.
inline Offscreen createOffscreen(const Pair& pair, const Device& device, uint32_t width, uint32_t height) {
  Offscreen target;
  target.width = width;
  target.height = height;
  VkImageCreateInfo imageInfo{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
  imageInfo.imageType = VK_IMAGE_TYPE_2D;
  imageInfo.format = VK_FORMAT_R8G8B8A8_UNORM;
  imageInfo.extent = {width, height, 1};
  imageInfo.mipLevels = imageInfo.arrayLayers = 1;
  imageInfo.samples = VK_SAMPLE_COUNT_1_BIT;
  imageInfo.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  VK_CHECK(vkCreateImage(device.device, &imageInfo, nullptr, &target.image));
  VkMemoryRequirements requirements;
  vkGetImageMemoryRequirements(device.device, target.image, &requirements);
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex =
      findMemoryType(pair.physical, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &target.memory));
  VK_CHECK(vkBindImageMemory(device.device, target.image, target.memory, 0));
  VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  viewInfo.image = target.image;
  viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  viewInfo.format = VK_FORMAT_R8G8B8A8_UNORM;
  viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
  VK_CHECK(vkCreateImageView(device.device, &viewInfo, nullptr, &target.view));
  target.renderPass = createOffscreenRenderPass(device);
  VkFramebufferCreateInfo framebufferInfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
  framebufferInfo.renderPass = target.renderPass;
  framebufferInfo.attachmentCount = 1;
  framebufferInfo.pAttachments = &target.view;
  framebufferInfo.width = width;
  framebufferInfo.height = height;
  framebufferInfo.layers = 1;
  VK_CHECK(vkCreateFramebuffer(device.device, &framebufferInfo, nullptr, &target.framebuffer));
  return target;
}

inline void destroyOffscreen(const Device& device, Offscreen& target) {
  vkDestroyFramebuffer(device.device, target.framebuffer, nullptr);
  vkDestroyRenderPass(device.device, target.renderPass, nullptr);
  vkDestroyImageView(device.device, target.view, nullptr);
  vkDestroyImage(device.device, target.image, nullptr);
  vkFreeMemory(device.device, target.memory, nullptr);
  target = {};
}

inline VkShaderModule createShaderModule(const Device& device, const uint32_t* words, size_t bytes) {
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = bytes;
  info.pCode = words;
  VkShaderModule module = VK_NULL_HANDLE;
  VK_CHECK(vkCreateShaderModule(device.device, &info, nullptr, &module));
  return module;
}

// A triangle-list pipeline for `target`'s render pass: the given SPIR-V
// (entry points "main"), vertex input `input` (empty when null), no culling,
// no blending, the whole target as viewport.
inline VkPipeline createOffscreenPipeline(const Device& device, const Offscreen& target,
                                          VkPipelineLayout layout, const uint32_t* vertexSpirv,
                                          size_t vertexBytes, const uint32_t* fragmentSpirv,
                                          size_t fragmentBytes,
                                          const VkPipelineVertexInputStateCreateInfo* input = nullptr) {
  const VkShaderModule modules[2] = {createShaderModule(device, vertexSpirv, vertexBytes),
                                     createShaderModule(device, fragmentSpirv, fragmentBytes)};
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  for (int i = 0; i < 2; ++i) {
    stages[i].stage = i == 0 ? VK_SHADER_STAGE_VERTEX_BIT : VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[i].module = modules[i];
    stages[i].pName = "main";
  }
  const VkPipelineVertexInputStateCreateInfo noInput{
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
  VkPipelineInputAssemblyStateCreateInfo assembly{
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  const VkViewport viewport{0, 0, float(target.width), float(target.height), 0, 1};
  const VkRect2D scissor{{0, 0}, {target.width, target.height}};
  VkPipelineViewportStateCreateInfo viewportState{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewportState.viewportCount = viewportState.scissorCount = 1;
  viewportState.pViewports = &viewport;
  viewportState.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                         VK_COLOR_COMPONENT_A_BIT;
  VkPipelineColorBlendStateCreateInfo blendState{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blendState.attachmentCount = 1;
  blendState.pAttachments = &blend;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = input != nullptr ? input : &noInput;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewportState;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blendState;
  info.layout = layout;
  info.renderPass = target.renderPass;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateGraphicsPipelines(device.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
  for (VkShaderModule module : modules) vkDestroyShaderModule(device.device, module, nullptr);
  return pipeline;
}

// Begins `target`'s render pass, cleared to opaque black (0xff000000 as the
// CPU reads an RGBA8 pixel).
inline void beginOffscreen(VkCommandBuffer commands, const Offscreen& target) {
  VkClearValue clear{};
  clear.color.float32[3] = 1.0f;
  VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
  begin.renderPass = target.renderPass;
  begin.framebuffer = target.framebuffer;
  begin.renderArea = {{0, 0}, {target.width, target.height}};
  begin.clearValueCount = 1;
  begin.pClearValues = &clear;
  vkCmdBeginRenderPass(commands, &begin, VK_SUBPASS_CONTENTS_INLINE);
}

// After the render pass ended: copies the target (TRANSFER_SRC_OPTIMAL by
// then) into `host`, width x height RGBA8 pixels, rows packed, and makes the
// copy visible to the host. The caller waits for the submission.
inline void recordCopyOut(VkCommandBuffer commands, const Offscreen& target, const HostBuffer& host) {
  VkBufferImageCopy region{};
  region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
  region.imageExtent = {target.width, target.height, 1};
  vkCmdCopyImageToBuffer(commands, target.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, host.buffer, 1,
                         &region);
  VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                       nullptr, 0, nullptr);
}

// The copied-out target as a PNG at `path`; exit 4 when it cannot be written.
inline void savePng(const char* path, const Offscreen& target, const HostBuffer& host) {
  if (!stbi_write_png(path, int(target.width), int(target.height), 4, host.mapped, int(target.width * 4)))
    exitWith(kExitCheckFailed, "could not write %s", path);
}

// What a fragment shader needs to sample every level of `image`: a 2D view
// of levels [0, levels), a NEAREST sampler (texels come back exact; lod as
// the shader names it, up to `levels`), and a descriptor set whose binding 0
// (FRAGMENT stage) is that combined image sampler, read in layout `layout`.
struct SampledImage {
  VkImageView view = VK_NULL_HANDLE;
  VkSampler sampler = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
};

inline SampledImage createSampledImage(const Device& device, VkImage image, VkFormat format, uint32_t levels,
                                       VkImageLayout layout) {
  SampledImage result;
  VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
  viewInfo.image = image;
  viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
  viewInfo.format = format;
  viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, levels, 0, 1};
  VK_CHECK(vkCreateImageView(device.device, &viewInfo, nullptr, &result.view));
  VkSamplerCreateInfo samplerInfo{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};  // NEAREST filters: the zeros
  samplerInfo.addressModeU = samplerInfo.addressModeV = samplerInfo.addressModeW =
      VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
  samplerInfo.maxLod = float(levels);
  VK_CHECK(vkCreateSampler(device.device, &samplerInfo, nullptr, &result.sampler));
  const VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                             VK_SHADER_STAGE_FRAGMENT_BIT};
  VkDescriptorSetLayoutCreateInfo setLayoutInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setLayoutInfo.bindingCount = 1;
  setLayoutInfo.pBindings = &binding;
  VK_CHECK(vkCreateDescriptorSetLayout(device.device, &setLayoutInfo, nullptr, &result.setLayout));
  const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &poolSize;
  VK_CHECK(vkCreateDescriptorPool(device.device, &poolInfo, nullptr, &result.pool));
  VkDescriptorSetAllocateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  setInfo.descriptorPool = result.pool;
  setInfo.descriptorSetCount = 1;
  setInfo.pSetLayouts = &result.setLayout;
  VK_CHECK(vkAllocateDescriptorSets(device.device, &setInfo, &result.set));
  const VkDescriptorImageInfo imageDescriptor{result.sampler, result.view, layout};
  VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
  write.dstSet = result.set;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
  write.pImageInfo = &imageDescriptor;
  vkUpdateDescriptorSets(device.device, 1, &write, 0, nullptr);
  return result;
}

inline void destroySampledImage(const Device& device, SampledImage& sampled) {
  vkDestroyDescriptorPool(device.device, sampled.pool, nullptr);  // frees the set
  vkDestroyDescriptorSetLayout(device.device, sampled.setLayout, nullptr);
  vkDestroySampler(device.device, sampled.sampler, nullptr);
  vkDestroyImageView(device.device, sampled.view, nullptr);
  sampled = {};
}

// A pipeline layout with one descriptor set layout, `setLayout` (step 7's sampled image).
inline VkPipelineLayout createPipelineLayout(const Device& device, const VkDescriptorSetLayout& setLayout) {
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreatePipelineLayout(device.device, &layoutInfo, nullptr, &layout));
  return layout;
}

// Step 7's draw into `target`, with descriptor set `set` bound: `instances`
// instances of a 6-vertex quad, and the render pass ended (the target is
// TRANSFER_SRC_OPTIMAL then, ready for recordCopyOut).
inline void recordQuadDraw(VkCommandBuffer commands, const Offscreen& target, VkPipeline pipeline,
                           VkPipelineLayout layout, VkDescriptorSet set, uint32_t instances) {
  beginOffscreen(commands, target);
  vkCmdBindPipeline(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  vkCmdBindDescriptorSets(commands, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);
  vkCmdDraw(commands, 6, instances, 0, 0);
  vkCmdEndRenderPass(commands);
}
