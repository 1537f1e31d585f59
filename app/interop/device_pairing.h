// Which Vulkan device renders and which backend simulates. This is where the
// Vulkan device list (renderer/) meets the CUDA device list (sim/): a CUDA
// device pairs with a Vulkan device when cudaDeviceProp::uuid equals
// VkPhysicalDeviceIDProperties::deviceUUID, and the pair can share memory and
// semaphores only when every check of checkPairing passes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/interop/interop_config.h"
#include "renderer/vulkan_context.h"
#include "sim/cuda/cuda_simulation.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim {

// The backend that runs, once chosen: one value, so that no two backends can
// be chosen at once, and never automatic. cpu, cuda and opencl submit their
// own steps; vulkan and cudaNvx record theirs into the render's own queue
// (sim/vulkan/render_queue_simulation.h). What each one is: its row of
// backendTable() (app/interop/interop_config.h).
using Backend = BackendChoice;

struct DeviceChoice {
  PhysicalDeviceInfo vulkan;
  Backend backend = Backend::cpu;
  std::optional<CudaDeviceInfo> cuda;      // the paired CUDA device, when backend is cuda
  std::optional<OpenClDeviceInfo> opencl;  // the paired OpenCL device, when backend is opencl
  std::string reason;                      // one line: why this backend and device
};

// "cuda", "opencl", "vulkan", "cuda-nvx" or "cpu": the backend that `choice` runs, as the summary
// line, captures and the bench name it.
const char* backendName(const DeviceChoice& choice);

// Whether the backend records its step into the render's own queue (vulkan, cuda-nvx).
bool inRenderQueue(Backend backend);

// Whether another API (CUDA or OpenCL) writes the vertex buffer: then the
// device must be able to export memory and semaphores.
bool sharesWithAnotherApi(Backend backend);



// Everything the CUDA backend needs of a Vulkan device: exportable memory and
// exportable timeline and binary semaphores.
bool canShareWithCuda(const PhysicalDeviceInfo& device);

// The CUDA device with the same UUID, if any.
std::optional<CudaDeviceInfo> pairedCudaDevice(const PhysicalDeviceInfo& vulkan, const CudaDeviceList& cuda);

// One condition for a Vulkan device and a CUDA device to share the vertex
// buffer and the semaphores through opaque fds.
struct PairingCheck {
  const char* name;  // short, for --list-devices: "same UUID", "device group of one", ...
  bool passed = false;
  std::string detail;  // what was found, e.g. "driverID 13 (VK_DRIVER_ID_MESA_LLVMPIPE)"
};

// Every check, in a fixed order: same UUID; the Vulkan device's group has one
// physical device (the CUDA Programming Guide's condition for importing
// Vulkan memory); the Vulkan driver is NVIDIA's proprietary one (an opaque fd
// means something only to the driver that made it); the CUDA compute mode is
// not prohibited; the CUDA device supports timeline-semaphore interop; the
// Vulkan device can export memory and both semaphore kinds (canShareWithCuda).
std::vector<PairingCheck> checkPairing(const PhysicalDeviceInfo& vulkan, const CudaDeviceInfo& cuda);

// Whether CUDA in Graphics (CIG) is offered for the pair, in one line: both
// the CUDA attribute (cudaDevAttrVulkanCigSupported) and the Vulkan extension
// (VK_NV_external_compute_queue) are needed; otherwise which is missing.
std::string describeCig(const PhysicalDeviceInfo& vulkan, const CudaDeviceInfo& cuda);

// The first failed check of checkPairing as "NAME: DETAIL", or empty when all pass.
std::string firstPairingProblem(const PhysicalDeviceInfo& vulkan, const CudaDeviceInfo& cuda);

// Applies --backend and --device to the two lists. The CUDA backend runs only
// on a pair that passes every check of checkPairing. Throws EnvironmentError
// (exit 3) with one sentence naming the devices and the failed check when
// --backend cuda cannot be met; --backend auto falls back to the CPU backend
// instead, and its reason names the failed check.
DeviceChoice chooseDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                           BackendChoice backend, const std::string& deviceArgument);

// chooseDevices for config.backend and config.device, except that
// --memory-owner cuda can only be met by the CUDA backend: auto then means
// cuda, and no CUDA device that pairs is EnvironmentError (exit 3), one
// sentence that begins "--memory-owner cuda". (--backend cpu with it was
// refused by parseCommandLine already.)
DeviceChoice chooseDevicesForMemoryOwner(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda,
                                         const InteropConfig& config);

// The --list-devices report: every device, and for each UUID pair every
// check of checkPairing with what was found.
std::string describeDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const CudaDeviceList& cuda);

// One condition for a Vulkan device and an OpenCL device to share the vertex
// buffer and the binary semaphores through opaque fds.
std::vector<PairingCheck> checkOpenClPairing(const PhysicalDeviceInfo& vulkan, const OpenClDeviceInfo& opencl);

// --backend opencl: the first OpenCL device (platform order, then device
// order, every platform's devices considered) whose CL_DEVICE_UUID_KHR equals
// the deviceUUID of the Vulkan device named by --device (else of any Vulkan
// device, in order) and that passes every check of checkOpenClPairing.
// Throws EnvironmentError (exit 3) with one line otherwise: the reason there
// is no OpenCL (no ICD loader, no platform), or, when nothing pairs, every
// platform with what each of its devices lacks and why anything was left out
// (a failed clGetDeviceIDs), and in both cases the ICD loader file that was
// opened and the ICD variables that are set.
DeviceChoice chooseOpenClDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const OpenClDeviceList& opencl,
                                 const std::string& deviceArgument);

// The OpenCL part of --list-devices: the ICD loader file and the variables
// that steer it (OCL_ICD_VENDORS, OCL_ICD_FILENAMES, OPENCL_VENDOR_PATH),
// every platform with its version and what failed on it, every device with
// its UUID and which interop extensions it has, and the pairs with Vulkan
// devices.
std::string describeOpenClDevices(const std::vector<PhysicalDeviceInfo>& vulkan, const OpenClDeviceList& opencl);

}  // namespace vksim
