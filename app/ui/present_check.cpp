#include "app/ui/present_check.h"

#include <exception>
#include <sstream>

#include "app/testing/present_denial.h"
#include "base/config.h"
#include "base/result.h"
#include "renderer/window.h"

namespace vksim {
namespace {

std::string label(const PhysicalDeviceInfo& device) {
  return "Vulkan device " + std::to_string(device.index) + " '" + device.name + "'";
}

// The device, and its CUDA partner when it has one: the pair is chosen by
// UUID, so the user learns which GPU the window was asked of.
std::string labelWithPair(const DeviceChoice& chosen) {
  std::string text = label(chosen.vulkan);
  if (chosen.cuda) text += " (paired by UUID with CUDA device " + std::to_string(chosen.cuda->ordinal) + ")";
  return text;
}

std::string displayLabel(const DisplayTraits& display) {
  return display.name.empty() ? std::string("the window's display") : "display " + display.name;
}

}  // namespace

DisplayTraits readRunDisplayTraits() {
  DisplayTraits display = readDisplayTraits();
  display.checkSkipped = environmentSwitch(kSkipDisplayCheckVariable);
  return display;
}

DeviceChoice chooseDeviceForDisplay(DeviceChoice chosen, const std::vector<PhysicalDeviceInfo>& vulkan,
                                    const CudaDeviceList& cuda, const InteropConfig& config,
                                    const DisplayTraits& display) {
  const std::string problem = displayProblem(chosen.vulkan, display);
  if (problem.empty()) return chosen;
  // auto promises a run, not a backend: it may render elsewhere. A device or
  // a CUDA-owned memory that was asked for is a promise it cannot keep.
  const bool mayMove = config.backend == BackendChoice::automatic && config.device.empty() &&
                       config.memoryOwner != MemoryOwner::cuda;
  std::vector<PhysicalDeviceInfo> others;
  for (const PhysicalDeviceInfo& device : vulkan)
    if (displayProblem(device, display).empty()) others.push_back(device);
  if (mayMove && !others.empty()) {
    try {
      DeviceChoice moved = chooseDevices(others, cuda, BackendChoice::cpu, "");
      moved.reason = "backend auto -> cpu: " + label(chosen.vulkan) + " cannot show a window here (" +
                     problem + "); rendering on " + label(moved.vulkan) +
                     " with the CPU backend instead (--headless runs " + backendName(chosen) + " on " +
                     label(chosen.vulkan) + ")";
      return moved;
    } catch (const EnvironmentError&) {
      // None of the others renders: the refusal below says what to do.
    }
  }
  throw EnvironmentError(labelWithPair(chosen) + " cannot show a window on " + displayLabel(display) + ": " +
                         problem + "; " + kPresentRemedy + "; if NVIDIA's driver does present here, " +
                         kSkipDisplayCheckVariable + "=1 skips this check");
}

void requirePresentSupport(const DeviceChoice& chosen, VkSurfaceKHR surface, const DisplayTraits& display) {
  const PresentSupport support = applyPresentDenial(queryPresentSupport(chosen.vulkan, surface, display));
  if (support.canPresent) return;
  throw EnvironmentError(labelWithPair(chosen) + " cannot present to the window on " + displayLabel(display) +
                         " (" + support.detail + "); " + kPresentRemedy);
}

std::string describePresentSupport(const Instance& instance, const std::vector<PhysicalDeviceInfo>& vulkan,
                                   bool windowing, const std::string& reason) {
  if (!windowing) return "Presenting to a window: not checked (" + reason + ")\n";
  const DisplayTraits display = readRunDisplayTraits();
  std::ostringstream out;
  out << "Presenting to a window on " << displayLabel(display) << " (NV-GLX "
      << (display.nvidiaGlx ? "yes" : "no") << ", Xwayland " << (display.xwayland ? "yes" : "no")
      << (display.checkSkipped ? std::string(", check skipped: ") + kSkipDisplayCheckVariable + "=1" : "")
      << "):\n";
  // A listing, not a run: a window or surface that cannot be made is
  // reported in the section, and the rest of the listing still prints.
  Window window;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  try {
    window = createWindow({64, 64}, "vkcuda-sim --list-devices", /*visible=*/false);
    surface = createWindowSurface(instance, window);
    for (const PhysicalDeviceInfo& device : vulkan) {
      const PresentSupport support = applyPresentDenial(queryPresentSupport(device, surface, display));
      out << "  [" << device.index << "] " << device.name << ": " << (support.canPresent ? "yes" : "no")
          << " (" << support.detail << ")\n";
    }
  } catch (const std::exception& error) {
    out << "  not checked (" << error.what() << ")\n";
  }
  if (surface != VK_NULL_HANDLE) vkDestroySurfaceKHR(instance.instance, surface, nullptr);
  destroyWindow(window);
  return out.str();
}

}  // namespace vksim
