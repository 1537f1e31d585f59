#pragma once
// Small helpers that the instance (vulkan_instance.cpp) and the device
// (vulkan_context.cpp) share: looking up an extension by name and naming the
// missing ones in an error sentence.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <volk.h>

namespace vksim {

inline constexpr uint32_t kRequiredApiVersion = VK_API_VERSION_1_2;

inline bool contains(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

// "a", "a and b", "a, b and c".
inline std::string joinNames(const std::vector<const char*>& names) {
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) joined += i + 1 == names.size() ? " and " : ", ";
    joined += names[i];
  }
  return joined;
}

}  // namespace vksim
