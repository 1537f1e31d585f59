#include "app/interop/interop_config.h"

#include <cstdlib>

#include "base/config.h"

namespace vksim {

const char* toString(BackendChoice backend) {
  switch (backend) {
    case BackendChoice::automatic: return "auto";
    case BackendChoice::cuda: return "cuda";
    case BackendChoice::cpu: return "cpu";
    case BackendChoice::vulkan: return "vulkan";
    case BackendChoice::cudaNvx: return "cuda-nvx";
    case BackendChoice::opencl: return "opencl";
  }
  return "?";
}

const char* toString(TransferMode transfer) {
  switch (transfer) {
    case TransferMode::zeroCopy:
      return "zero-copy";
    case TransferMode::copy:
      return "copy";
  }
  return "?";
}

const char* toString(MemoryOwner owner) {
  switch (owner) {
    case MemoryOwner::vulkan: return "vulkan";
    case MemoryOwner::cuda: return "cuda";
  }
  return "?";
}

Result<uint64_t> parseWaitTimeoutMs(const std::string& text) {
  uint64_t ms = 0;
  bool valid = !text.empty() && text.size() <= 7;  // kMaxWaitTimeoutMs has 7 digits
  for (char c : text) valid = valid && c >= '0' && c <= '9';
  if (valid) ms = std::stoull(text);
  if (!valid || ms < 1 || ms > kMaxWaitTimeoutMs)
    return fail("'" + text + "' must be whole milliseconds from 1 to " + std::to_string(kMaxWaitTimeoutMs));
  return ms * 1'000'000ull;
}

uint64_t waitTimeoutFromEnvironment() {
  const char* text = std::getenv(kWaitTimeoutVariable);
  return text ? parseWaitTimeoutMs(text).value_or(kDefaultWaitTimeoutNs) : kDefaultWaitTimeoutNs;
}

}  // namespace vksim
