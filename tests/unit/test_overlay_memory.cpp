// The overlay's vertex and index buffers go to device-local host-visible
// memory where the buffer allows it (app/ui/overlay_memory.h says why), and
// to whatever ImGui's backend would choose otherwise. Fake memory types.
#include <gtest/gtest.h>

#include "app/ui/overlay_memory.h"

namespace vksim {
namespace {

constexpr VkMemoryPropertyFlags kLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
constexpr VkMemoryPropertyFlags kVisible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

// A discrete GPU's list: video memory, system memory (the first host-visible
// type, ImGui's own choice), cached system memory, video memory through the BAR.
VkPhysicalDeviceMemoryProperties discreteTypes() {
  VkPhysicalDeviceMemoryProperties memory{};
  const VkMemoryPropertyFlags flags[] = {kLocal, kVisible, kVisible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                         kLocal | kVisible};
  memory.memoryTypeCount = 4;
  for (uint32_t t = 0; t < 4; ++t) memory.memoryTypes[t] = {flags[t], t == 0 || t == 3 ? 0u : 1u};
  memory.memoryHeapCount = 2;
  return memory;
}

TEST(OverlayMemory, TheBuffersGoToVideoMemoryTheHostCanWrite) {
  EXPECT_EQ(overlayBufferMemoryTypes(discreteTypes(), 0b1111), 0b1000u);
}

TEST(OverlayMemory, TypesTheBufferDoesNotAllowAreNeverAdded) {
  EXPECT_EQ(overlayBufferMemoryTypes(discreteTypes(), 0b0111), 0b0111u);
}

TEST(OverlayMemory, WithoutSuchATypeTheBackendChoosesAsBefore) {
  VkPhysicalDeviceMemoryProperties memory = discreteTypes();
  memory.memoryTypeCount = 3;  // no BAR type
  EXPECT_EQ(overlayBufferMemoryTypes(memory, 0b111), 0b111u);
}

}  // namespace
}  // namespace vksim
