#include <cstdio>

#include "app_runner.h"
#include "gpu_environment.h"

namespace vksim {
namespace {

TEST(CudaDevices, EveryDeviceHasANameAndANonZeroUuid) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  const CudaDeviceList list = listCudaDevices();
  for (const CudaDeviceInfo& device : list.devices) {
    EXPECT_FALSE(device.name.empty());
    bool anyNonZero = false;
    for (uint8_t b : device.uuid) anyNonZero |= b != 0;
    EXPECT_TRUE(anyNonZero) << device.name;
  }
}

// The pairing checks on the NVIDIA machine: the CUDA device allows contexts and
// supports timeline-semaphore interop, and --list-devices shows every check of
// the NVIDIA pair passed (NVIDIA's driver, a device group of one).
TEST(CudaDevices, TheNvidiaPairPassesEveryPairingCheck) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  for (const CudaDeviceInfo& device : listCudaDevices().devices) {
    EXPECT_FALSE(device.computeProhibited) << device.name;
    EXPECT_TRUE(device.timelineSemaphoreInterop) << device.name;
  }
  const testing::AppResult list = testing::runApp({"--list-devices"});
  ASSERT_EQ(list.exitCode, 0) << list.err;
  std::printf("%s", list.out.c_str());
  EXPECT_NE(list.out.find("CUDA backend available"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("[ok]   NVIDIA proprietary Vulkan driver"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("[ok]   device group of one"), std::string::npos) << list.out;
}

}  // namespace
}  // namespace vksim
