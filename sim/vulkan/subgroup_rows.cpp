#include "sim/vulkan/subgroup_rows.h"

#include "base/config.h"
#include "sim/vulkan/compute_layout.h"

namespace vksim {
namespace {

uint32_t subgroupRowsWidth(VkPhysicalDevice physical, std::string* why) {
  // Core in Vulkan 1.1; the renderer requires 1.2.
  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  properties.pNext = &subgroup;
  vkGetPhysicalDeviceProperties2(physical, &properties);
  constexpr VkSubgroupFeatureFlags kNeeded = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                                             VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
  if (!(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)) {
    *why = "no subgroup operations in compute shaders";
  } else if ((subgroup.supportedOperations & kNeeded) != kNeeded) {
    *why = "the subgroup operations lack basic, shuffle or relative shuffle";
  } else if (subgroup.subgroupSize < 2 || kRippleRowsInvocations % subgroup.subgroupSize != 0) {
    *why = "subgroup size " + std::to_string(subgroup.subgroupSize);
  } else {
    return subgroup.subgroupSize;
  }
  return 0;
}

}  // namespace

SubgroupRowsConstants chooseSubgroupRows(VkPhysicalDevice physical, std::string* why) {
  SubgroupRowsConstants rows;
  if (environmentSwitch(kVulkanTileStepVariable)) {
    *why = std::string(kVulkanTileStepVariable) + "=1";
    return rows;
  }
  rows.width = subgroupRowsWidth(physical, why);
  rows.cellsAlone = environmentSwitch(kStrictSubgroupRowsVariable) ? VK_FALSE : VK_TRUE;
  return rows;
}

}  // namespace vksim
