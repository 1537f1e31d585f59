#include "app/interop/interop_config.h"

#include <cstdlib>
#include <iterator>

#include "base/config.h"

namespace vksim {
namespace {

// One row per BackendChoice, in its order (traitsOf indexes by the value).
// constexpr: filled before any static initializer (cli.cpp's) reads it.
constexpr BackendTraits kBackends[] = {
    {BackendChoice::automatic, "auto", "auto (cuda, else cpu)"},
    {BackendChoice::cuda, "cuda", "cuda", false, true},
    {BackendChoice::cpu, "cpu", "cpu", false, false, true},
    {BackendChoice::vulkan, "vulkan", "vulkan (compute shaders in the render queue)", true},
    {BackendChoice::cudaNvx, "cuda-nvx", "cuda-nvx (CUDA kernels in the render queue, VK_NVX_binary_import)", true},
    {BackendChoice::opencl, "opencl", "opencl (binary sync only)", false, true},
};

constexpr bool rowsInEnumOrder() {
  for (size_t i = 0; i < std::size(kBackends); ++i)
    if (static_cast<size_t>(kBackends[i].backend) != i) return false;
  return true;
}
static_assert(rowsInEnumOrder(), "kBackends: one row per BackendChoice, in the enum's order");

}  // namespace

std::span<const BackendTraits> backendTable() { return kBackends; }

const BackendTraits& traitsOf(BackendChoice backend) { return kBackends[static_cast<size_t>(backend)]; }

const BackendTraits* findBackend(std::string_view name) {
  for (const BackendTraits& row : kBackends)
    if (name == row.name) return &row;
  return nullptr;
}

const char* toString(BackendChoice backend) { return traitsOf(backend).name; }

const char* shownSyncMode(TransferMode transfer, SyncMode mode) {
  return transfer == TransferMode::copy ? "none" : toString(mode);
}

const char* shownWaitStrategy(TransferMode transfer, WaitStrategy wait) {
  return transfer == TransferMode::copy ? "none" : toString(wait);
}

const char* shownMemoryOwner(TransferMode transfer, MemoryOwner owner) {
  return transfer == TransferMode::copy ? "none" : toString(owner);
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
