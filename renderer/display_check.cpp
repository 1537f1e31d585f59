#include "renderer/display_check.h"

#include <cstdlib>
#include <vector>

#include "renderer/vk_check.h"

#include <X11/Xlib.h>

// GLFW's X11 connection, from GLFW's native API. Declared here rather than
// through glfw3native.h, which with GLFW_EXPOSE_NATIVE_X11 also includes
// Xrandr.h (a package nothing else needs).
extern "C" Display* glfwGetX11Display(void);

namespace vksim {
namespace {

// XQueryExtension asks the server and prints nothing when the answer is no
// (XInitExtension would print "Xlib: extension ... missing").
bool listsExtension(Display* display, const char* name) {
  int opcode = 0, event = 0, error = 0;
  return XQueryExtension(display, name, &opcode, &event, &error) == True;
}

}  // namespace

DisplayTraits readDisplayTraits() {
  DisplayTraits traits;
  Display* display = glfwGetX11Display();
  if (display == nullptr) return traits;
  traits.name = DisplayString(display);
  // NV-GLX is what NVIDIA's X driver loads into the server when it starts
  // (its log says "Loading extension NV-GLX"), and what NVIDIA's client
  // libraries look for by that name ("Xlib: extension "NV-GLX" missing" is
  // what they print where it is absent). A PRIME render offload set-up runs
  // NVIDIA's X driver for its GPU screen (the NVIDIA driver README, "PRIME
  // Render Offload") and is expected to carry it too; that has not been seen
  // on such a laptop yet. If one lacks it, this is the check to revisit.
  traits.nvidiaGlx = listsExtension(display, "NV-GLX");
  // NVIDIA's driver presents to Xwayland through its Wayland path (supported
  // since driver 470); Xwayland 23.1 and later list XWAYLAND, older ones are
  // known by the Wayland session around them.
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  traits.xwayland = listsExtension(display, "XWAYLAND") || (wayland != nullptr && wayland[0] != '\0');
  return traits;
}

std::string displayProblem(const PhysicalDeviceInfo& device, const DisplayTraits& display) {
  if (device.driverId != VK_DRIVER_ID_NVIDIA_PROPRIETARY || display.name.empty()) return {};
  if (display.nvidiaGlx || display.xwayland || display.checkSkipped) return {};
  // Seen on driver 580.159.04 under an Xvfb: the first surface query calls a
  // null function pointer inside libnvidia-eglcore (SIGSEGV, exit 139).
  return "the X display " + display.name +
         " is not served by NVIDIA's X driver (no NV-GLX extension), and NVIDIA's Vulkan driver cannot "
         "present "
         "to it (asking it ends the process inside the driver)";
}

PresentSupport queryPresentSupport(const PhysicalDeviceInfo& device, VkSurfaceKHR surface,
                                   const DisplayTraits& display) {
  PresentSupport support;
  support.detail = displayProblem(device, display);
  if (!support.detail.empty()) return support;
  const std::vector<VkQueueFamilyProperties> families = enumerate<VkQueueFamilyProperties>(
      "vkGetPhysicalDeviceQueueFamilyProperties", [&](uint32_t* count, VkQueueFamilyProperties* data) {
        vkGetPhysicalDeviceQueueFamilyProperties(device.handle, count, data);
      });
  constexpr VkQueueFlags kNeeded = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (uint32_t i = 0; i < families.size(); ++i) {
    if ((families[i].queueFlags & kNeeded) != kNeeded || families[i].queueCount == 0) continue;
    VkBool32 present = VK_FALSE;
    VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(device.handle, i, surface, &present));
    if (present == VK_TRUE) {
      support.canPresent = true;
      support.queueFamily = i;
      support.detail = "queue family " + std::to_string(i);
      return support;
    }
  }
  support.detail = "no queue family with graphics and compute can present to it";
  return support;
}

}  // namespace vksim
