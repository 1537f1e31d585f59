// Everything the CUDA path needs from Vulkan, on the devices that can export
// it: only NVIDIA's driver exports semaphores as opaque fds (lavapipe cannot),
// so this lives with the GPU tests and fails, rather than skips, when the
// machine has a CUDA device but no Vulkan device that exports.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "gpu_environment.h"
#include "renderer/frame_sync.h"
#include "app/interop/host_semaphores.h"
#include "renderer/readback.h"
#include "shared_layout.h"
#include "vulkan_test_support.h"

namespace vksim {
namespace {

constexpr uint64_t kSecondNs = 1'000'000'000ull;

TEST(RendererExport, CapableDevicesExportEverySharedResource) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  ValidationWatch watch;
  InstanceOptions instanceOptions;
  instanceOptions.validation = instanceOptions.synchronizationValidation = true;
  Instance instance = createInstance(instanceOptions);
  EXPECT_TRUE(instance.validation) << "the validation layer is not installed";
  EXPECT_TRUE(instance.synchronizationValidation);
  int tested = 0;
  for (const PhysicalDeviceInfo& info : listPhysicalDevices(instance)) {
    std::printf(
        "device %u: %s (%s), driver %s %s, Vulkan %s, memory export %d, "
        "timeline export %d, binary export %d\n",
        info.index, info.name.c_str(), deviceTypeName(info.type), info.driverName.c_str(),
        formatDriverVersion(info).c_str(), formatVersion(info.apiVersion).c_str(),
        info.vertexBufferExportable, info.timelineExportable, info.binaryExportable);
    if (!(info.externalMemoryFd && info.externalSemaphoreFd && info.vertexBufferExportable &&
          info.timelineExportable && info.binaryExportable))
      continue;
    ++tested;
    DeviceOptions options;
    options.exportMemory = true;
    options.exportSemaphores = true;
    Device device = createDevice(instance, info, options);

    SyncSemaphores semaphores = createSyncSemaphores(device, true);
    EXPECT_TRUE(semaphores.exportable);
    for (VkSemaphore semaphore : {semaphores.timeline, semaphores.renderDone, semaphores.simDone}) {
      const int fd = exportSemaphoreFd(device, semaphore);
      EXPECT_GE(fd, 0);
      if (fd >= 0) close(fd);  // never imported: still ours
    }
    {
      // The host side of the schedule on exported semaphores.
      VulkanHostSemaphores host(device, semaphores);
      host.signalTimeline(1);
      EXPECT_TRUE(host.waitTimeline(1, kSecondNs));
      const SemaphoreSignal renderDone{semaphores.renderDone, 0};
      submitToQueue(device, VK_NULL_HANDLE, {}, {&renderDone, 1}, VK_NULL_HANDLE);
      EXPECT_TRUE(host.waitRenderDone(5 * kSecondNs));
      host.signalSimDone();
      const SemaphoreWait simDone{semaphores.simDone, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT};
      submitToQueue(device, VK_NULL_HANDLE, {&simDone, 1}, {}, VK_NULL_HANDLE);
      VK_CHECK(vkDeviceWaitIdle(device.device));
    }

    const VkDeviceSize size = 32 * 32 * sizeof(Vertex);
    SharedVertexBuffer exported = createSharedVertexBuffer(device, size, VertexMemory::deviceLocal, true);
    EXPECT_TRUE(exported.dedicated);
    EXPECT_GE(exported.allocationSize, size);
    const std::vector<uint8_t> pattern = testPattern(size, 3);
    runOneTimeCommands(device, [&](VkCommandBuffer commandBuffer) {
      vkCmdUpdateBuffer(commandBuffer, exported.buffer, 0, size, pattern.data());
    });
    ImportedBuffer imported = importBuffer(device, exportMemoryFd(device, exported), exported);
    EXPECT_EQ(readBuffer(device, imported.buffer, size), pattern) << info.name;
    destroyImportedBuffer(device, imported);
    destroySharedVertexBuffer(device, exported);
    destroySyncSemaphores(device, semaphores);
    destroyDevice(device);
  }
  destroyInstance(instance);
  EXPECT_EQ(watch.newWarnings(), 0u);
  EXPECT_EQ(watch.newErrors(), 0u);
  // A CUDA device is here (checked above): the Vulkan device that pairs with
  // it must be able to export, or the CUDA backend cannot run at all.
  EXPECT_GE(tested, 1)
      << "a CUDA device is present but no Vulkan device exports memory and semaphores as opaque fds";
}

}  // namespace
}  // namespace vksim
