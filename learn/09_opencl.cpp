// Step 9: OpenCL in CUDA's place. The same exported buffer and two binary
// semaphores as in step 3, imported by OpenCL instead: every round Vulkan
// signals, an OpenCL queue waits, acquires the buffer, runs a kernel,
// releases the buffer and signals; Vulkan waits, acquires, copies the buffer
// out, and the CPU checks every value.
//
// New against the CUDA steps:
//   - the OpenCL device is found by the Vulkan device's UUID
//     (cl_khr_device_uuid: CL_DEVICE_UUID_KHR), among devices that offer
//     cl_khr_external_memory_opaque_fd and cl_khr_external_semaphore_opaque_fd
//     (D1). The Vulkan device is step 1's pair: NVIDIA's proprietary
//     driver, which opaque fds need (D4);
//   - the buffer is imported by clCreateBufferWithProperties with
//     CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR and the one device that will use
//     it, over the whole allocation (M1). OpenCL has no dedicated flag: where
//     the driver wants the buffer's allocation dedicated (step 2's M5),
//     OpenCL cannot be told, and that driver must find it out from the fd
//     itself (step 2's last line says whether this driver asks). The fd
//     is OpenCL's after a successful import (O1, M7);
//   - each semaphore is imported at creation (clCreateSemaphoreWithPropertiesKHR,
//     an extension function asked of the platform with
//     clGetExtensionFunctionAddressForPlatform): a permanent import with
//     reference transference (O1, O2, O4);
//   - OpenCL uses the buffer only between clEnqueueAcquireExternalMemObjectsKHR
//     and clEnqueueReleaseExternalMemObjectsKHR; they hand ownership over, they
//     do not wait for Vulkan: the semaphore wait in front does (O9-O11);
//   - binary semaphores only (cl_khr_semaphore has no timeline here), so S4
//     rules again: every wait is enqueued after its signal, and OpenCL's
//     signal is flushed (clFlush) before Vulkan's wait is submitted.
// Exit 3 when no OpenCL device has the extensions and the UUID.
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <string>

#define LEARN_STEP 9
#include "common/earlier.h"

constexpr uint32_t kValueCount = 1u << 16;
constexpr uint32_t kRounds = 16;

// The host's copy of what the kernel computes (uint arithmetic wraps alike).
inline uint32_t expectedValue(uint32_t round, uint32_t i) {
  return (round + 1) * 2654435761u ^ i * 40503u;
}

const char* kKernelSource = R"(
__kernel void writeRoundKernel(__global uint* values, uint count, uint round) {
  const uint i = get_global_id(0);
  if (i < count) values[i] = (round + 1) * 2654435761u ^ i * 40503u;
})";

#define CL_CHECK(call)                                                                           \
  do {                                                                                           \
    const cl_int clCheckStatus = (call);                                                         \
    if (clCheckStatus != CL_SUCCESS)                                                             \
      exitWith(kExitCheckFailed, "%s:%d: %s failed: OpenCL error %d", __FILE__, __LINE__, #call, \
               clCheckStatus);                                                                   \
  } while (0)

std::string deviceString(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(device, what, 0, nullptr, &size));
  std::string text(size, '\0');
  CL_CHECK(clGetDeviceInfo(device, what, size, text.data(), nullptr));
  return text.c_str();  // without the terminating zero
}

// A KHR extension function belongs to the platform that runs it (cl_khr_icd).
template <typename Function>
void loadExtension(cl_platform_id platform, const char* name, Function* function) {
  *function = reinterpret_cast<Function>(clGetExtensionFunctionAddressForPlatform(platform, name));
  if (*function == nullptr) exitWith(kExitMissing, "the OpenCL platform has no %s", name);
}

struct ClDevice {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

// 1. The OpenCL device that is the Vulkan device (O6, D1): the first one
//    whose CL_DEVICE_UUID_KHR equals `uuid` among those with the extensions.
//    Exit 3 when there is none.
ClDevice findOpenClDevice(const uint8_t* uuid, const std::string& name) {
  cl_uint platformCount = 0;
  if (clGetPlatformIDs(0, nullptr, &platformCount) != CL_SUCCESS)
    platformCount = 0;  // none: CL_PLATFORM_NOT_FOUND_KHR
  std::vector<cl_platform_id> platforms(platformCount);
  if (platformCount > 0) CL_CHECK(clGetPlatformIDs(platformCount, platforms.data(), nullptr));
  ClDevice found;
  uint32_t looked = 0;
  for (cl_platform_id candidate : platforms) {
    cl_uint count = 0;
    if (clGetDeviceIDs(candidate, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS) continue;
    std::vector<cl_device_id> devices(count);
    CL_CHECK(clGetDeviceIDs(candidate, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr));
    for (cl_device_id each : devices) {
      ++looked;
      const std::string extensions = " " + deviceString(each, CL_DEVICE_EXTENSIONS) + " ";
      bool offers = true;
      for (const char* needed : {" cl_khr_device_uuid ", " cl_khr_external_memory ", " cl_khr_semaphore ",
                                 " cl_khr_external_memory_opaque_fd ", " cl_khr_external_semaphore ",
                                 " cl_khr_external_semaphore_opaque_fd "})
        offers = offers && extensions.find(needed) != std::string::npos;
      cl_uchar id[CL_UUID_SIZE_KHR] = {};
      if (offers) CL_CHECK(clGetDeviceInfo(each, CL_DEVICE_UUID_KHR, sizeof(id), id, nullptr));
      if (offers && std::memcmp(id, uuid, VK_UUID_SIZE) == 0 && found.device == nullptr)
        found = {candidate, each};
    }
  }
  if (found.device == nullptr)
    exitWith(kExitMissing,
             "no OpenCL device with cl_khr_device_uuid, cl_khr_external_memory(_opaque_fd), cl_khr_semaphore "
             "and cl_khr_external_semaphore(_opaque_fd) is %s (%u platforms, %u devices looked at)",
             name.c_str(), platformCount, looked);
  return found;
}

// The extension entry points (cl_khr_external_semaphore, cl_khr_external_memory).
struct ClExtensions {
  clCreateSemaphoreWithPropertiesKHR_fn createSemaphore = nullptr;
  clEnqueueWaitSemaphoresKHR_fn enqueueWait = nullptr;
  clEnqueueSignalSemaphoresKHR_fn enqueueSignal = nullptr;
  clReleaseSemaphoreKHR_fn releaseSemaphore = nullptr;
  clEnqueueAcquireExternalMemObjectsKHR_fn enqueueAcquire = nullptr;
  clEnqueueReleaseExternalMemObjectsKHR_fn enqueueRelease = nullptr;
};

ClExtensions loadExtensions(cl_platform_id platform) {
  ClExtensions x;
  loadExtension(platform, "clCreateSemaphoreWithPropertiesKHR", &x.createSemaphore);
  loadExtension(platform, "clEnqueueWaitSemaphoresKHR", &x.enqueueWait);
  loadExtension(platform, "clEnqueueSignalSemaphoresKHR", &x.enqueueSignal);
  loadExtension(platform, "clReleaseSemaphoreKHR", &x.releaseSemaphore);
  loadExtension(platform, "clEnqueueAcquireExternalMemObjectsKHR", &x.enqueueAcquire);
  loadExtension(platform, "clEnqueueReleaseExternalMemObjectsKHR", &x.enqueueRelease);
  return x;
}

// Exports `semaphore` (binary) as a new opaque fd and imports it into OpenCL
// at creation: a permanent import with reference transference (O1, O2, O4).
// The fd is OpenCL's after a successful import (M7), closed here if not (M8).
cl_semaphore_khr importSemaphore(const ClExtensions& cl, cl_context context, const Device& device,
                                 VkSemaphore semaphore) {
  auto getSemaphoreFd =
      reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device.device, "vkGetSemaphoreFdKHR"));
  VkSemaphoreGetFdInfoKHR fdInfo{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  fdInfo.semaphore = semaphore;
  fdInfo.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  VK_CHECK(getSemaphoreFd(device.device, &fdInfo, &fd));
  const cl_semaphore_properties_khr properties[] = {CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
                                                    CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
                                                    cl_semaphore_properties_khr(fd), 0};
  cl_int status = CL_SUCCESS;
  cl_semaphore_khr result = cl.createSemaphore(context, properties, &status);
  if (status != CL_SUCCESS) close(fd);
  CL_CHECK(status);
  return result;
}

// The objects every round uses (created in main; destroyed at its end).
struct Rig {
  Device device;
  ExportedBuffer shared;
  HostBuffer host;
  OneShot oneShot;
  OneShot release;
  VkSemaphore vulkanDone, openclDone;
  ClExtensions cl;
  cl_command_queue queue;
  cl_kernel kernel;
  cl_mem clShared;
  cl_semaphore_khr clVulkanDone, clOpenclDone;
};

// Round k: Vulkan releases (k > 0) and signals vulkanDone; OpenCL waits,
// acquires, writes, releases, signals openclDone; Vulkan waits, acquires and
// copies; the CPU checks. Returns the values checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const Device& device = rig.device;
  // 4. Vulkan releases what round k-1's copy read (step 5) and signals vulkanDone.
  if (round > 0)
    recordBufferRelease(beginOneShot(rig.release), rig.shared.buffer, device.queueFamily,
                        VK_PIPELINE_STAGE_TRANSFER_BIT);
  submitSignal(device, round > 0 ? &rig.release : nullptr, rig.vulkanDone, nullptr);  // binary: no value

  // 5. OpenCL, after that signal was submitted (S4): wait, acquire, write,
  //    release, signal (O9-O11), and flush, so that the signal reaches the
  //    device before Vulkan waits for it.
  CL_CHECK(rig.cl.enqueueWait(rig.queue, 1, &rig.clVulkanDone, nullptr, 0, nullptr, nullptr));
  CL_CHECK(rig.cl.enqueueAcquire(rig.queue, 1, &rig.clShared, 0, nullptr, nullptr));
  const cl_uint count = kValueCount;
  CL_CHECK(clSetKernelArg(rig.kernel, 0, sizeof(cl_mem), &rig.clShared));
  CL_CHECK(clSetKernelArg(rig.kernel, 1, sizeof(cl_uint), &count));
  CL_CHECK(clSetKernelArg(rig.kernel, 2, sizeof(cl_uint), &round));
  const size_t global = kValueCount;
  CL_CHECK(clEnqueueNDRangeKernel(rig.queue, rig.kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr));
  CL_CHECK(rig.cl.enqueueRelease(rig.queue, 1, &rig.clShared, 0, nullptr, nullptr));
  if (!breaking("no-signal"))  // BROKEN: Vulkan then waits for a signal that never comes
    CL_CHECK(rig.cl.enqueueSignal(rig.queue, 1, &rig.clOpenclDone, nullptr, 0, nullptr, nullptr));
  CL_CHECK(clFlush(rig.queue));

  // 6. Vulkan waits for openclDone at ALL_COMMANDS, acquires (M21), copies out.
  VkCommandBuffer commands = beginOneShot(rig.oneShot);
  recordBufferAcquire(commands, rig.shared.buffer, device.queueFamily, VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT);
  recordReadBack(commands, rig.shared.buffer, rig.host, rig.shared.size);
  submitWaitingFor(device, rig.oneShot, rig.openclDone, nullptr);  // binary: no value

  const auto* values = static_cast<const uint32_t*>(rig.host.mapped);
  uint32_t checked = 0;
  for (uint32_t i = 0; i < kValueCount; ++i, ++checked)
    EXPECT_OR_EXIT(values[i] == expectedValue(round, i), "round %u: value %u is 0x%08x, expected 0x%08x",
                   round, i, values[i], expectedValue(round, i));
  return checked;
}

int main(int argc, char** argv) {
  gStepName = "learn 09";
  parseArguments(argc, argv, {{"no-signal", "OpenCL never signals openclDone: Vulkan's wait ends at the 10 s bound"}});
  Instance instance = createInstance();
  const Pair pair = pairDevices(instance.instance);
  Device device = createDevice(
      pair, {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME});  // M18
  VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &id};
  vkGetPhysicalDeviceProperties2(pair.physical, &properties);
  const auto [platform, clDevice] = findOpenClDevice(id.deviceUUID, pair.name);
  const ClExtensions cl = loadExtensions(platform);

  // 2. A context, an in-order queue (wait, acquire, kernel, release, signal
  //    run in the order enqueued), and the kernel.
  cl_int status = CL_SUCCESS;
  const cl_context_properties contextProperties[] = {CL_CONTEXT_PLATFORM, cl_context_properties(platform), 0};
  cl_context context = clCreateContext(contextProperties, 1, &clDevice, nullptr, nullptr, &status);
  CL_CHECK(status);
  cl_command_queue queue = clCreateCommandQueueWithProperties(context, clDevice, nullptr, &status);
  CL_CHECK(status);
  cl_program program = clCreateProgramWithSource(context, 1, &kKernelSource, nullptr, &status);
  CL_CHECK(status);
  CL_CHECK(clBuildProgram(program, 1, &clDevice, "", nullptr, nullptr));
  cl_kernel kernel = clCreateKernel(program, "writeRoundKernel", &status);
  CL_CHECK(status);

  // 3. Vulkan's buffer and semaphores, exported as in steps 2 and 3; OpenCL
  //    imports each fd, which is OpenCL's once the import succeeded.
  const VkDeviceSize size = kValueCount * sizeof(uint32_t);
  ExportedBuffer shared = createExportedBuffer(pair, device, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
  int memoryFd = exportMemoryFd(device, shared.memory);
  const cl_mem_properties memoryProperties[] = {CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR,
                                                cl_mem_properties(memoryFd),
                                                CL_DEVICE_HANDLE_LIST_KHR,
                                                cl_mem_properties(clDevice),
                                                CL_DEVICE_HANDLE_LIST_END_KHR,
                                                0};
  cl_mem clShared = clCreateBufferWithProperties(context, memoryProperties, CL_MEM_READ_WRITE,
                                                 size_t(shared.allocationSize), nullptr, &status);
  if (status != CL_SUCCESS) close(memoryFd);  // a failed import leaves the fd with us (M8)
  CL_CHECK(status);
  const VkSemaphore vulkanDone = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_BINARY);
  const VkSemaphore openclDone = createExportedSemaphore(pair, device, VK_SEMAPHORE_TYPE_BINARY);
  cl_semaphore_khr clSemaphores[2] = {importSemaphore(cl, context, device, vulkanDone),
                                      importSemaphore(cl, context, device, openclDone)};
  HostBuffer host = createHostBuffer(pair, device, size);
  OneShot oneShot = createOneShot(device);
  OneShot release = createOneShot(device);  // its buffer holds the release; its fence stays unused

  const Rig rig{device, shared, host,   oneShot,  release,         vulkanDone,     openclDone,
                cl,     queue,  kernel, clShared, clSemaphores[0], clSemaphores[1]};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);

  // Teardown: the OpenCL queue finished (nothing pending on the semaphores,
  // O3, S17), OpenCL's imports go before Vulkan frees what they refer to (M14).
  const std::string clName = deviceString(clDevice, CL_DEVICE_NAME);
  CL_CHECK(clFinish(queue));
  for (cl_semaphore_khr semaphore : clSemaphores) CL_CHECK(cl.releaseSemaphore(semaphore));
  CL_CHECK(clReleaseMemObject(clShared));
  CL_CHECK(clReleaseKernel(kernel));
  CL_CHECK(clReleaseProgram(program));
  CL_CHECK(clReleaseCommandQueue(queue));
  CL_CHECK(clReleaseContext(context));
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, vulkanDone, nullptr);
  vkDestroySemaphore(device.device, openclDone, nullptr);
  destroyOneShot(device, release);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroyExportedBuffer(device, shared);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(9, std::to_string(kRounds) + " rounds, " + std::to_string(checked) +
                           " values written by OpenCL (" + clName +
                           ") read back by Vulkan; 2 binary semaphores, every wait after its signal; "
                           "the full program: README.md, docs/interop-walkthrough.md");
}
