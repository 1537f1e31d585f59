// The GLFW window for interactive runs. Headless runs never include GLFW's
// initialisation: nothing here is called without a display.
#pragma once
#include <volk.h>

#include <string>
#include <vector>

#include "renderer/vulkan_context.h"

struct GLFWwindow;

namespace vksim {

// A plain value: it may be copied or moved freely. GLFW's framebuffer-size
// callback cannot reach this struct (it is returned by value), so it records
// the resize per GLFWwindow and pollWindowEvents copies that record into
// framebufferResized. The GLFW window user pointer is left to the app.
struct Window {
  GLFWwindow* handle = nullptr;
  bool framebufferResized = false;  // set by pollWindowEvents, cleared by the frame loop
};

// True when DISPLAY or WAYLAND_DISPLAY is set and glfwInit succeeds (GLFW is
// left initialised for createWindow; terminateWindowing undoes it).
bool initWindowing(std::string* reason);
void terminateWindowing();

// The instance extensions GLFW needs for a surface (after initWindowing).
std::vector<std::string> windowInstanceExtensions();

// A resizable window of `size` (screen coordinates) with no client API
// (Vulkan only), shown unless `visible` is false (a window made only to ask
// about its surface). Throws EnvironmentError when GLFW cannot create it.
Window createWindow(VkExtent2D size, const std::string& title, bool visible = true);
void destroyWindow(Window& window);

// glfwPollEvents, then sets window.framebufferResized if GLFW reported a new
// framebuffer size since the last call (including resizes seen by any
// glfwPollEvents / glfwWaitEvents the app made itself in between). Main thread.
void pollWindowEvents(Window& window);

// A surface for the window on `instance` (glfwCreateWindowSurface; the
// instance needs windowInstanceExtensions()). The caller destroys it with
// vkDestroySurfaceKHR after the swapchain and before the instance.
VkSurfaceKHR createWindowSurface(const Instance& instance, const Window& window);
VkExtent2D windowFramebufferSize(const Window& window);  // 0x0 while minimised

}  // namespace vksim
