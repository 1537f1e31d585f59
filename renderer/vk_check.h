// Checks that stay on in every build. What they throw (RuntimeFailure, exit
// code 4) is declared with the other error kinds in base/result.h.
#pragma once
#include <volk.h>

#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include "base/result.h"

namespace vksim {

// Throws RuntimeFailure with "file:line: call failed: VK_ERROR_..." (the name
// from vk_enum_string_helper.h). Nothing is printed here: whoever catches it
// prints it, once (one line per failure).
[[noreturn]] void failVulkanCall(const char* call, VkResult result, const char* file, int line);

// Vulkan's two-call enumeration: `call(&count, nullptr)` asks for the count,
// `call(&count, data)` fills the array. Between the two calls the count may
// grow (a layer or a device appears, a surface changes), and then the second
// call fills what fits and returns VK_INCOMPLETE; the spec's answer is to ask
// again, so this loops until a fill succeeds. `blank` initialises each
// element (for structures that need their sType). Returns the elements or the
// first result that is neither VK_SUCCESS nor VK_INCOMPLETE. For the queries
// that return void (they cannot change between the calls) the first fill is
// the answer.
template <class T, class Call>
tl::expected<std::vector<T>, VkResult> tryEnumerate(Call&& call, const T& blank = T{}) {
  std::vector<T> items;
  for (;;) {
    uint32_t count = 0;
    if constexpr (std::is_void_v<std::invoke_result_t<Call&, uint32_t*, T*>>) {
      call(&count, nullptr);
      items.assign(count, blank);
      call(&count, items.data());
      items.resize(count);
      return items;
    } else {
      if (const VkResult result = call(&count, nullptr); result != VK_SUCCESS)
        return tl::unexpected<VkResult>(result);
      items.assign(count, blank);
      const VkResult result = call(&count, items.data());
      if (result == VK_INCOMPLETE) continue;
      if (result != VK_SUCCESS) return tl::unexpected<VkResult>(result);
      items.resize(count);
      return items;
    }
  }
}

// tryEnumerate for enumerations whose only acceptable end is VK_SUCCESS:
// anything else throws as VK_CHECK does, naming `what` and the caller's line.
template <class T, class Call>
std::vector<T> enumerate(const char* what, Call&& call, const T& blank = T{},
                         std::source_location where = std::source_location::current()) {
  auto items = tryEnumerate<T>(std::forward<Call>(call), blank);
  if (!items) failVulkanCall(what, items.error(), where.file_name(), int(where.line()));
  return std::move(*items);
}

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
