// VK_KHR_maintenance8 on a device that offers it (the H200's driver does):
// the CUDA zero-copy run's ownership transfers to and from
// VK_QUEUE_FAMILY_EXTERNAL take their narrow form (rule M22,
// docs/interop-reference.md), the summary line says so, the validation layer
// with synchronization validation stays silent, and the vertices the run
// leaves are byte for byte those of the same run with the extension turned
// off (VKSIM_DISABLE_MAINTENANCE8=1, the all-commands form).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/interop/device_pairing.h"
#include "app_runner.h"
#include "gpu_environment.h"
#include "renderer/vulkan_context.h"

namespace vksim::testing {
namespace {

// Whether the Vulkan device that the CUDA backend pairs with (same UUID)
// offers VK_KHR_maintenance8 with its feature; asked in this process, apart
// from the app under test, so that an app that fails to enable it fails here
// instead of skipping.
bool pairedDeviceOffersMaintenance8() {
  Instance instance = createInstance({});
  const CudaDeviceList cuda = listCudaDevices();
  bool offered = false;
  for (const PhysicalDeviceInfo& device : listPhysicalDevices(instance))
    if (pairedCudaDevice(device, cuda)) offered = offered || device.maintenance8;
  destroyInstance(instance);
  return offered;
}

TEST(Maintenance8, WhereOfferedTheTransfersAreNarrowSilentAndTheVerticesUnchanged) {
  VKSIM_REQUIRE_CUDA_DEVICE();
  if (!pairedDeviceOffersMaintenance8())
    GTEST_SKIP() << "the Vulkan device paired with CUDA does not offer VK_KHR_maintenance8";
  const std::string dir = makeTempDir("maintenance8");
  for (const char* sync : {"timeline", "binary"}) {
    auto run = [&](const std::string& dump, const std::vector<std::string>& env) {
      return runApp({"--headless", "--backend", "cuda", "--sync", sync, "--switch-sync-every", "7", "--grid",
                     "256", "--frames", "300", "--size", "256x256", "--dump-vertices", dump},
                    env, 300);
    };
    const AppResult narrow = run(dir + "/narrow.bin", {"VKSIM_VALIDATION=1"});
    ASSERT_FALSE(narrow.timedOut) << narrow.out << narrow.err;
    ASSERT_EQ(narrow.exitCode, 0) << narrow.out << narrow.err;
    EXPECT_EQ(summaryField(narrow.out, "backend"), "cuda");
    EXPECT_EQ(summaryField(narrow.out, "transfer_stages"), "narrow") << narrow.out;
    expectValidationOnAndSilent(narrow);

    const AppResult classic =
        run(dir + "/all-commands.bin", {"VKSIM_VALIDATION=1", "VKSIM_DISABLE_MAINTENANCE8=1"});
    ASSERT_FALSE(classic.timedOut) << classic.out << classic.err;
    ASSERT_EQ(classic.exitCode, 0) << classic.out << classic.err;
    EXPECT_EQ(summaryField(classic.out, "transfer_stages"), "all-commands") << classic.out;
    expectValidationOnAndSilent(classic);

    const std::string a = readFile(dir + "/narrow.bin"), b = readFile(dir + "/all-commands.bin");
    ASSERT_EQ(a.size(), size_t(256) * 256 * 8 * sizeof(float)) << sync;
    EXPECT_TRUE(a == b) << sync << ": the vertices differ between the narrow and the all-commands transfers";
  }
}

}  // namespace
}  // namespace vksim::testing
