#include "renderer/window.h"

#include <algorithm>
#include <cstdlib>

#include "renderer/vk_check.h"

// volk.h (through window.h) has declared the Vulkan types, so GLFW declares
// glfwCreateWindowSurface without including a Vulkan header of its own.
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

namespace vksim {
namespace {

// Windows whose framebuffer size changed since their last pollWindowEvents.
// GLFW calls back on the main thread only, so no lock is needed.
std::vector<GLFWwindow*>& resizedWindows() {
  static std::vector<GLFWwindow*> windows;
  return windows;
}

void framebufferSizeCallback(GLFWwindow* handle, int /*width*/, int /*height*/) {
  std::vector<GLFWwindow*>& windows = resizedWindows();
  if (std::find(windows.begin(), windows.end(), handle) == windows.end()) windows.push_back(handle);
}

bool hasEnvironment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0';
}

std::string lastGlfwError() {
  const char* description = nullptr;
  glfwGetError(&description);
  return description ? description : "no description";
}

}  // namespace

bool initWindowing(std::string* reason) {
  // glfwInit without a display prints errors and may abort in some builds;
  // headless runs must never get this far, so check first.
  if (!hasEnvironment("DISPLAY") && !hasEnvironment("WAYLAND_DISPLAY")) {
    if (reason) *reason = "no display: neither DISPLAY nor WAYLAND_DISPLAY is set";
    return false;
  }
  if (glfwInit() != GLFW_TRUE) {
    if (reason) *reason = "GLFW could not initialise (" + lastGlfwError() + ")";
    return false;
  }
  // GLFW 3.3 opens libvulkan.so.1 itself; the same library that volk loaded,
  // so surfaces it creates belong to volk's instance.
  if (glfwVulkanSupported() != GLFW_TRUE) {
    if (reason) *reason = "GLFW found no Vulkan loader";
    glfwTerminate();
    return false;
  }
  return true;
}

void terminateWindowing() {
  glfwTerminate();
}

std::vector<std::string> windowInstanceExtensions() {
  uint32_t count = 0;
  const char** names = glfwGetRequiredInstanceExtensions(&count);
  std::vector<std::string> extensions;
  for (uint32_t i = 0; names != nullptr && i < count; ++i) extensions.emplace_back(names[i]);
  return extensions;
}

Window createWindow(VkExtent2D size, const std::string& title, bool visible) {
  glfwDefaultWindowHints();
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);  // no OpenGL context: Vulkan presents
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  Window window;
  window.handle = glfwCreateWindow(static_cast<int>(size.width), static_cast<int>(size.height), title.c_str(),
                                   nullptr, nullptr);
  if (window.handle == nullptr)
    throw EnvironmentError("GLFW could not create a window (" + lastGlfwError() + ").");
  glfwSetFramebufferSizeCallback(window.handle, framebufferSizeCallback);
  return window;
}

void destroyWindow(Window& window) {
  if (window.handle != nullptr) {
    std::vector<GLFWwindow*>& windows = resizedWindows();
    windows.erase(std::remove(windows.begin(), windows.end(), window.handle), windows.end());
    glfwDestroyWindow(window.handle);
  }
  window = Window{};
}

void pollWindowEvents(Window& window) {
  glfwPollEvents();
  std::vector<GLFWwindow*>& windows = resizedWindows();
  const auto found = std::find(windows.begin(), windows.end(), window.handle);
  if (found != windows.end()) {
    window.framebufferResized = true;
    windows.erase(found);
  }
}

VkSurfaceKHR createWindowSurface(const Instance& instance, const Window& window) {
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VK_CHECK(glfwCreateWindowSurface(instance.instance, window.handle, nullptr, &surface));
  return surface;
}

VkExtent2D windowFramebufferSize(const Window& window) {
  int width = 0, height = 0;
  glfwGetFramebufferSize(window.handle, &width, &height);
  return {static_cast<uint32_t>(std::max(width, 0)), static_cast<uint32_t>(std::max(height, 0))};
}

}  // namespace vksim
