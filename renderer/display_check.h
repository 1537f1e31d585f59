// Whether a device may be asked to present to the window's X display at all,
// asked of the X server before any driver is: NVIDIA's Vulkan driver ends the
// process (SIGSEGV inside the driver) when its surface queries meet an X
// server that NVIDIA's X driver does not serve (an Xvfb, ssh -X, most VNC
// servers). Then whether a device can present, the surface query per queue
// family. Both after initWindowing (renderer/window.h).
#pragma once
#include <volk.h>

#include <cstdint>
#include <string>

#include "renderer/vulkan_context.h"

namespace vksim {

// What the X server of the window's display says about itself.
struct DisplayTraits {
  std::string name;        // as X11 names it (":0", "localhost:10.0"); empty when not X11
  bool nvidiaGlx = false;  // lists the "NV-GLX" extension: NVIDIA's X driver serves it
  bool xwayland = false;   // Xwayland ("XWAYLAND" extension, or WAYLAND_DISPLAY set)
  // The user's word that NVIDIA's driver presents here although the server
  // says neither of the above (app/ sets it from VKSIM_SKIP_DISPLAY_CHECK=1):
  // the check is a guess from the server's extensions, and a set-up it has
  // not seen may serve NVIDIA without them. The driver is then asked.
  bool checkSkipped = false;
};

// The traits of the display GLFW opened (glfwGetX11Display). A GLFW without
// an X11 display gives an empty name, and no device is refused for it.
DisplayTraits readDisplayTraits();

// Empty when `device`'s driver may be asked about surfaces on `display`;
// otherwise one clause saying why not, naming the display. Only NVIDIA's
// proprietary driver (driverID) is ever refused, and only on an X server that
// neither lists NV-GLX nor is Xwayland, unless display.checkSkipped. Pure:
// no Vulkan or X11 call.
std::string displayProblem(const PhysicalDeviceInfo& device, const DisplayTraits& display);

// Whether `device` can present to `surface` (made for the window of
// `display`): displayProblem first, then vkGetPhysicalDeviceSurfaceSupportKHR
// on each queue family with graphics and compute, in order (the family
// createDevice picks). The surface is not queried on a refused device.
struct PresentSupport {
  bool canPresent = false;
  uint32_t queueFamily = UINT32_MAX;  // the first family that can, when canPresent
  std::string detail;                 // "queue family 0", or why not
};
PresentSupport queryPresentSupport(const PhysicalDeviceInfo& device, VkSurfaceKHR surface,
                                   const DisplayTraits& display);

}  // namespace vksim
