// Internal to sim/vulkan/: the pipeline, set layout, pipeline layout and
// single descriptor set that every compute user of the render's queue makes
// the same way, shared by the
// Vulkan backend (vulkan_compute_simulation.cpp) and the texture's writer
// (surface_texture_writer.cpp).
#pragma once
#include <volk.h>

#include <cstdint>
#include <span>

namespace vksim {

// A compute pipeline of `code` (SPIR-V, entry point "main") with `layout`
// and, when given, `specialization`'s constants; the shader module is gone
// again when it returns. The Vulkan result of the first call that failed,
// else VK_SUCCESS.
VkResult createComputePipeline(VkDevice device, VkPipelineLayout layout, std::span<const uint32_t> code,
                               VkPipeline* pipeline, const VkSpecializationInfo* specialization = nullptr);

// A descriptor set layout of `bindings` (compute bindings). The Vulkan result.
VkResult createComputeSetLayout(VkDevice device, std::span<const VkDescriptorSetLayoutBinding> bindings,
                                VkDescriptorSetLayout* setLayout);

// A pipeline layout of `setLayouts` (set 0 first) and, when
// pushConstantBytes > 0, one compute push-constant range of that many bytes
// from offset 0. The Vulkan result.
VkResult createComputeLayout(VkDevice device, std::span<const VkDescriptorSetLayout> setLayouts,
                             uint32_t pushConstantBytes, VkPipelineLayout* layout);

// A pool holding exactly `size` and one set of `setLayout` allocated from it
// (destroying the pool frees the set). The result of the first call that
// failed, else VK_SUCCESS; a pool made before a failure is left in *pool.
VkResult createOneSet(VkDevice device, const VkDescriptorPoolSize& size, VkDescriptorSetLayout setLayout,
                      VkDescriptorPool* pool, VkDescriptorSet* set);

}  // namespace vksim
