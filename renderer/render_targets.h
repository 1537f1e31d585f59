// Where frames are drawn: an offscreen colour + depth image for --headless
// (no display, no GLFW at all), or a GLFW window's swapchain. Both use the same
// render pass layout (one colour and one depth attachment, cleared).
#pragma once
#include <volk.h>

#include <cstdint>
#include <vector>

#include "renderer/vulkan_context.h"

namespace vksim {

struct OffscreenTarget {
  VkRenderPass renderPass = VK_NULL_HANDLE;  // colour ends in TRANSFER_SRC_OPTIMAL
  VkExtent2D extent{};
  VkFormat colorFormat = VK_FORMAT_R8G8B8A8_UNORM;
  VkFormat depthFormat = VK_FORMAT_UNDEFINED;
  VkImage color = VK_NULL_HANDLE, depth = VK_NULL_HANDLE;
  VkDeviceMemory colorMemory = VK_NULL_HANDLE, depthMemory = VK_NULL_HANDLE;
  VkImageView colorView = VK_NULL_HANDLE, depthView = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
};

OffscreenTarget createOffscreenTarget(const Device& device, VkExtent2D extent);
void destroyOffscreenTarget(const Device& device, OffscreenTarget& target);

struct SwapchainTarget {
  VkSurfaceKHR surface = VK_NULL_HANDLE;  // not owned: created and destroyed by the caller
  VkRenderPass renderPass = VK_NULL_HANDLE;  // colour ends in PRESENT_SRC_KHR
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VkFormat colorFormat = VK_FORMAT_UNDEFINED;
  VkFormat depthFormat = VK_FORMAT_UNDEFINED;
  VkExtent2D extent{};
  VkPresentModeKHR presentMode = VK_PRESENT_MODE_FIFO_KHR;
  bool vsync = true;
  uint32_t minImageCount = 0;
  std::vector<VkImage> images;
  std::vector<VkImageView> views;
  std::vector<VkFramebuffer> framebuffers;
  // One per swapchain image: signalled by the render submission, waited by
  // present. Per image (not per frame) because present holds it until that
  // image is acquired again.
  std::vector<VkSemaphore> renderFinished;
  VkImage depth = VK_NULL_HANDLE;
  VkDeviceMemory depthMemory = VK_NULL_HANDLE;
  VkImageView depthView = VK_NULL_HANDLE;
};

// framebufferSize is GLFW's framebuffer size, used when the surface leaves the
// extent to the application. vsync: FIFO; else MAILBOX, then IMMEDIATE, then FIFO.
// Images carry TRANSFER_SRC usage when the surface allows it (screenshots).
SwapchainTarget createSwapchainTarget(const Device& device, VkSurfaceKHR surface, VkExtent2D framebufferSize,
                                      bool vsync);
// Recreates swapchain, views, depth and framebuffers for a new size or vsync
// setting (after the caller has waited for the device to go idle). The render
// pass is kept when the format is unchanged.
void recreateSwapchainTarget(const Device& device, SwapchainTarget& target, VkExtent2D framebufferSize, bool vsync);
void destroySwapchainTarget(const Device& device, SwapchainTarget& target);

enum class SwapchainStatus { ok, suboptimal, outOfDate, timeout };

// vkAcquireNextImageKHR signalling `imageAvailable`, bounded by timeoutNs.
SwapchainStatus acquireSwapchainImage(const Device& device, const SwapchainTarget& target, VkSemaphore imageAvailable,
                                      uint64_t timeoutNs, uint32_t* imageIndex);
// vkQueuePresentKHR waiting on renderFinished[imageIndex].
SwapchainStatus presentSwapchainImage(const Device& device, const SwapchainTarget& target, uint32_t imageIndex);

}  // namespace vksim
