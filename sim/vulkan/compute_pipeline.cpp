#include "sim/vulkan/compute_pipeline.h"

namespace vksim {

VkResult createComputePipeline(VkDevice device, VkPipelineLayout layout, std::span<const uint32_t> code,
                               VkPipeline* pipeline, const VkSpecializationInfo* specialization) {
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = code.size_bytes();
  moduleInfo.pCode = code.data();
  VkShaderModule module = VK_NULL_HANDLE;
  if (VkResult made = vkCreateShaderModule(device, &moduleInfo, nullptr, &module); made != VK_SUCCESS) return made;
  VkComputePipelineCreateInfo pipelineInfo{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  pipelineInfo.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipelineInfo.stage.module = module;
  pipelineInfo.stage.pName = "main";
  pipelineInfo.stage.pSpecializationInfo = specialization;
  pipelineInfo.layout = layout;
  const VkResult made = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipelineInfo, nullptr, pipeline);
  vkDestroyShaderModule(device, module, nullptr);  // the pipeline keeps what it needs
  return made;
}

VkResult createComputeSetLayout(VkDevice device, std::span<const VkDescriptorSetLayoutBinding> bindings,
                                VkDescriptorSetLayout* setLayout) {
  VkDescriptorSetLayoutCreateInfo setInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  setInfo.bindingCount = uint32_t(bindings.size());
  setInfo.pBindings = bindings.data();
  return vkCreateDescriptorSetLayout(device, &setInfo, nullptr, setLayout);
}

VkResult createComputeLayout(VkDevice device, std::span<const VkDescriptorSetLayout> setLayouts,
                             uint32_t pushConstantBytes, VkPipelineLayout* layout) {
  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushConstantBytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.setLayoutCount = uint32_t(setLayouts.size());
  layoutInfo.pSetLayouts = setLayouts.data();
  layoutInfo.pushConstantRangeCount = pushConstantBytes > 0 ? 1 : 0;
  layoutInfo.pPushConstantRanges = pushConstantBytes > 0 ? &range : nullptr;
  return vkCreatePipelineLayout(device, &layoutInfo, nullptr, layout);
}

VkResult createOneSet(VkDevice device, const VkDescriptorPoolSize& size, VkDescriptorSetLayout setLayout,
                      VkDescriptorPool* pool, VkDescriptorSet* set) {
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &size;
  if (VkResult made = vkCreateDescriptorPool(device, &poolInfo, nullptr, pool); made != VK_SUCCESS) return made;
  VkDescriptorSetAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  allocateInfo.descriptorPool = *pool;
  allocateInfo.descriptorSetCount = 1;
  allocateInfo.pSetLayouts = &setLayout;
  return vkAllocateDescriptorSets(device, &allocateInfo, set);
}

}  // namespace vksim
