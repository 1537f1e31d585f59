#include "app/interop/device_pairing.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include <vulkan/vk_enum_string_helper.h>

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

// --device is an index into the Vulkan list (at most 9 digits, as the command
// line checks) or a UUID (dashes optional), which may be all decimal digits.
const PhysicalDeviceInfo& findRequested(const std::vector<PhysicalDeviceInfo>& vulkan, const std::string& argument) {
  const bool isIndex = !argument.empty() && argument.size() <= 9 &&
                       std::all_of(argument.begin(), argument.end(),
                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
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

std::string cudaLabel(const CudaDeviceInfo& device) {
  return "CUDA device " + std::to_string(device.ordinal) + " '" + device.name + "'";
}

std::string describeDriverId(VkDriverId id) {
  if (id == VkDriverId(0)) return "driverID unknown (no VkPhysicalDeviceDriverProperties)";
  // A driver newer than the headers has no name here: the number alone.
  const std::string name = string_VkDriverId(id);
  const bool named = name.rfind("Unhandled", 0) != 0;
  return "driverID " + std::to_string(int(id)) + (named ? " (" + name + ")" : std::string());
}

// The first pair (in `candidates` order) that passes every check, or nothing;
// *problem gets the first failure met, for the message.
const PhysicalDeviceInfo* firstSharingPair(const std::vector<const PhysicalDeviceInfo*>& candidates,
                                           const CudaDeviceList& cuda, std::optional<CudaDeviceInfo>* paired,
                                           std::string* problem) {
  for (const PhysicalDeviceInfo* device : candidates) {
    const auto match = pairedCudaDevice(*device, cuda);
    if (!match) continue;
    const std::string failed = firstPairingProblem(*device, *match);
    if (failed.empty()) {
      *paired = match;
      return device;
    }
    if (problem->empty())
      *problem = deviceLabel(*device) + " and " + cudaLabel(*match) +
                 " have the same UUID but cannot share: " + failed;
  }
  return nullptr;
}

}  // namespace

std::vector<PairingCheck> checkPairing(const PhysicalDeviceInfo& vulkan, const CudaDeviceInfo& cuda) {
  std::vector<PairingCheck> checks;
  checks.push_back({"same UUID", cuda.uuid == vulkan.deviceUuid,  // rule D1: by UUID, never by index
                    "Vulkan " + formatUuid(vulkan.deviceUuid) + ", CUDA " + formatUuid(cuda.uuid)});
  // CUDA Programming Guide (Vulkan interoperability): memory and semaphores
  // may be imported only from a Vulkan device whose device group holds one
  // physical device (rule D2).
  checks.push_back({"device group of one", vulkan.deviceGroupSize == 1,
                    vulkan.deviceGroupSize == 0
                        ? std::string("not found in vkEnumeratePhysicalDeviceGroups")
                        : std::to_string(vulkan.deviceGroupSize) + " physical device" +
                              (vulkan.deviceGroupSize == 1 ? "" : "s") + " in its group"});
  // An opaque fd carries a handle that only the driver which exported it
  // understands (external memory chapter: opaque handles are valid only
  // between the same driver on the same device); CUDA's import is NVIDIA's (rule D4).
  checks.push_back({"NVIDIA proprietary Vulkan driver", vulkan.driverId == VK_DRIVER_ID_NVIDIA_PROPRIETARY,
                    describeDriverId(vulkan.driverId)});
  checks.push_back(
      {"CUDA compute mode allows contexts", !cuda.computeProhibited, "compute mode " + cuda.computeModeName});
  // The value schedule's default mode imports the exported timeline semaphore (rules D8, S10).
  checks.push_back({"CUDA timeline-semaphore interop", cuda.timelineSemaphoreInterop,
                    std::string("cudaDevAttrTimelineSemaphoreInteropSupported ") +
                        (cuda.timelineSemaphoreInterop ? "1" : "0")});
  const auto yesNo = [](bool b) { return b ? "yes" : "no"; };
  checks.push_back({"Vulkan exports memory and semaphores as opaque fds", canShareWithCuda(vulkan),
                    std::string("memory ") + yesNo(vulkan.externalMemoryFd && vulkan.vertexBufferExportable) +
                        ", timeline " + yesNo(vulkan.externalSemaphoreFd && vulkan.timelineExportable) +
                        ", binary " + yesNo(vulkan.externalSemaphoreFd && vulkan.binaryExportable) +
                        ", graphics queue and timeline semaphores " +
                        yesNo(vulkan.hasGraphicsQueue && vulkan.timelineSemaphores)});
  return checks;
}

std::string firstPairingProblem(const PhysicalDeviceInfo& vulkan, const CudaDeviceInfo& cuda) {
  for (const PairingCheck& check : checkPairing(vulkan, cuda))
    if (!check.passed) return std::string(check.name) + ": " + check.detail;
  return {};
}

bool canShareWithCuda(const PhysicalDeviceInfo& device) {
  return device.externalMemoryFd && device.externalSemaphoreFd && device.vertexBufferExportable &&
         device.timelineExportable && device.binaryExportable && canRender(device);
}

std::optional<CudaDeviceInfo> pairedCudaDevice(const PhysicalDeviceInfo& vulkan, const CudaDeviceList& cuda) {
  for (const CudaDeviceInfo& device : cuda.devices)
    if (device.uuid == vulkan.deviceUuid) return device;  // rule D1: by UUID, never by index
  return std::nullopt;
}

namespace {

// --backend cuda: the Vulkan device named by --device, else the first one that
// a CUDA device matches by UUID, whatever the enumeration order; exit 3 with
// one sentence when none passes every check.
DeviceChoice chooseCudaPair(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                            const PhysicalDeviceInfo* requested) {
  if (cuda.devices.empty())
    throw EnvironmentError("--backend cuda: no CUDA device is available (" + cuda.unavailableReason + ")");
  std::vector<const PhysicalDeviceInfo*> candidates;
  if (requested) {
    candidates.push_back(requested);
  } else {
    for (const PhysicalDeviceInfo& device : vulkan) candidates.push_back(&device);
  }
  std::optional<CudaDeviceInfo> paired;
  std::string problem;
  if (const PhysicalDeviceInfo* device = firstSharingPair(candidates, cuda, &paired, &problem)) {
    DeviceChoice choice;
    choice.vulkan = *device;
    choice.cuda = paired;
    choice.backend = Backend::cuda;
    choice.reason = "backend cuda: " + deviceLabel(*device) + " and " + cudaLabel(*paired) +
                    " have the same UUID " + formatUuid(paired->uuid) + " and pass every pairing check";
    return choice;
  }
  if (!problem.empty()) throw EnvironmentError("--backend cuda: " + problem);
  if (requested) {
    std::string names;
    for (const CudaDeviceInfo& device : cuda.devices)
      names += (names.empty() ? "" : ", ") + ("'" + device.name + "' " + formatUuid(device.uuid));
    throw EnvironmentError("--backend cuda: " + deviceLabel(*requested) + " (UUID " +
                           formatUuid(requested->deviceUuid) + ") is no CUDA device; CUDA devices: " + names);
  }
  throw EnvironmentError("--backend cuda: no Vulkan device has the UUID of a CUDA device (see --list-devices)");
}

// The backends that render on one Vulkan device alone (cpu, vulkan,
// cuda-nvx, and auto's fallback): the device asked for, else the most
// capable that renders. `autoProblem` is why auto found no CUDA pair.
DeviceChoice chooseRenderingDevice(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                                   BackendChoice backend, const PhysicalDeviceInfo* requested,
                                   const std::string& autoProblem) {
  const PhysicalDeviceInfo* best = requested;
  if (!best) {
    for (const PhysicalDeviceInfo& device : vulkan)
      if (canRender(device) && (!best || typeRank(device.type) > typeRank(best->type))) best = &device;
  }
  if (!best || !canRender(*best))
    throw EnvironmentError(best ? deviceLabel(*best) + " lacks a graphics queue or timeline semaphores"
                                : "no Vulkan device has a graphics queue and timeline semaphores");
  DeviceChoice choice;
  choice.vulkan = *best;
  if (backend == BackendChoice::vulkan) {
    choice.backend = Backend::vulkan;
    choice.reason = "backend vulkan (asked for): compute shaders in the render queue of " + deviceLabel(*best);
  } else if (backend == BackendChoice::cudaNvx) {
    // The only way in: the driver must offer the extension (NVIDIA's does;
    // lavapipe does not). Exit 3 with one line otherwise.
    if (!best->nvxBinaryImport || !best->nvxImageViewHandle || !best->bufferDeviceAddress)
      throw EnvironmentError("--backend cuda-nvx: " + deviceLabel(*best) + " does not offer " +
                             (!best->nvxBinaryImport      ? "VK_NVX_binary_import"
                              : !best->nvxImageViewHandle ? "VK_NVX_image_view_handle"
                                                          : "the bufferDeviceAddress feature") +
                             " (needed to launch CUDA kernels from a Vulkan command buffer and let them write"
                             " its images)");
    choice.backend = Backend::cudaNvx;
    choice.reason = "backend cuda-nvx (asked for): CUDA kernels through VK_NVX_binary_import in the render queue of " +
                    deviceLabel(*best);
  } else if (traitsOf(backend).stepsOnHost) {
    choice.backend = backend;
    choice.reason = std::string("backend ") + toString(backend) + " (asked for): " + deviceLabel(*best);
  } else if (cuda.devices.empty()) {
    choice.reason = "backend auto -> cpu: no CUDA device (" + cuda.unavailableReason + "); rendering on " +
                    deviceLabel(*best);
  } else if (!autoProblem.empty()) {
    choice.reason = "backend auto -> cpu: " + autoProblem + "; rendering on " + deviceLabel(*best);
  } else {
    choice.reason = "backend auto -> cpu: no Vulkan device has the UUID of a CUDA device; rendering on " +
                    deviceLabel(*best);
  }
  return choice;
}

}  // namespace

DeviceChoice chooseDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                           BackendChoice backend, const std::string& deviceArgument) {
  if (vulkan.empty()) throw EnvironmentError("no Vulkan device found (is a Vulkan driver installed?)");
  const PhysicalDeviceInfo* requested = deviceArgument.empty() ? nullptr : &findRequested(vulkan, deviceArgument);
  if (backend == BackendChoice::cuda) return chooseCudaPair(vulkan, cuda, requested);

  // auto: the first device that pairs with a CUDA device and passes every
  // check; else the CPU backend, whose reason names what failed.
  std::string autoProblem;
  if (backend == BackendChoice::automatic && !cuda.devices.empty()) {
    std::vector<const PhysicalDeviceInfo*> candidates;
    for (const PhysicalDeviceInfo& device : vulkan)
      if (!requested || &device == requested) candidates.push_back(&device);
    std::optional<CudaDeviceInfo> paired;
    if (const PhysicalDeviceInfo* device = firstSharingPair(candidates, cuda, &paired, &autoProblem)) {
      DeviceChoice choice;
      choice.vulkan = *device;
      choice.cuda = paired;
      choice.backend = Backend::cuda;
      choice.reason = "backend auto -> cuda: " + deviceLabel(*device) + " pairs with " + cudaLabel(*paired) +
                      " by UUID and passes every pairing check";
      return choice;
    }
  }
  return chooseRenderingDevice(vulkan, cuda, backend, requested, autoProblem);
}

const char* backendName(const DeviceChoice& choice) { return toString(choice.backend); }

std::string describeCig(const PhysicalDeviceInfo& vulkan, const CudaDeviceInfo& cuda) {
  // Both halves must be there: the CUDA attribute says the driver can create
  // a CUDA context inside a graphics context, the Vulkan extension lets the
  // Vulkan device hand its queue over for it (docs/benchmarks.md, "CUDA in Graphics").
  if (cuda.vulkanCig && vulkan.externalComputeQueue)
    return "CUDA in Graphics: offered (CUDA's work could run in the Vulkan device's context; this program does "
           "not use it yet)";
  std::string missing;
  if (!cuda.vulkanCig) missing = "cudaDevAttrVulkanCigSupported is 0";
  if (!vulkan.externalComputeQueue)
    missing += std::string(missing.empty() ? "" : ", ") + "no VK_NV_external_compute_queue";
  return "CUDA in Graphics: not offered (" + missing +
         "): the CUDA step runs in a context of its own, and each frame pays the switch to it and back";
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
        << "      UUID " << formatUuid(device.deviceUuid) << ", " << describeDriverId(device.driverId)
        << ", device group of " << device.deviceGroupSize << "\n"
        << "      export: memory fd " << yesNo(device.externalMemoryFd && device.vertexBufferExportable)
        << ", timeline semaphore fd " << yesNo(device.externalSemaphoreFd && device.timelineExportable)
        << ", binary semaphore fd " << yesNo(device.externalSemaphoreFd && device.binaryExportable) << "\n"
        << "      backends in the render queue: vulkan " << yesNo(canRender(device)) << ", cuda-nvx "
        << yesNo(canRender(device) && device.nvxBinaryImport && device.nvxImageViewHandle &&
                 device.bufferDeviceAddress)
        << (device.nvxBinaryImport ? "" : " (no VK_NVX_binary_import)")
        << (device.nvxBinaryImport && !device.nvxImageViewHandle ? " (no VK_NVX_image_view_handle)" : "") << "\n"
        << "      VK_NV_external_compute_queue (CUDA in Graphics): " << yesNo(device.externalComputeQueue) << "\n"
        << "      VK_KHR_maintenance8 (ownership transfers in narrow stages): " << yesNo(device.maintenance8)
        << "\n";
  }
  out << "CUDA devices:\n";
  if (cuda.devices.empty()) out << "  (none: " << cuda.unavailableReason << ")\n";
  for (const CudaDeviceInfo& device : cuda.devices)
    out << "  [" << device.ordinal << "] " << device.name << " (compute " << device.computeMajor << "."
        << device.computeMinor << ")\n      UUID " << formatUuid(device.uuid)
        << "\n      timeline semaphore interop: " << yesNo(device.timelineSemaphoreInterop)
        << ", compute mode " << device.computeModeName
        << ", CUDA in Graphics with Vulkan (cudaDevAttrVulkanCigSupported): " << yesNo(device.vulkanCig) << "\n";
  out << "Pairs (same UUID) and the checks that let them share memory and semaphores:\n";
  bool anyPair = false;
  for (const PhysicalDeviceInfo& device : vulkan)
    if (const auto paired = pairedCudaDevice(device, cuda)) {
      anyPair = true;
      const std::string problem = firstPairingProblem(device, *paired);
      out << "  Vulkan [" << device.index << "] <-> CUDA [" << paired->ordinal << "] " << device.name << ": "
          << (problem.empty() ? "CUDA backend available" : "CUDA backend unavailable") << "\n";
      for (const PairingCheck& check : checkPairing(device, *paired))
        out << "      " << (check.passed ? "[ok]   " : "[FAIL] ") << check.name << " (" << check.detail
            << ")\n";
      out << "      " << describeCig(device, *paired) << "\n";
    }
  if (!anyPair) out << "  (none: the CUDA backend is unavailable, the CPU backend runs)\n";
  return out.str();
}

DeviceChoice chooseDevicesForMemoryOwner(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                                         const InteropConfig& config) {
  if (config.memoryOwner != MemoryOwner::cuda) return chooseDevices(vulkan, cuda, config.backend, config.device);
  try {
    return chooseDevices(vulkan, cuda, BackendChoice::cuda, config.device);
  } catch (const EnvironmentError& error) {
    // chooseDevices speaks of --backend cuda; the user asked for the memory
    // owner, and may never have named a backend.
    std::string reason = error.what();
    const std::string prefix = "--backend cuda: ";
    if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
    throw EnvironmentError("--memory-owner cuda needs the CUDA backend, which cannot run here: " + reason);
  }
}

bool inRenderQueue(Backend backend) { return traitsOf(backend).inRenderQueue; }

bool sharesWithAnotherApi(Backend backend) { return traitsOf(backend).sharesWithAnotherApi; }

std::vector<PairingCheck> checkOpenClPairing(const PhysicalDeviceInfo& vulkan, const OpenClDeviceInfo& opencl) {
  std::vector<PairingCheck> checks;
  // cl_khr_device_uuid: the same UUID means the same physical device, the
  // only one an opaque fd of this Vulkan device means anything to (rules O6,
  // D4). D4's other half, the same driver, is not compared here: no check
  // reads CL_DRIVER_UUID_KHR.
  checks.push_back({"same UUID", opencl.hasUuid && opencl.uuid == vulkan.deviceUuid,
                    "Vulkan " + formatUuid(vulkan.deviceUuid) + ", OpenCL " +
                        (opencl.hasUuid ? formatUuid(opencl.uuid) : std::string("none (no cl_khr_device_uuid)"))});
  const std::string missing = missingOpenClInterop(opencl);
  checks.push_back({"OpenCL interop extensions", missing.empty(), missing.empty() ? "all present" : "missing " + missing});
  const auto yesNo = [](bool b) { return b ? "yes" : "no"; };
  checks.push_back({"Vulkan exports memory and binary semaphores as opaque fds",
                    vulkan.externalMemoryFd && vulkan.vertexBufferExportable && vulkan.externalSemaphoreFd &&
                        vulkan.binaryExportable && canRender(vulkan),
                    std::string("memory ") + yesNo(vulkan.externalMemoryFd && vulkan.vertexBufferExportable) +
                        ", binary " + yesNo(vulkan.externalSemaphoreFd && vulkan.binaryExportable) +
                        ", graphics queue and timeline semaphores " + yesNo(canRender(vulkan))});
  return checks;
}

namespace {

// The first failed check of checkOpenClPairing as "NAME: DETAIL", or "".
std::string firstOpenClPairingProblem(const PhysicalDeviceInfo& vulkan, const OpenClDeviceInfo& device) {
  for (const PairingCheck& check : checkOpenClPairing(vulkan, device))
    if (!check.passed) return std::string(check.name) + ": " + check.detail;
  return {};
}

// The loader file and the ICD variables that are set, for the exit-3 lines:
// which platforms a process sees depends on both (docs/gpu-runs.md), and
// the same program has seen different ones as a child of another.
std::string openClLoaderPhrase(const OpenClLoaderInfo& loader) {
  if (loader.path.empty()) return {};
  std::string phrase = " (ICD loader " + loader.path;
  if (!loader.description.empty()) phrase += ", " + loader.description;
  for (const OpenClLoaderInfo::Variable& variable : loader.variables)
    if (variable.set) phrase += "; " + variable.name + "=" + variable.value;
  return phrase + ")";
}

// Why `device` does not pair with any of `candidates` (matched by UUID, rule O6), one phrase.
std::string openClDeviceVerdict(const OpenClDeviceInfo& device,
                                const std::vector<const PhysicalDeviceInfo*>& candidates) {
  const std::string label = "device '" + device.name + "'";
  if (const std::string missing = missingOpenClInterop(device); !missing.empty())
    return label + " lacks " + missing;
  for (const PhysicalDeviceInfo* vulkan : candidates)
    if (device.uuid == vulkan->deviceUuid)
      return label + " has the UUID of " + deviceLabel(*vulkan) + " but cannot share (" +
             firstOpenClPairingProblem(*vulkan, device) + ")";
  return label + " has UUID " + formatUuid(device.uuid) + ", which " +
         (candidates.size() == 1 ? deviceLabel(*candidates.front()) + " does not have"
                                 : "no Vulkan device has");
}

// Every platform with what each of its devices lacks and why anything was
// left out, in one line: "platform 0 'A' [device 'x' lacks ...]; platform 1
// 'B' [clGetDeviceIDs failed (CL_OUT_OF_HOST_MEMORY)]".
std::string summarizeOpenClPlatforms(const OpenClDeviceList& opencl,
                                     const std::vector<const PhysicalDeviceInfo*>& candidates) {
  const auto add = [](std::string& to, const std::string& what) { to += (to.empty() ? "" : "; ") + what; };
  std::string text;
  std::vector<bool> placed(opencl.devices.size(), false);
  for (const OpenClPlatformInfo& platform : opencl.platforms) {
    std::string about;
    for (size_t i = 0; i < opencl.devices.size(); ++i)
      if (opencl.devices[i].platformIndex == platform.index) {
        add(about, openClDeviceVerdict(opencl.devices[i], candidates));
        placed[i] = true;
      }
    for (const std::string& problem : platform.problems) add(about, problem);
    add(text, "platform " + std::to_string(platform.index) + " '" + platform.name + "' [" + about + "]");
  }
  // Devices whose platform has no entry (lists made without platforms).
  for (size_t i = 0; i < opencl.devices.size(); ++i)
    if (!placed[i])
      add(text, "platform '" + opencl.devices[i].platformName + "' [" +
                    openClDeviceVerdict(opencl.devices[i], candidates) + "]");
  return text;
}

}  // namespace

DeviceChoice chooseOpenClDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const OpenClDeviceList& opencl,
                                 const std::string& deviceArgument) {
  if (vulkan.empty()) throw EnvironmentError("no Vulkan device found (is a Vulkan driver installed?)");
  const std::string loader = openClLoaderPhrase(opencl.loader);
  if (opencl.devices.empty() && opencl.platforms.empty())
    throw EnvironmentError("--backend opencl: " + opencl.unavailableReason + loader);
  const PhysicalDeviceInfo* requested = deviceArgument.empty() ? nullptr : &findRequested(vulkan, deviceArgument);
  std::vector<const PhysicalDeviceInfo*> candidates;
  for (const PhysicalDeviceInfo& device : vulkan)
    if (!requested || &device == requested) candidates.push_back(&device);
  // Every device of every platform, whatever the platforms' order: a CPU
  // platform listed first, or one that failed, must not hide the GPU's (matched by UUID, rule O6).
  std::string problem;
  for (const PhysicalDeviceInfo* candidate : candidates)
    for (const OpenClDeviceInfo& device : opencl.devices) {
      if (!device.hasUuid || device.uuid != candidate->deviceUuid) continue;
      if (const std::string failed = firstOpenClPairingProblem(*candidate, device); !failed.empty()) {
        if (problem.empty())
          problem = deviceLabel(*candidate) + " and OpenCL device '" + device.name +
                    "' have the same UUID but cannot share: " + failed;
        continue;
      }
      DeviceChoice choice;
      choice.vulkan = *candidate;
      choice.opencl = device;
      choice.backend = Backend::opencl;
      choice.reason = "backend opencl: " + deviceLabel(*candidate) + " and OpenCL device '" + device.name +
                      "' (platform '" + device.platformName + "') have the same UUID " +
                      formatUuid(device.uuid) + " and pass every pairing check";
      return choice;
    }
  // Nothing pairs: one line that names every platform, so that a platform
  // which failed to list its devices is seen beside the one that lacks the
  // extensions.
  const std::string platforms = summarizeOpenClPlatforms(opencl, candidates);
  if (!problem.empty())
    throw EnvironmentError("--backend opencl: " + problem + "; OpenCL: " + platforms + loader);
  throw EnvironmentError("--backend opencl: no OpenCL device has the UUID of " +
                         (requested ? deviceLabel(*requested) : std::string("a Vulkan device")) +
                         " and every interop extension: " + platforms + loader);
}

namespace {

void describeOpenClLoader(std::ostringstream& out, const OpenClLoaderInfo& loader) {
  out << "OpenCL ICD loader: " << (loader.path.empty() ? loader.library + " not loaded" : loader.path);
  if (!loader.description.empty()) out << " (" << loader.description << ")";
  out << "\n  ";
  for (size_t i = 0; i < loader.variables.size(); ++i)
    out << (i ? ", " : "") << loader.variables[i].name
        << (loader.variables[i].set ? "=" + loader.variables[i].value : std::string(" unset"));
  out << "\n";
}

void describeOpenClDevice(std::ostringstream& out, const OpenClDeviceInfo& device) {
  const auto yesNo = [](bool b) { return b ? "yes" : "no"; };
  out << "  [" << device.platformIndex << "." << device.deviceIndex << "] " << device.name << "\n      UUID "
      << (device.hasUuid ? formatUuid(device.uuid) : std::string("unknown (no cl_khr_device_uuid)"))
      << "\n      ";
  for (size_t i = 0; i < std::size(kOpenClInteropExtensions); ++i)
    out << (i ? ", " : "") << kOpenClInteropExtensions[i] << " "
        << yesNo(i < device.interopExtensions.size() && device.interopExtensions[i]);
  out << "\n      opaque-fd import: memory " << yesNo(device.importsOpaqueFdMemory) << ", semaphores "
      << yesNo(device.importsOpaqueFdSemaphores) << "; binary semaphores " << yesNo(device.binarySemaphores)
      << "\n";
}

}  // namespace

std::string describeOpenClDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const OpenClDeviceList& opencl) {
  std::ostringstream out;
  describeOpenClLoader(out, opencl.loader);
  out << "OpenCL devices:\n";
  if (opencl.devices.empty()) out << "  (none: " << opencl.unavailableReason << ")\n";
  std::vector<bool> shown(opencl.devices.size(), false);
  for (const OpenClPlatformInfo& platform : opencl.platforms) {
    out << "  platform " << platform.index << " '" << platform.name << "' (" << platform.version << ")";
    for (const std::string& problem : platform.problems) out << "; " << problem;
    out << "\n";
    for (size_t i = 0; i < opencl.devices.size(); ++i)
      if (opencl.devices[i].platformIndex == platform.index) {
        describeOpenClDevice(out, opencl.devices[i]);
        shown[i] = true;
      }
  }
  for (size_t i = 0; i < opencl.devices.size(); ++i)
    if (!shown[i]) describeOpenClDevice(out, opencl.devices[i]);
  out << "Pairs with OpenCL (same UUID) and the checks that let them share memory and semaphores:\n";
  bool anyPair = false;
  for (const PhysicalDeviceInfo& vulkanDevice : vulkan)
    for (const OpenClDeviceInfo& device : opencl.devices) {
      if (!device.hasUuid || device.uuid != vulkanDevice.deviceUuid) continue;  // by UUID (rule O6)
      anyPair = true;
      const bool ok = firstOpenClPairingProblem(vulkanDevice, device).empty();
      out << "  Vulkan [" << vulkanDevice.index << "] <-> OpenCL [" << device.platformIndex << "." << device.deviceIndex
          << "] " << device.name << ": " << (ok ? "OpenCL backend available" : "OpenCL backend unavailable") << "\n";
      for (const PairingCheck& check : checkOpenClPairing(vulkanDevice, device))
        out << "      " << (check.passed ? "[ok]   " : "[FAIL] ") << check.name << " (" << check.detail << ")\n";
    }
  if (!anyPair) out << "  (none: --backend opencl is unavailable)\n";
  return out.str();
}

}  // namespace vksim
