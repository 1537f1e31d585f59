// Which devices may be asked about a window's X display (renderer/display_check.h)
// and what a windowed run does when its device may not (app/ui/present_check.h):
// no X server and no GPU needed, the display's traits are given.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/ui/present_check.h"
#include "base/result.h"

namespace vksim {
namespace {

PhysicalDeviceInfo displayTestDevice(uint32_t index, const char* name, VkDriverId driver, uint8_t uuidByte) {
  PhysicalDeviceInfo d;
  d.index = index;
  d.name = name;
  d.type = driver == VK_DRIVER_ID_MESA_LLVMPIPE ? VK_PHYSICAL_DEVICE_TYPE_CPU
                                                : VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
  d.driverId = driver;
  d.deviceUuid.fill(uuidByte);
  d.timelineSemaphores = d.hasGraphicsQueue = true;
  d.externalMemoryFd = d.vertexBufferExportable = true;
  d.externalSemaphoreFd = d.timelineExportable = d.binaryExportable = true;
  d.deviceGroupSize = 1;
  return d;
}

const PhysicalDeviceInfo kDisplayNvidia =
    displayTestDevice(0, "NVIDIA H200", VK_DRIVER_ID_NVIDIA_PROPRIETARY, 0xAB);
const PhysicalDeviceInfo kDisplayLlvmpipe =
    displayTestDevice(1, "llvmpipe", VK_DRIVER_ID_MESA_LLVMPIPE, 0x11);

// An Xvfb, an ssh -X display, a VNC server: X, but neither NVIDIA's nor Xwayland.
DisplayTraits foreignDisplay() {
  return {":77", false, false};
}

CudaDeviceList cudaPairedWithNvidia() {
  CudaDeviceList list;
  CudaDeviceInfo d;
  d.name = "NVIDIA H200";
  d.uuid.fill(0xAB);
  d.timelineSemaphoreInterop = true;
  list.devices.push_back(d);
  return list;
}

InteropConfig configFor(BackendChoice backend, const std::string& device = "") {
  InteropConfig config;
  config.backend = backend;
  config.device = device;
  return config;
}

TEST(DisplayCheck, NvidiasDriverIsRefusedOnAnXServerThatIsNotNvidias) {
  const std::string problem = displayProblem(kDisplayNvidia, foreignDisplay());
  EXPECT_NE(problem.find(":77"), std::string::npos) << problem;
  EXPECT_NE(problem.find("NV-GLX"), std::string::npos) << problem;
}

TEST(DisplayCheck, NvidiasXDriverXwaylandAndOtherDriversAreNeverRefused) {
  EXPECT_EQ(displayProblem(kDisplayNvidia, {":0", true, false}), "");  // NVIDIA's X screen, PRIME offload
  EXPECT_EQ(displayProblem(kDisplayNvidia, {":0", false, true}), "");  // Xwayland
  EXPECT_EQ(displayProblem(kDisplayNvidia, {"", false, false}), "");   // not X11: nothing to ask
  EXPECT_EQ(displayProblem(kDisplayLlvmpipe, foreignDisplay()), "");
}

TEST(DisplayCheck, TheUsersSkipLetsNvidiasDriverBeAskedOnAnyXServer) {
  DisplayTraits skipped = foreignDisplay();
  skipped.checkSkipped = true;  // VKSIM_SKIP_DISPLAY_CHECK=1
  EXPECT_EQ(displayProblem(kDisplayNvidia, skipped), "");
  const std::vector<PhysicalDeviceInfo> devices{kDisplayNvidia, kDisplayLlvmpipe};
  const DeviceChoice paired = chooseDevices(devices, cudaPairedWithNvidia(), BackendChoice::cuda, "");
  const DeviceChoice kept =
      chooseDeviceForDisplay(paired, devices, cudaPairedWithNvidia(), configFor(BackendChoice::cuda), skipped);
  EXPECT_EQ(kept.vulkan.index, 0u);
  EXPECT_EQ(kept.backend, Backend::cuda);
}

TEST(DisplayCheck, CudaBackendOnAForeignXServerIsOneLineWithWhatToDo) {
  const std::vector<PhysicalDeviceInfo> devices{kDisplayNvidia, kDisplayLlvmpipe};
  const DeviceChoice paired = chooseDevices(devices, cudaPairedWithNvidia(), BackendChoice::cuda, "");
  try {
    chooseDeviceForDisplay(paired, devices, cudaPairedWithNvidia(), configFor(BackendChoice::cuda),
                           foreignDisplay());
    FAIL() << "a CUDA run on NVIDIA's device went on to an X server NVIDIA cannot present to";
  } catch (const EnvironmentError& error) {
    const std::string line = error.what();
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    for (const char* part :
         {"Vulkan device 0 'NVIDIA H200'", "CUDA device 0", "display :77", "NV-GLX", "--headless",
          "__NV_PRIME_RENDER_OFFLOAD=1", "__VK_LAYER_NV_optimus=NVIDIA_only", "VKSIM_SKIP_DISPLAY_CHECK=1"})
      EXPECT_NE(line.find(part), std::string::npos) << part << " missing from: " << line;
  }
}

TEST(DisplayCheck, AutoMovesToADeviceThatMayPresentWithTheCpuBackendAndSaysSo) {
  const std::vector<PhysicalDeviceInfo> devices{kDisplayNvidia, kDisplayLlvmpipe};
  const DeviceChoice paired = chooseDevices(devices, cudaPairedWithNvidia(), BackendChoice::automatic, "");
  ASSERT_EQ(paired.backend, Backend::cuda);
  const DeviceChoice moved = chooseDeviceForDisplay(paired, devices, cudaPairedWithNvidia(),
                                                    configFor(BackendChoice::automatic), foreignDisplay());
  EXPECT_EQ(moved.backend, Backend::cpu);
  EXPECT_EQ(moved.vulkan.index, 1u);
  EXPECT_FALSE(moved.cuda);
  for (const char* part : {"backend auto -> cpu", "Vulkan device 0 'NVIDIA H200'", "display :77",
                           "rendering on Vulkan device 1 'llvmpipe'", "--headless"})
    EXPECT_NE(moved.reason.find(part), std::string::npos) << part << " missing from: " << moved.reason;
}

TEST(DisplayCheck, AutoDoesNotMoveWhatWasAskedForOrWhenNothingElseRenders) {
  const std::vector<PhysicalDeviceInfo> both{kDisplayNvidia, kDisplayLlvmpipe};
  const DeviceChoice paired = chooseDevices(both, cudaPairedWithNvidia(), BackendChoice::automatic, "");
  InteropConfig cudaMemory = configFor(BackendChoice::automatic);
  cudaMemory.memoryOwner = MemoryOwner::cuda;
  const std::vector<PhysicalDeviceInfo> nvidiaOnly{kDisplayNvidia};
  const struct {
    std::vector<PhysicalDeviceInfo> devices;
    InteropConfig config;
  } cases[] = {{both, configFor(BackendChoice::automatic, "0")},
               {both, cudaMemory},
               {nvidiaOnly, configFor(BackendChoice::automatic)}};
  for (const auto& c : cases)
    EXPECT_THROW(
        chooseDeviceForDisplay(paired, c.devices, cudaPairedWithNvidia(), c.config, foreignDisplay()),
        EnvironmentError);
}

TEST(DisplayCheck, AChoiceThatMayPresentIsKeptAsItIs) {
  const std::vector<PhysicalDeviceInfo> devices{kDisplayNvidia, kDisplayLlvmpipe};
  const DeviceChoice paired = chooseDevices(devices, cudaPairedWithNvidia(), BackendChoice::cuda, "");
  const DeviceChoice kept = chooseDeviceForDisplay(paired, devices, cudaPairedWithNvidia(),
                                                   configFor(BackendChoice::cuda), {":0", true, false});
  EXPECT_EQ(kept.backend, Backend::cuda);
  EXPECT_EQ(kept.vulkan.index, 0u);
  EXPECT_EQ(kept.reason, paired.reason);
}

}  // namespace
}  // namespace vksim
