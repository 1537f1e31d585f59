// Where frames are drawn: an offscreen colour + depth image for --headless
// (no display, no GLFW at all), or a GLFW window's swapchain. Both use the same
// render pass layout (one colour and one depth attachment, cleared).
#pragma once
#include <volk.h>

#include <cstdint>
#include <vector>

#include "renderer/vulkan_context.h"

namespace vksim {

// The background both targets are cleared to (a dark blue-grey), in the
// attachment's format: written as is to UNORM, sRGB-encoded by SRGB formats.
inline constexpr float kBackgroundColor[4] = {0.06f, 0.07f, 0.09f, 1.0f};

// vkCmdBeginRenderPass for either target's render pass over the whole extent,
// clearing colour to kBackgroundColor and depth to 1.0 (the mesh pipeline
// tests LESS). Inline contents; the caller ends the pass.
void beginRenderPass(VkCommandBuffer commandBuffer, VkRenderPass renderPass, VkFramebuffer framebuffer,
                     VkExtent2D extent);

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

// Colour (R8G8B8A8_UNORM, COLOR_ATTACHMENT | TRANSFER_SRC) and depth images in
// device-local memory, the render pass (colour ends in TRANSFER_SRC_OPTIMAL,
// ready for readColorImage or a copy recorded after the pass) and framebuffer.
OffscreenTarget createOffscreenTarget(const Device& device, VkExtent2D extent);
void destroyOffscreenTarget(const Device& device, OffscreenTarget& target);

// A present mode's short name: "FIFO", "FIFO_RELAXED", "MAILBOX",
// "IMMEDIATE" (the enumerant's name without VK_PRESENT_MODE_ and _KHR).
std::string presentModeName(VkPresentModeKHR mode);

struct SwapchainTarget {
  VkSurfaceKHR surface = VK_NULL_HANDLE;  // not owned: created and destroyed by the caller
  VkRenderPass renderPass = VK_NULL_HANDLE;  // colour ends in PRESENT_SRC_KHR
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VkFormat colorFormat = VK_FORMAT_UNDEFINED;
  VkFormat depthFormat = VK_FORMAT_UNDEFINED;
  VkExtent2D extent{};
  VkPresentModeKHR presentMode = VK_PRESENT_MODE_FIFO_KHR;
  bool vsync = true;
  uint32_t minImageCount = 0;  // as passed to vkCreateSwapchainKHR (surface minimum + 1); images.size() may be more
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
// setting (after the caller has waited for the device to go idle). The
// surface format and the render pass are kept (the pipelines were made for
// it; a surface that no longer offers the format throws EnvironmentError),
// and so are the renderFinished semaphores (a count change adds or removes
// at the end). A 0x0 size (minimised window) throws RuntimeFailure: wait
// until it is non-zero.
void recreateSwapchainTarget(const Device& device, SwapchainTarget& target, VkExtent2D framebufferSize, bool vsync);
void destroySwapchainTarget(const Device& device, SwapchainTarget& target);

enum class SwapchainStatus { ok, suboptimal, outOfDate, timeout };

// vkAcquireNextImageKHR signalling `imageAvailable`, bounded by timeoutNs.
// ok and suboptimal: *imageIndex is acquired and imageAvailable will be
// signalled, so the frame must be submitted (waiting on it) and presented
// before recreating. outOfDate and timeout: nothing acquired, nothing signalled.
// Other results throw RuntimeFailure.
SwapchainStatus acquireSwapchainImage(const Device& device, const SwapchainTarget& target, VkSemaphore imageAvailable,
                                      uint64_t timeoutNs, uint32_t* imageIndex);
// vkQueuePresentKHR on device.queue waiting on renderFinished[imageIndex]
// (the wait happens even when the result is outOfDate). suboptimal and
// outOfDate ask for recreateSwapchainTarget; other errors throw RuntimeFailure.
// presentId > 0 (only with device.presentWait) tags the present through
// VkPresentIdKHR; ids must increase from one present to the next.
SwapchainStatus presentSwapchainImage(const Device& device, const SwapchainTarget& target, uint32_t imageIndex,
                                      uint64_t presentId = 0);

enum class PresentWaitStatus { displayed, notYet, lost };

// Whether the present tagged `presentId` (or a later one) on target's
// swapchain has reached the display: vkWaitForPresentKHR with a zero timeout,
// so it never blocks. lost: the swapchain is out of date or its surface is
// gone, and the present will never be reported. Needs device.presentWait.
// The swapchain is externally synchronized here as for a present: call from
// the thread that presents.
PresentWaitStatus pollPresentDisplayed(const Device& device, const SwapchainTarget& target, uint64_t presentId);

}  // namespace vksim
