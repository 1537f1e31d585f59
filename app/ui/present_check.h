// A windowed run's device must be able to present to the window's display.
// Two checks, in order: before any surface exists, whether the chosen
// device's driver may be asked at all (renderer/display_check.h: NVIDIA's
// driver on an X server that NVIDIA's X driver does not serve crashes inside
// the driver); after the surface exists, whether the device can present to it
// (a laptop's NVIDIA GPU cannot without NVIDIA's offload variables). Each
// failure is one line and exit 3, or, for --backend auto, another device.
#pragma once
#include <string>
#include <vector>

#include "app/interop/device_pairing.h"
#include "renderer/display_check.h"
#include "renderer/vulkan_context.h"

namespace vksim {

// What a user whose window cannot be had does instead, in one clause.
inline constexpr const char* kPresentRemedy =
    "run with --headless, in an X session on NVIDIA's own X driver, or, on a laptop with two GPUs, with "
    "__NV_PRIME_RENDER_OFFLOAD=1 __VK_LAYER_NV_optimus=NVIDIA_only (README, \"Laptops with two GPUs\")";

// readDisplayTraits, with checkSkipped set by VKSIM_SKIP_DISPLAY_CHECK=1
// (base/config.h): what a run and --list-devices judge the display by.
DisplayTraits readRunDisplayTraits();

// `chosen` when its device may be asked about `display`'s surfaces. Otherwise,
// for --backend auto with no --device and no --memory-owner cuda, the best
// other device that may be (chooseDevices over the rest, CPU backend), with a
// reason that says what was refused and what runs instead; else throws
// EnvironmentError (exit 3): one line naming the device, the display, why,
// kPresentRemedy, and the switch that skips the check. Call before the
// window's surface is created.
DeviceChoice chooseDeviceForDisplay(DeviceChoice chosen, const std::vector<PhysicalDeviceInfo>& vulkan,
                                    const CudaDeviceList& cuda, const InteropConfig& config,
                                    const DisplayTraits& display);

// Throws EnvironmentError (exit 3) unless `chosen.vulkan` can present to
// `surface` (queryPresentSupport, with the test facility VKSIM_DENY_PRESENT
// applied): one line naming the device (and its CUDA pair), the display,
// what the driver answered, and kPresentRemedy.
void requirePresentSupport(const DeviceChoice& chosen, VkSurfaceKHR surface, const DisplayTraits& display);

// The --list-devices section on presenting: with a display (initWindowing
// succeeds), a hidden window, its surface on `instance` (which has
// windowInstanceExtensions()), and for each device whether it can present
// and through which queue family or why not; the window and surface are
// destroyed before it returns. Without a display, one line saying why
// nothing was checked; a window or surface that cannot be made (or a query
// that fails) is reported in the section instead of the devices, never
// thrown. `windowing` says whether initWindowing succeeded
// (`reason` is why not).
std::string describePresentSupport(const Instance& instance, const std::vector<PhysicalDeviceInfo>& vulkan,
                                   bool windowing, const std::string& reason);

}  // namespace vksim
