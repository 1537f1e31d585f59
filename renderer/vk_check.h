// Checks that stay on in every build. What they throw (RuntimeFailure, exit
// code 4) is declared with the other error kinds in base/result.h.
#pragma once
#include <volk.h>

#include <string>

#include "base/result.h"

namespace vksim {

const char* vkResultName(VkResult result);

// Throws RuntimeFailure with "file:line: call failed: VK_ERROR_...". Nothing
// is printed here: whoever catches it prints it, once (one line per failure).
[[noreturn]] void failVulkanCall(const char* call, VkResult result, const char* file, int line);

}  // namespace vksim

// For calls whose only acceptable result is VK_SUCCESS. Expected results
// (VK_TIMEOUT, VK_SUBOPTIMAL_KHR, VK_ERROR_OUT_OF_DATE_KHR) are handled where
// they happen, not through this macro.
#define VK_CHECK(call)                                                  \
  do {                                                                  \
    VkResult vkCheckResult_ = (call);                                   \
    if (vkCheckResult_ != VK_SUCCESS)                                   \
      ::vksim::failVulkanCall(#call, vkCheckResult_, __FILE__, __LINE__); \
  } while (0)
