// Plain Vulkan and GLFW for step 11: a window and its surface, a swapchain
// (recreated on resize), a render pass that ends in a presentable image, a
// pipeline whose viewport follows the window, and the ImGui overlay's two
// backends. Nothing here crosses to CUDA; it only keeps the window's
// plumbing out of the lesson's way.
//
// ImGui: Debian's libimgui.a holds the GLFW and Vulkan backends, the Vulkan
// one compiled against Vulkan's linked functions. The learn/ steps link
// libvulkan directly (no volk), so those objects are used as they are. The
// full program cannot (its vk* names are volk's function pointers) and builds
// the backends from source instead (third_party/CMakeLists.txt).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <xcb/xcb.h>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include "offscreen.h"  // earlier.h, createShaderModule

// GLFW with a window of width x height; exit 3 when there is no display or
// GLFW finds no Vulkan loader. `resized` is set from GLFW's callback.
inline GLFWwindow* createWindow(int width, int height, const char* title, bool* resized) {
  if (glfwInit() != GLFW_TRUE) {
    const char* reason = nullptr;
    glfwGetError(&reason);
    exitWith(kExitMissing, "no display for a window (%s); --headless runs without one",
             reason != nullptr ? reason : "glfwInit failed");
  }
  if (glfwVulkanSupported() != GLFW_TRUE) exitWith(kExitMissing, "GLFW finds no Vulkan loader");
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  GLFWwindow* window = glfwCreateWindow(width, height, title, nullptr, nullptr);
  if (window == nullptr) exitWith(kExitMissing, "GLFW could not create a window");
  glfwSetWindowUserPointer(window, resized);
  glfwSetFramebufferSizeCallback(
      window, [](GLFWwindow* w, int, int) { *static_cast<bool*>(glfwGetWindowUserPointer(w)) = true; });
  return window;
}

// Exit 3, before NVIDIA's driver is asked anything about the window, when
// that would crash it: NVIDIA's Vulkan driver presents to an X server that
// NVIDIA's X driver runs in (its own X screen; PRIME render offload, where
// the server runs it for the NVIDIA GPU) or to Xwayland. Asked about any
// other X server (an Xvfb, ssh -X, most VNC servers) it ended the process
// inside the driver (SIGSEGV, driver 580.159.04). NVIDIA's X driver is known
// by the NV-GLX extension it loads into the server. The X server is asked
// through a connection of our own (xcb: no Xlib macros in the lesson).
inline void requireDisplayForDriver(VkPhysicalDevice physical) {
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &driver};
  vkGetPhysicalDeviceProperties2(physical, &properties);
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if (driver.driverID != VK_DRIVER_ID_NVIDIA_PROPRIETARY || (wayland != nullptr && wayland[0] != '\0'))
    return;
  // The check is a guess from the server's extensions: a user whose set-up
  // presents with NVIDIA without them may skip it, as with the app.
  const char* skip = std::getenv("VKSIM_SKIP_DISPLAY_CHECK");
  if (skip != nullptr && std::strcmp(skip, "1") == 0) return;
  xcb_connection_t* connection = xcb_connect(nullptr, nullptr);
  const auto lists = [connection](const char* name) {
    const xcb_query_extension_cookie_t cookie =
        xcb_query_extension(connection, uint16_t(std::strlen(name)), name);
    xcb_query_extension_reply_t* reply = xcb_query_extension_reply(connection, cookie, nullptr);
    const bool present = reply != nullptr && reply->present != 0;
    std::free(reply);
    return present;
  };
  const bool served = xcb_connection_has_error(connection) == 0 && (lists("NV-GLX") || lists("XWAYLAND"));
  xcb_disconnect(connection);
  const char* display = std::getenv("DISPLAY");
  if (!served)
    exitWith(
        kExitMissing,
        "the X display %s is not NVIDIA's (no NV-GLX extension), and NVIDIA's Vulkan driver would crash "
        "presenting to it; run with --headless, in NVIDIA's own X screen, or, on a laptop with two GPUs, "
        "with __NV_PRIME_RENDER_OFFLOAD=1 __VK_LAYER_NV_optimus=NVIDIA_only (VKSIM_SKIP_DISPLAY_CHECK=1 "
        "skips this check)",
        display != nullptr ? display : "(DISPLAY unset)");
}

// The instance extensions GLFW needs for a surface.
inline std::vector<const char*> windowExtensions() {
  uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  if (names == nullptr) exitWith(kExitMissing, "GLFW cannot make Vulkan surfaces here");
  return std::vector<const char*>(names, names + count);
}

// A colour-only render pass, cleared, ending in `finalLayout` (PRESENT_SRC_KHR
// for a swapchain). Its first dependency orders the clear after the
// image-available semaphore's wait, which the frame puts at
// COLOR_ATTACHMENT_OUTPUT.
inline VkRenderPass createPresentRenderPass(const Device& device, VkFormat format) {
  VkAttachmentDescription color{0, format, VK_SAMPLE_COUNT_1_BIT};
  color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
  color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
  color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  color.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
  VkAttachmentReference reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  VkSubpassDescription subpass{0, VK_PIPELINE_BIND_POINT_GRAPHICS};
  subpass.colorAttachmentCount = 1;
  subpass.pColorAttachments = &reference;
  const VkPipelineStageFlags output = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  const VkSubpassDependency dependency{
      VK_SUBPASS_EXTERNAL, 0, output, output, 0, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT};
  VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
  info.attachmentCount = 1;
  info.pAttachments = &color;
  info.subpassCount = 1;
  info.pSubpasses = &subpass;
  info.dependencyCount = 1;
  info.pDependencies = &dependency;
  VkRenderPass renderPass = VK_NULL_HANDLE;
  VK_CHECK(vkCreateRenderPass(device.device, &info, nullptr, &renderPass));
  return renderPass;
}

// The surface's format the render pass is made for: BGRA8 UNORM when offered.
inline VkFormat chooseSurfaceFormat(VkPhysicalDevice physical, VkSurfaceKHR surface) {
  uint32_t count = 0;
  VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, nullptr));
  std::vector<VkSurfaceFormatKHR> formats(count);
  VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, formats.data()));
  if (count == 0) exitWith(kExitMissing, "the surface offers no format");
  for (const VkSurfaceFormatKHR& format : formats)
    if (format.format == VK_FORMAT_B8G8R8A8_UNORM) return format.format;
  return formats[0].format;
}

struct Swapchain {
  VkSwapchainKHR swapchain = VK_NULL_HANDLE;
  VkExtent2D extent{};
  uint32_t minImageCount = 2;
  std::vector<VkImageView> views;
  std::vector<VkFramebuffer> framebuffers;
  // One binary semaphore per image: the frame's render signals it, the
  // present of that image waits for it (step 11 says why it is binary).
  std::vector<VkSemaphore> renderFinished;
};

// The image views, framebuffers and semaphores; not the swapchain itself.
inline void destroySwapchainParts(const Device& device, Swapchain& swapchain) {
  for (VkFramebuffer framebuffer : swapchain.framebuffers)
    vkDestroyFramebuffer(device.device, framebuffer, nullptr);
  for (VkImageView view : swapchain.views) vkDestroyImageView(device.device, view, nullptr);
  for (VkSemaphore semaphore : swapchain.renderFinished)
    vkDestroySemaphore(device.device, semaphore, nullptr);
  swapchain.framebuffers.clear();
  swapchain.views.clear();
  swapchain.renderFinished.clear();
}

// What a swapchain is made for: the window, its surface, the format chosen
// for it and the render pass its framebuffers serve.
struct Presentation {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  GLFWwindow* window = nullptr;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  VkRenderPass renderPass = VK_NULL_HANDLE;
};

// A FIFO swapchain at the window's framebuffer size, replacing `swapchain`
// (destroyed here; the caller made the device idle first), with a view, a
// framebuffer and a renderFinished semaphore per image.
inline void recreateSwapchain(const Device& device, const Presentation& presentation, Swapchain& swapchain) {
  const VkPhysicalDevice physical = presentation.physical;
  const VkSurfaceKHR surface = presentation.surface;
  const VkFormat format = presentation.format;
  VkSurfaceCapabilitiesKHR capabilities;
  VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(physical, surface, &capabilities));
  int width = 0, height = 0;
  glfwGetFramebufferSize(presentation.window, &width, &height);
  VkExtent2D extent = capabilities.currentExtent;
  if (extent.width == UINT32_MAX)
    extent = {
        std::clamp(uint32_t(width), capabilities.minImageExtent.width, capabilities.maxImageExtent.width),
        std::clamp(uint32_t(height), capabilities.minImageExtent.height, capabilities.maxImageExtent.height)};
  uint32_t imageCount = capabilities.minImageCount + 1;
  if (capabilities.maxImageCount != 0) imageCount = std::min(imageCount, capabilities.maxImageCount);
  VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
  info.surface = surface;
  info.minImageCount = imageCount;
  info.imageFormat = format;
  info.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
  info.imageExtent = extent;
  info.imageArrayLayers = 1;
  info.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.preTransform = capabilities.currentTransform;
  info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
  info.presentMode = VK_PRESENT_MODE_FIFO_KHR;  // always offered
  info.clipped = VK_TRUE;
  info.oldSwapchain = swapchain.swapchain;
  VkSwapchainKHR created = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSwapchainKHR(device.device, &info, nullptr, &created));
  destroySwapchainParts(device, swapchain);
  vkDestroySwapchainKHR(device.device, swapchain.swapchain, nullptr);
  swapchain.swapchain = created;
  swapchain.extent = extent;
  swapchain.minImageCount = std::max(2u, capabilities.minImageCount);
  uint32_t count = 0;
  VK_CHECK(vkGetSwapchainImagesKHR(device.device, created, &count, nullptr));
  std::vector<VkImage> images(count);
  VK_CHECK(vkGetSwapchainImagesKHR(device.device, created, &count, images.data()));
  for (VkImage image : images) {
    VkImageViewCreateInfo viewInfo{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    viewInfo.image = image;
    viewInfo.viewType = VK_IMAGE_VIEW_TYPE_2D;
    viewInfo.format = format;
    viewInfo.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    swapchain.views.push_back(VK_NULL_HANDLE);
    VK_CHECK(vkCreateImageView(device.device, &viewInfo, nullptr, &swapchain.views.back()));
    VkFramebufferCreateInfo framebufferInfo{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    framebufferInfo.renderPass = presentation.renderPass;
    framebufferInfo.attachmentCount = 1;
    framebufferInfo.pAttachments = &swapchain.views.back();
    framebufferInfo.width = extent.width;
    framebufferInfo.height = extent.height;
    framebufferInfo.layers = 1;
    swapchain.framebuffers.push_back(VK_NULL_HANDLE);
    VK_CHECK(vkCreateFramebuffer(device.device, &framebufferInfo, nullptr, &swapchain.framebuffers.back()));
    VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    swapchain.renderFinished.push_back(VK_NULL_HANDLE);
    VK_CHECK(vkCreateSemaphore(device.device, &semaphoreInfo, nullptr, &swapchain.renderFinished.back()));
  }
}

// Viewport and scissor covering `extent`: the pipeline leaves them dynamic,
// so a resized window needs no new pipeline.
inline void setViewport(VkCommandBuffer commands, VkExtent2D extent) {
  const VkViewport viewport{0, 0, float(extent.width), float(extent.height), 0, 1};
  const VkRect2D scissor{{0, 0}, extent};
  vkCmdSetViewport(commands, 0, 1, &viewport);
  vkCmdSetScissor(commands, 0, 1, &scissor);
}

// Two SPIR-V shaders, entry points "main".
struct ShaderPair {
  const uint32_t* vertex;
  size_t vertexBytes;
  const uint32_t* fragment;
  size_t fragmentBytes;
};

// A triangle-list pipeline for `renderPass` with dynamic viewport and
// scissor, `shaders` and vertex input `input`.
inline VkPipeline createWindowPipeline(const Device& device, VkRenderPass renderPass, VkPipelineLayout layout,
                                       const ShaderPair& shaders,
                                       const VkPipelineVertexInputStateCreateInfo* input) {
  const VkShaderModule modules[2] = {createShaderModule(device, shaders.vertex, shaders.vertexBytes),
                                     createShaderModule(device, shaders.fragment, shaders.fragmentBytes)};
  VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                               {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
  for (int i = 0; i < 2; ++i) {
    stages[i].stage = i == 0 ? VK_SHADER_STAGE_VERTEX_BIT : VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[i].module = modules[i];
    stages[i].pName = "main";
  }
  VkPipelineInputAssemblyStateCreateInfo assembly{
      VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  VkPipelineViewportStateCreateInfo viewportState{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
  viewportState.viewportCount = viewportState.scissorCount = 1;
  VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  VkPipelineColorBlendAttachmentState blend{};
  blend.colorWriteMask = 0xf;  // R, G, B, A
  VkPipelineColorBlendStateCreateInfo blendState{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
  blendState.attachmentCount = 1;
  blendState.pAttachments = &blend;
  const VkDynamicState dynamic[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamicState{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
  dynamicState.dynamicStateCount = 2;
  dynamicState.pDynamicStates = dynamic;
  VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
  info.stageCount = 2;
  info.pStages = stages;
  info.pVertexInputState = input;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewportState;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blendState;
  info.pDynamicState = &dynamicState;
  info.layout = layout;
  info.renderPass = renderPass;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VK_CHECK(vkCreateGraphicsPipelines(device.device, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
  for (VkShaderModule module : modules) vkDestroyShaderModule(device.device, module, nullptr);
  return pipeline;
}

// ImGui's context and its backends: GLFW's when `window` is not null (else the
// step sets the display size each frame), Vulkan's drawing into subpass 0 of
// `renderPass`. The font texture is uploaded with `oneShot` before this
// returns. The descriptor pool is returned for the teardown.
inline VkDescriptorPool createOverlay(VkInstance instance, const Pair& pair, const Device& device,
                                      VkRenderPass renderPass, GLFWwindow* window, const OneShot& oneShot) {
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini left behind
  ImGui::StyleColorsDark();
  if (window != nullptr && !ImGui_ImplGlfw_InitForVulkan(window, true))
    exitWith(kExitCheckFailed, "ImGui's GLFW backend did not initialise");
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                                  1};  // the font texture's one set
  VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  poolInfo.maxSets = poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorPool(device.device, &poolInfo, nullptr, &pool));
  ImGui_ImplVulkan_InitInfo info{};
  info.Instance = instance;
  info.PhysicalDevice = pair.physical;
  info.Device = device.device;
  info.QueueFamily = device.queueFamily;
  info.Queue = device.queue;
  info.DescriptorPool = pool;
  info.MinImageCount = info.ImageCount = 2;  // sizes its per-frame buffers; one frame is in flight
  info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
  if (!ImGui_ImplVulkan_Init(&info, renderPass))
    exitWith(kExitCheckFailed, "ImGui's Vulkan backend did not initialise");
  if (!ImGui_ImplVulkan_CreateFontsTexture(beginOneShot(oneShot)))
    exitWith(kExitCheckFailed, "ImGui's font texture could not be created");
  submitAndWait(device, oneShot);
  ImGui_ImplVulkan_DestroyFontUploadObjects();  // the staging buffer; the upload finished
  return pool;
}

inline void destroyOverlay(const Device& device, GLFWwindow* window, VkDescriptorPool pool) {
  ImGui_ImplVulkan_Shutdown();
  if (window != nullptr) ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  vkDestroyDescriptorPool(device.device, pool, nullptr);
}
