#include <gtest/gtest.h>

#include <cctype>

#include "app/interop/device_pairing.h"
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
  d.deviceGroupSize = 1;
  d.driverId =
      type == VK_PHYSICAL_DEVICE_TYPE_CPU ? VK_DRIVER_ID_MESA_LLVMPIPE : VK_DRIVER_ID_NVIDIA_PROPRIETARY;
  return d;
}

CudaDeviceList cudaWith(uint8_t uuidByte) {
  CudaDeviceList list;
  CudaDeviceInfo d;
  d.name = "NVIDIA H200";
  d.uuid.fill(uuidByte);
  d.timelineSemaphoreInterop = true;
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
    EXPECT_EQ(choice.backend, Backend::cuda);
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
  EXPECT_EQ(chooseDevices({kLavapipe, kNvidia}, cudaWith(0xAB), BackendChoice::automatic, "").backend, Backend::cuda);
  PhysicalDeviceInfo noExport = kNvidia;
  noExport.timelineExportable = false;
  const DeviceChoice fallback = chooseDevices({noExport}, cudaWith(0xAB), BackendChoice::automatic, "");
  EXPECT_NE(fallback.backend, Backend::cuda);
  EXPECT_NE(fallback.reason.find("cpu"), std::string::npos);
  const DeviceChoice none = chooseDevices({kLavapipe}, noCuda(), BackendChoice::automatic, "");
  EXPECT_NE(none.backend, Backend::cuda);
  EXPECT_NE(none.reason.find("cudaErrorNoDevice"), std::string::npos);
}

TEST(DeviceChoice, CpuBackendPrefersDiscreteAndHonoursDevice) {
  EXPECT_EQ(chooseDevices({kLavapipe, kNvidia}, noCuda(), BackendChoice::cpu, "").vulkan.name, "NVIDIA H200");
  EXPECT_EQ(chooseDevices({kNvidia, kLavapipe}, noCuda(), BackendChoice::cpu, "1").vulkan.name, "llvmpipe");
  EXPECT_EQ(chooseDevices({kNvidia, kLavapipe}, noCuda(), BackendChoice::cpu, formatUuid(kLavapipe.deviceUuid))
                .vulkan.name,
            "llvmpipe");
}

// cuda-nvx launches CUDA kernels from a command buffer (VK_NVX_binary_import,
// bufferDeviceAddress) that write the texture through image view handles
// (VK_NVX_image_view_handle): a device without one of them is refused in one
// sentence that names what is missing.
TEST(DeviceChoice, CudaNvxNeedsBothNvxExtensionsAndNamesTheMissingOne) {
  PhysicalDeviceInfo full = kNvidia;
  full.nvxBinaryImport = full.nvxImageViewHandle = full.bufferDeviceAddress = true;
  EXPECT_EQ(chooseDevices({full}, noCuda(), BackendChoice::cudaNvx, "").backend, Backend::cudaNvx);
  const auto refusal = [](const PhysicalDeviceInfo& device) {
    try {
      chooseDevices({device}, noCuda(), BackendChoice::cudaNvx, "");
    } catch (const EnvironmentError& error) {
      return std::string(error.what());
    }
    return std::string("(chosen)");
  };
  PhysicalDeviceInfo noHandles = full;
  noHandles.nvxImageViewHandle = false;
  EXPECT_NE(refusal(noHandles).find("does not offer VK_NVX_image_view_handle"), std::string::npos)
      << refusal(noHandles);
  PhysicalDeviceInfo noImport = full;
  noImport.nvxBinaryImport = false;
  EXPECT_NE(refusal(noImport).find("does not offer VK_NVX_binary_import"), std::string::npos) << refusal(noImport);
  PhysicalDeviceInfo noAddress = full;
  noAddress.bufferDeviceAddress = false;
  EXPECT_NE(refusal(noAddress).find("bufferDeviceAddress"), std::string::npos) << refusal(noAddress);
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

// Each pairing check besides the UUID, broken on its own: --backend auto must
// fall back to the CPU naming the check, --backend cuda must refuse naming it,
// and --list-devices must show it failed. Removing a check from checkPairing
// makes its row fail.
struct BrokenPairing {
  const char* check;  // the name checkPairing gives it
  void (*breakVulkan)(PhysicalDeviceInfo&);
  void (*breakCuda)(CudaDeviceInfo&);
};

void keepVulkan(PhysicalDeviceInfo&) {}
void keepCuda(CudaDeviceInfo&) {}

class PairingCheckFails : public ::testing::TestWithParam<BrokenPairing> {};

TEST_P(PairingCheckFails, AutoFallsBackCudaRefusesAndTheListShowsIt) {
  PhysicalDeviceInfo vulkan = kNvidia;
  CudaDeviceList cuda = cudaWith(0xAB);
  GetParam().breakVulkan(vulkan);
  GetParam().breakCuda(cuda.devices[0]);
  ASSERT_EQ(firstPairingProblem(kNvidia, cudaWith(0xAB).devices[0]), "") << "the unbroken pair must pass";

  const DeviceChoice fallback = chooseDevices({vulkan}, cuda, BackendChoice::automatic, "");
  EXPECT_NE(fallback.backend, Backend::cuda);
  EXPECT_NE(fallback.reason.find("backend auto -> cpu"), std::string::npos) << fallback.reason;
  EXPECT_NE(fallback.reason.find(GetParam().check), std::string::npos) << fallback.reason;

  try {
    chooseDevices({vulkan}, cuda, BackendChoice::cuda, "");
    FAIL() << "expected EnvironmentError";
  } catch (const EnvironmentError& error) {
    EXPECT_NE(std::string(error.what()).find(GetParam().check), std::string::npos) << error.what();
  }

  const std::string list = describeDevices({vulkan}, cuda);
  EXPECT_NE(list.find(std::string("[FAIL] ") + GetParam().check), std::string::npos) << list;
  EXPECT_NE(list.find("CUDA backend unavailable"), std::string::npos) << list;
}

INSTANTIATE_TEST_SUITE_P(
    EachCheck, PairingCheckFails,
    ::testing::Values(
        BrokenPairing{"device group of one", [](PhysicalDeviceInfo& d) { d.deviceGroupSize = 2; }, keepCuda},
        BrokenPairing{"device group of one", [](PhysicalDeviceInfo& d) { d.deviceGroupSize = 0; }, keepCuda},
        BrokenPairing{"NVIDIA proprietary Vulkan driver",
                      [](PhysicalDeviceInfo& d) { d.driverId = VK_DRIVER_ID_MESA_NVK; }, keepCuda},
        BrokenPairing{"NVIDIA proprietary Vulkan driver",
                      [](PhysicalDeviceInfo& d) { d.driverId = VkDriverId(0); }, keepCuda},
        BrokenPairing{"CUDA compute mode allows contexts", keepVulkan,
                      [](CudaDeviceInfo& d) {
                        d.computeProhibited = true;
                        d.computeModeName = "prohibited";
                      }},
        BrokenPairing{"CUDA timeline-semaphore interop", keepVulkan,
                      [](CudaDeviceInfo& d) { d.timelineSemaphoreInterop = false; }},
        // Each input of the export check on its own: memory that cannot be
        // exported must fail the pair as surely as a semaphore that cannot.
        BrokenPairing{"Vulkan exports memory and semaphores as opaque fds",
                      [](PhysicalDeviceInfo& d) { d.binaryExportable = false; }, keepCuda},
        BrokenPairing{"Vulkan exports memory and semaphores as opaque fds",
                      [](PhysicalDeviceInfo& d) { d.timelineExportable = false; }, keepCuda},
        BrokenPairing{"Vulkan exports memory and semaphores as opaque fds",
                      [](PhysicalDeviceInfo& d) { d.vertexBufferExportable = false; }, keepCuda},
        BrokenPairing{"Vulkan exports memory and semaphores as opaque fds",
                      [](PhysicalDeviceInfo& d) { d.externalMemoryFd = false; }, keepCuda},
        BrokenPairing{"Vulkan exports memory and semaphores as opaque fds",
                      [](PhysicalDeviceInfo& d) { d.externalSemaphoreFd = false; }, keepCuda}),
    [](const ::testing::TestParamInfo<BrokenPairing>& param) {
      std::string name = std::to_string(param.index) + "_";
      for (const char* c = param.param.check; *c; ++c)
        if (std::isalnum(static_cast<unsigned char>(*c))) name += *c;
      return name;
    });

TEST(DeviceChoice, ListShowsEveryCheckOfAGoodPair) {
  const std::string text = describeDevices({kNvidia}, cudaWith(0xAB));
  EXPECT_NE(text.find("CUDA backend available"), std::string::npos) << text;
  for (const PairingCheck& check : checkPairing(kNvidia, cudaWith(0xAB).devices[0])) {
    EXPECT_TRUE(check.passed) << check.name << ": " << check.detail;
    EXPECT_NE(text.find(std::string("[ok]   ") + check.name), std::string::npos) << text;
  }
  EXPECT_EQ(text.find("[FAIL]"), std::string::npos) << text;
  EXPECT_EQ(checkPairing(kNvidia, cudaWith(0xAB).devices[0]).size(), 6u);
}

// The same GPU seen through two Vulkan drivers (NVK first, then NVIDIA's): the
// UUIDs match for both, and only NVIDIA's driver's fds mean anything to CUDA.
TEST(DeviceChoice, SameUuidThroughAnotherDriverIsSkippedForNvidias) {
  PhysicalDeviceInfo nvk = kNvidia, proprietary = kNvidia;
  nvk.name = "NVK H200";
  nvk.driverId = VK_DRIVER_ID_MESA_NVK;
  proprietary.index = 1;
  for (BackendChoice backend : {BackendChoice::cuda, BackendChoice::automatic}) {
    const DeviceChoice choice = chooseDevices({nvk, proprietary}, cudaWith(0xAB), backend, "");
    EXPECT_EQ(choice.backend, Backend::cuda);
    EXPECT_EQ(choice.vulkan.index, 1u) << choice.reason;
  }
  // Asked for by index, the NVK device is refused with the reason.
  EXPECT_THROW(chooseDevices({nvk, proprietary}, cudaWith(0xAB), BackendChoice::cuda, "0"), EnvironmentError);
}

// CUDA in Graphics needs both halves; --list-devices names the one missing
// (the H200 has neither: ../shared/gpu/README.md), and says offered only
// with both.
TEST(DeviceChoice, ListSaysWhetherCudaInGraphicsIsOfferedAndWhatIsMissing) {
  const CudaDeviceList cuda = cudaWith(0xAB);
  const std::string neither = describeDevices({kNvidia}, cuda);
  EXPECT_NE(neither.find("CUDA in Graphics: not offered (cudaDevAttrVulkanCigSupported is 0, no "
                         "VK_NV_external_compute_queue)"),
            std::string::npos)
      << neither;
  PhysicalDeviceInfo withQueue = kNvidia;
  withQueue.externalComputeQueue = true;
  EXPECT_NE(describeCig(withQueue, cuda.devices[0]).find("not offered (cudaDevAttrVulkanCigSupported is 0)"),
            std::string::npos);
  CudaDeviceInfo withCig = cuda.devices[0];
  withCig.vulkanCig = true;
  EXPECT_NE(describeCig(kNvidia, withCig).find("not offered (no VK_NV_external_compute_queue)"), std::string::npos);
  EXPECT_EQ(describeCig(withQueue, withCig).rfind("CUDA in Graphics: offered", 0), 0u);
}

}  // namespace
}  // namespace vksim
