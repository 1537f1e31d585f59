#include <gtest/gtest.h>

#include "app/devices.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

PhysicalDeviceInfo vulkanDevice(uint32_t index, const char* name, VkPhysicalDeviceType type, uint8_t uuidByte,
                                bool exports) {
  PhysicalDeviceInfo d;
  d.index = index;
  d.name = name;
  d.type = type;
  d.deviceUuid.fill(uuidByte);
  d.timelineSemaphores = d.hasGraphicsQueue = true;
  d.externalMemoryFd = d.vertexBufferExportable = exports;
  d.externalSemaphoreFd = d.timelineExportable = d.binaryExportable = exports;
  return d;
}

CudaDeviceList cudaWith(uint8_t uuidByte) {
  CudaDeviceList list;
  CudaDeviceInfo d;
  d.name = "NVIDIA H200";
  d.uuid.fill(uuidByte);
  list.devices.push_back(d);
  return list;
}

CudaDeviceList noCuda() {
  CudaDeviceList list;
  list.unavailableReason = "cudaErrorNoDevice";
  return list;
}

const PhysicalDeviceInfo kNvidia = vulkanDevice(0, "NVIDIA H200", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, 0xAB, true);
const PhysicalDeviceInfo kLavapipe = vulkanDevice(1, "llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU, 0x11, true);

TEST(DeviceChoice, CudaPairsByUuidWhateverTheEnumerationOrder) {
  PhysicalDeviceInfo lavapipeFirst = kLavapipe, nvidiaSecond = kNvidia;
  lavapipeFirst.index = 0;
  nvidiaSecond.index = 1;
  for (const auto& list : {std::vector{kNvidia, kLavapipe}, std::vector{lavapipeFirst, nvidiaSecond}}) {
    const DeviceChoice choice = chooseDevices(list, cudaWith(0xAB), BackendChoice::cuda, "");
    EXPECT_TRUE(choice.useCuda);
    EXPECT_EQ(choice.vulkan.name, "NVIDIA H200");
    ASSERT_TRUE(choice.cuda);
    EXPECT_EQ(choice.cuda->uuid, choice.vulkan.deviceUuid);
  }
}

TEST(DeviceChoice, DeviceNamingLavapipeWithCudaBackendIsAnEnvironmentError) {
  try {
    chooseDevices({kNvidia, kLavapipe}, cudaWith(0xAB), BackendChoice::cuda, "1");
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("llvmpipe"), std::string::npos) << message;
    EXPECT_NE(message.find("NVIDIA H200"), std::string::npos) << message;
  }
}

TEST(DeviceChoice, CudaBackendWithoutCudaDeviceSaysWhy) {
  try {
    chooseDevices({kLavapipe}, noCuda(), BackendChoice::cuda, "");
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& error) {
    EXPECT_NE(std::string(error.what()).find("cudaErrorNoDevice"), std::string::npos);
  }
}

TEST(DeviceChoice, AutoPicksCudaOnlyWhenAPairCanExport) {
  EXPECT_TRUE(chooseDevices({kLavapipe, kNvidia}, cudaWith(0xAB), BackendChoice::automatic, "").useCuda);
  PhysicalDeviceInfo noExport = kNvidia;
  noExport.timelineExportable = false;
  const DeviceChoice fallback = chooseDevices({noExport}, cudaWith(0xAB), BackendChoice::automatic, "");
  EXPECT_FALSE(fallback.useCuda);
  EXPECT_NE(fallback.reason.find("cpu"), std::string::npos);
  const DeviceChoice none = chooseDevices({kLavapipe}, noCuda(), BackendChoice::automatic, "");
  EXPECT_FALSE(none.useCuda);
  EXPECT_NE(none.reason.find("cudaErrorNoDevice"), std::string::npos);
}

TEST(DeviceChoice, CpuBackendPrefersDiscreteAndHonoursDevice) {
  EXPECT_EQ(chooseDevices({kLavapipe, kNvidia}, noCuda(), BackendChoice::cpu, "").vulkan.name, "NVIDIA H200");
  EXPECT_EQ(chooseDevices({kNvidia, kLavapipe}, noCuda(), BackendChoice::cpu, "1").vulkan.name, "llvmpipe");
  EXPECT_EQ(chooseDevices({kNvidia, kLavapipe}, noCuda(), BackendChoice::cpu, formatUuid(kLavapipe.deviceUuid))
                .vulkan.name,
            "llvmpipe");
}

TEST(DeviceChoice, UnknownDeviceIndexOrUuidIsAnEnvironmentError) {
  EXPECT_THROW(chooseDevices({kLavapipe}, noCuda(), BackendChoice::cpu, "5"), EnvironmentError);
  EXPECT_THROW(chooseDevices({kLavapipe}, noCuda(), BackendChoice::cpu, "deadbeef"), EnvironmentError);
  EXPECT_THROW(chooseDevices({}, noCuda(), BackendChoice::cpu, ""), EnvironmentError);
}

TEST(DeviceChoice, ListNamesEveryDeviceAndThePairs) {
  const std::string text = describeDevices({kNvidia, kLavapipe}, cudaWith(0xAB));
  EXPECT_NE(text.find("llvmpipe"), std::string::npos);
  EXPECT_NE(text.find("Vulkan [0] <-> CUDA [0]"), std::string::npos) << text;
  EXPECT_EQ(text.find("Vulkan [1] <-> CUDA"), std::string::npos) << text;
}

}  // namespace
}  // namespace vksim
