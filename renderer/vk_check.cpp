#include "renderer/vk_check.h"

#include <vulkan/vk_enum_string_helper.h>

namespace vksim {

void failVulkanCall(const char* call, VkResult result, const char* file, int line) {
  throw RuntimeFailure(std::string(file) + ":" + std::to_string(line) + ": " + call +
                       " failed: " + string_VkResult(result));
}

}  // namespace vksim
