// The OpenCL backend and the OpenCL device list, behind types that carry no
// OpenCL. OpenCL is loaded at run time (sim/opencl/opencl_api.h): a machine
// without the ICD loader, or without a platform that has the interop
// extensions, gets a sentence naming what is missing, never a failed start.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "sim/cuda/cuda_simulation.h"  // DeviceUuid, formatUuid (no CUDA types)
#include "sim/simulation.h"

namespace vksim {

// The device extensions the backend needs, in the order messages name them:
// external memory and semaphores with opaque fds (the import), binary
// semaphores (the schedule), and the device UUID (the pairing with Vulkan).
inline constexpr const char* kOpenClInteropExtensions[] = {
    "cl_khr_external_memory",    "cl_khr_external_memory_opaque_fd", "cl_khr_external_semaphore",
    "cl_khr_external_semaphore_opaque_fd", "cl_khr_semaphore", "cl_khr_device_uuid"};

struct OpenClDeviceInfo {
  int platformIndex = 0;  // in clGetPlatformIDs order
  int deviceIndex = 0;    // in the platform's clGetDeviceIDs(CL_DEVICE_TYPE_ALL) order
  std::string platformName, platformVersion;
  std::string name;
  bool hasUuid = false;  // cl_khr_device_uuid: uuid is CL_DEVICE_UUID_KHR
  DeviceUuid uuid{};
  // Which of kOpenClInteropExtensions the device reports, same order.
  std::vector<bool> interopExtensions;
  // The device lists CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR among its memory
  // import handle types, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR among its semaphore
  // import handle types, and CL_SEMAPHORE_TYPE_BINARY_KHR among its semaphore
  // types (each false when its extension is missing).
  bool importsOpaqueFdMemory = false;
  bool importsOpaqueFdSemaphores = false;
  bool binarySemaphores = false;
};

// One platform of clGetPlatformIDs, listed whether or not its devices could
// be: a platform that fails is reported, never the end of the list.
struct OpenClPlatformInfo {
  int index = 0;              // in clGetPlatformIDs order
  std::string name, version;  // CL_PLATFORM_NAME, CL_PLATFORM_VERSION ("" when unreadable)
  // Why the platform, or one of its devices, is missing from the device list,
  // one phrase each: "clGetDeviceIDs failed (CL_OUT_OF_HOST_MEMORY)",
  // "device 1: CL_DEVICE_EXTENSIONS unreadable (CL_INVALID_DEVICE)". Empty
  // when every device it has is listed.
  std::vector<std::string> problems;
};

// The ICD loader as this process found it: which file the dynamic linker
// opened, and the variables that decide which vendor ICDs it then loads.
struct OpenClLoaderInfo {
  std::string library;      // the name given to dlopen (kOpenClLibraryName or its override)
  std::string path;         // the file opened for it; "" when it could not be opened
  std::string description;  // the loader's own name and version (cl_loader_info), "" where it has none
  struct Variable {
    std::string name;
    bool set = false;
    std::string value;
  };
  // OCL_ICD_VENDORS, OCL_ICD_FILENAMES and OPENCL_VENDOR_PATH as this
  // process's environment has them.
  std::vector<Variable> variables;
};

struct OpenClDeviceList {
  std::vector<OpenClDeviceInfo> devices;
  // Every platform, devices or not, in clGetPlatformIDs order.
  std::vector<OpenClPlatformInfo> platforms;
  // Why the list is empty (no ICD loader, no platform, no device); "" otherwise.
  std::string unavailableReason;
  OpenClLoaderInfo loader;
};

// Every OpenCL device of every platform; never throws. Loads the ICD loader
// on first use (VKSIM_OPENCL_LIBRARY, base/config.h, names another library).
// A platform whose clGetDeviceIDs fails, and a device whose name or
// extensions cannot be read, are left out with the reason kept in
// OpenClPlatformInfo::problems; the other platforms are still listed.
OpenClDeviceList listOpenClDevices();

// The interop extensions and handle types that `device` lacks, as one phrase
// ("cl_khr_external_memory, cl_khr_semaphore"), or "" when it has them all.
std::string missingOpenClInterop(const OpenClDeviceInfo& device);

// OpenCL backend on `device` (which has everything missingOpenClInterop asks
// for): a context and an in-order queue on that device alone, the kernels
// built from their embedded OpenCL C source (a failed build's log goes to
// stderr, and the Error names the device), then the imports:
//   - vertices.fd with clCreateBufferWithProperties, CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR
//     and the device handle list, vertices.size bytes;
//   - semaphores.renderDoneFd and simDoneFd with clCreateSemaphoreWithPropertiesKHR,
//     CL_SEMAPHORE_TYPE_BINARY_KHR and CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR. The
//     timeline fd is never imported (cl_khr_semaphore has binary semaphores
//     only) and stays the caller's;
//   - with `texels` (null: no texture), texels->fd as the vertices are, a
//     buffer of at least surfaceTextureBytes(grid) bytes into which every
//     write of the vertices also writes the surface texture, every level
//     packed (sim/surface_texture.h), with the bytes of writeSurfaceTexture,
//     in the same turn and before the same signal.
// Each fd whose import succeeded is set to -1: from then on it is OpenCL's
// (simulation.h). Every fd left >= 0, on failure and success alike, is still
// the caller's, who closes it; this function closes none. On failure the
// Error is one sentence with exit code 3 (kExitEnvironment).
//
// Details the interface leaves open:
// - Binary mode only: a timeline step returns StepStatus::failed.
// - step() enqueues wait (clEnqueueWaitSemaphoresKHR on renderDone), acquire
//   (clEnqueueAcquireExternalMemObjectsKHR, the vertices and the texels),
//   kernels (the model's, then the texture's when the step advanced), release
//   (clEnqueueReleaseExternalMemObjectsKHR), signal (clEnqueueSignalSemaphoresKHR
//   on simDone), flushes the queue and returns; the host never blocks there.
//   writeInitialState() enqueues the same bracket without the wait and waits
//   (at most the default wait bound) for it to finish.
// - isStepComplete() asks the status of the last step's signal event.
// - The destructor waits (bounded) for the queue,
//   then releases buffers, semaphores, kernels, program, queue, context; if
//   the queue does not finish, the imported objects are left in place and a
//   sentence goes to stderr.
// - Parameters are clamped as clampModelParams (sim/models.h) says.
Result<std::unique_ptr<Simulation>> createOpenClSimulation(const ModelParams& params, const OpenClDeviceInfo& device,
                                                           ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                                                           ExternalBuffer* texels = nullptr);

// Copies the first `bytes` of the imported vertex buffer to host memory
// through OpenCL (acquire, read, release, after all enqueued steps), waiting
// at most timeoutNs. False for another backend, a failed simulation or a
// timeout. For tests that compare OpenCL's view of the memory with Vulkan's;
// call it while the buffer is released to VK_QUEUE_FAMILY_EXTERNAL.
bool copyOpenClVerticesToHost(Simulation& simulation, void* destination, uint64_t bytes, uint64_t timeoutNs);

}  // namespace vksim
