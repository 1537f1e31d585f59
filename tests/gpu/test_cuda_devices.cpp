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

}  // namespace
}  // namespace vksim
