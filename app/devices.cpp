#include "app/devices.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "renderer/vk_check.h"

namespace vksim {
namespace {

int typeRank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
  }
}

bool canRender(const PhysicalDeviceInfo& device) { return device.hasGraphicsQueue && device.timelineSemaphores; }

std::string lowerHexOnly(const std::string& text) {
  std::string out;
  for (char c : text)
    if (std::isxdigit(static_cast<unsigned char>(c))) out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string deviceLabel(const PhysicalDeviceInfo& device) {
  return "Vulkan device " + std::to_string(device.index) + " '" + device.name + "'";
}

// --device is an index into the Vulkan list or a UUID (dashes optional).
const PhysicalDeviceInfo& findRequested(const std::vector<PhysicalDeviceInfo>& vulkan, const std::string& argument) {
  const bool isIndex = !argument.empty() && std::all_of(argument.begin(), argument.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
  if (isIndex) {
    const unsigned long index = std::stoul(argument);
    if (index >= vulkan.size())
      throw EnvironmentError("--device " + argument + ": no such index; this machine has " +
                             std::to_string(vulkan.size()) + (vulkan.size() == 1 ? " Vulkan device" : " Vulkan devices") +
                             " (see --list-devices)");
    return vulkan[index];
  }
  const std::string wanted = lowerHexOnly(argument);
  for (const PhysicalDeviceInfo& device : vulkan)
    if (lowerHexOnly(formatUuid(device.deviceUuid)) == wanted) return device;
  throw EnvironmentError("--device " + argument + ": no Vulkan device has this UUID (see --list-devices)");
}

}  // namespace

bool canShareWithCuda(const PhysicalDeviceInfo& device) {
  return device.externalMemoryFd && device.externalSemaphoreFd && device.vertexBufferExportable &&
         device.timelineExportable && device.binaryExportable && canRender(device);
}

std::optional<CudaDeviceInfo> pairedCudaDevice(const PhysicalDeviceInfo& vulkan, const CudaDeviceList& cuda) {
  for (const CudaDeviceInfo& device : cuda.devices)
    if (device.uuid == vulkan.deviceUuid) return device;
  return std::nullopt;
}

DeviceChoice chooseDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                           BackendChoice backend, const std::string& deviceArgument) {
  if (vulkan.empty()) throw EnvironmentError("no Vulkan device found (is a Vulkan driver installed?)");
  DeviceChoice choice;
  const PhysicalDeviceInfo* requested = deviceArgument.empty() ? nullptr : &findRequested(vulkan, deviceArgument);

  if (backend == BackendChoice::cuda) {
    if (cuda.devices.empty())
      throw EnvironmentError("--backend cuda: no CUDA device is available (" + cuda.unavailableReason + ")");
    // Pair by UUID: the Vulkan device named by --device, else the first one
    // that a CUDA device matches, whatever the enumeration order.
    std::vector<const PhysicalDeviceInfo*> candidates;
    if (requested) {
      candidates.push_back(requested);
    } else {
      for (const PhysicalDeviceInfo& device : vulkan) candidates.push_back(&device);
    }
    for (const PhysicalDeviceInfo* device : candidates) {
      const auto paired = pairedCudaDevice(*device, cuda);
      if (!paired) continue;
      if (!canShareWithCuda(*device))
        throw EnvironmentError("--backend cuda: " + deviceLabel(*device) +
                               " matches CUDA device '" + paired->name +
                               "' but cannot export memory and timeline/binary semaphores as opaque fds");
      choice.vulkan = *device;
      choice.cuda = paired;
      choice.useCuda = true;
      choice.reason = "backend cuda: " + deviceLabel(*device) + " and CUDA device " + std::to_string(paired->ordinal) +
                      " '" + paired->name + "' have the same UUID " + formatUuid(paired->uuid);
      return choice;
    }
    if (requested) {
      std::string names;
      for (const CudaDeviceInfo& device : cuda.devices)
        names += (names.empty() ? "" : ", ") + ("'" + device.name + "' " + formatUuid(device.uuid));
      throw EnvironmentError("--backend cuda: " + deviceLabel(*requested) + " (UUID " +
                             formatUuid(requested->deviceUuid) + ") is no CUDA device; CUDA devices: " + names);
    }
    throw EnvironmentError("--backend cuda: no Vulkan device has the UUID of a CUDA device (see --list-devices)");
  }

  if (backend == BackendChoice::automatic) {
    for (const PhysicalDeviceInfo& device : vulkan) {
      if (requested && &device != requested) continue;
      const auto paired = pairedCudaDevice(device, cuda);
      if (paired && canShareWithCuda(device)) {
        choice.vulkan = device;
        choice.cuda = paired;
        choice.useCuda = true;
        choice.reason = "backend auto -> cuda: " + deviceLabel(device) + " pairs with CUDA device " +
                        std::to_string(paired->ordinal) + " '" + paired->name + "' by UUID and can export";
        return choice;
      }
    }
  }

  // The CPU backend: the device asked for, else the most capable that renders.
  const PhysicalDeviceInfo* best = requested;
  if (!best) {
    for (const PhysicalDeviceInfo& device : vulkan)
      if (canRender(device) && (!best || typeRank(device.type) > typeRank(best->type))) best = &device;
  }
  if (!best || !canRender(*best))
    throw EnvironmentError(best ? deviceLabel(*best) + " lacks a graphics queue or timeline semaphores"
                                : "no Vulkan device has a graphics queue and timeline semaphores");
  choice.vulkan = *best;
  if (backend == BackendChoice::cpu) {
    choice.reason = "backend cpu (asked for): " + deviceLabel(*best);
  } else if (cuda.devices.empty()) {
    choice.reason = "backend auto -> cpu: no CUDA device (" + cuda.unavailableReason + "); rendering on " +
                    deviceLabel(*best);
  } else {
    choice.reason = "backend auto -> cpu: no CUDA device pairs with a Vulkan device that can export; rendering on " +
                    deviceLabel(*best);
  }
  return choice;
}

std::string describeDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda) {
  std::ostringstream out;
  const auto yesNo = [](bool b) { return b ? "yes" : "no"; };
  out << "Vulkan devices:\n";
  if (vulkan.empty()) out << "  (none)\n";
  for (const PhysicalDeviceInfo& device : vulkan) {
    out << "  [" << device.index << "] " << device.name << " (" << deviceTypeName(device.type) << ")\n"
        << "      driver " << device.driverName << " " << formatDriverVersion(device) << ", Vulkan "
        << formatVersion(device.apiVersion) << "\n"
        << "      UUID " << formatUuid(device.deviceUuid) << "\n"
        << "      export: memory fd " << yesNo(device.externalMemoryFd && device.vertexBufferExportable)
        << ", timeline semaphore fd " << yesNo(device.externalSemaphoreFd && device.timelineExportable)
        << ", binary semaphore fd " << yesNo(device.externalSemaphoreFd && device.binaryExportable) << "\n";
  }
  out << "CUDA devices:\n";
  if (cuda.devices.empty()) out << "  (none: " << cuda.unavailableReason << ")\n";
  for (const CudaDeviceInfo& device : cuda.devices)
    out << "  [" << device.ordinal << "] " << device.name << " (compute " << device.computeMajor << "."
        << device.computeMinor << ")\n      UUID " << formatUuid(device.uuid)
        << "\n      timeline semaphore interop: " << yesNo(device.timelineSemaphoreInterop) << "\n";
  out << "Pairs (same UUID):\n";
  bool anyPair = false;
  for (const PhysicalDeviceInfo& device : vulkan)
    if (const auto paired = pairedCudaDevice(device, cuda)) {
      anyPair = true;
      out << "  Vulkan [" << device.index << "] <-> CUDA [" << paired->ordinal << "] " << device.name
          << (canShareWithCuda(device) ? "" : " (cannot export: CUDA backend unavailable)") << "\n";
    }
  if (!anyPair) out << "  (none: the CUDA backend is unavailable, the CPU backend runs)\n";
  return out.str();
}

}  // namespace vksim
