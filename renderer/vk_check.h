// Checks that stay on in every build, and the two error kinds that main()
// turns into exit codes (3: the environment cannot run this, 4: a runtime
// failure such as a timeout or a lost device).
#pragma once
#include <volk.h>

#include <stdexcept>
#include <string>

namespace vksim {

// Exit code 3: no Vulkan, no suitable device, a requested backend or device
// that is not there. what() is one sentence for the user.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code 4: a Vulkan or CUDA call failed at run time, or a wait timed out.
struct RuntimeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
