// VK_KHR_maintenance8 where it is not offered: lavapipe (Mesa 22.3 in Debian
// 12) lacks it, so a run reports transfer_stages=all-commands, --list-devices
// says "no", and the validation layer with synchronization validation stays
// silent (nothing of the maintenance8 suppressions applies). The switch that
// turns it off for the A/B (VKSIM_DISABLE_MAINTENANCE8) changes nothing here
// and is refused when misspelt. tests/gpu/test_maintenance8.cpp is the other
// half, on a device that offers it.
#include <gtest/gtest.h>

#include <string>

#include "app_runner.h"

namespace vksim::testing {
namespace {

TEST(Maintenance8, LavapipeRunsTheAllCommandsTransfersSilently) {
  for (const char* disabled : {"", "1"}) {
    const AppResult result =
        runApp({"--headless", "--frames", "12", "--grid", "64", "--size", "128x128", "--switch-sync-every", "5"},
               {"VKSIM_VALIDATION=1", std::string("VKSIM_DISABLE_MAINTENANCE8=") + disabled}, 90);
    expectCleanRun(result);
    EXPECT_EQ(summaryField(result.out, "transfer_stages"), "all-commands") << result.out;
  }
}

TEST(Maintenance8, ListDevicesSaysLavapipeDoesNotOfferIt) {
  const AppResult result = runApp({"--list-devices"}, {}, 60);
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("VK_KHR_maintenance8 (ownership transfers in narrow stages): no"), std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("VK_KHR_maintenance8 (ownership transfers in narrow stages): yes"), std::string::npos)
      << result.out;
}

TEST(Maintenance8, AMisspeltSwitchIsRefused) {
  const AppResult result = runApp({"--headless", "--frames", "1"}, {"VKSIM_DISABLE_MAINTENANCE8=yes"}, 60);
  EXPECT_EQ(result.exitCode, 2) << result.out << result.err;
  EXPECT_NE(result.err.find("VKSIM_DISABLE_MAINTENANCE8"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace vksim::testing
