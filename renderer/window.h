// The GLFW window for interactive runs. Headless runs never include GLFW's
// initialisation: nothing here is called without a display.
#pragma once
#include <volk.h>

#include <string>
#include <vector>

#include "renderer/vulkan_context.h"

struct GLFWwindow;

namespace vksim {

struct Window {
  GLFWwindow* handle = nullptr;
  bool framebufferResized = false;  // set by GLFW's callback, cleared by the frame loop
};

// True when DISPLAY or WAYLAND_DISPLAY is set and glfwInit succeeds (GLFW is
// left initialised for createWindow; terminateWindowing undoes it).
bool initWindowing(std::string* reason);
void terminateWindowing();

// The instance extensions GLFW needs for a surface (after initWindowing).
std::vector<std::string> windowInstanceExtensions();

// A resizable window of `size` with no client API (Vulkan only).
Window createWindow(VkExtent2D size, const std::string& title);
void destroyWindow(Window& window);

VkSurfaceKHR createWindowSurface(const Instance& instance, const Window& window);
VkExtent2D windowFramebufferSize(const Window& window);  // 0x0 while minimised

}  // namespace vksim
