// A window whose device cannot present, under Xvfb on lavapipe: the test
// facility VKSIM_DENY_PRESENT=1 makes every device answer "cannot present",
// as a laptop's NVIDIA GPU answers without NVIDIA's offload variables. The
// run must end with exit 3 and one line that says what to do; --list-devices
// must say per device whether it can present to the display.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "app_runner.h"

namespace vksim::testing {
namespace {

std::string presentTestDisplay() {
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  return display ? display : "";
}

#define REQUIRE_PRESENT_TEST_DISPLAY()              \
  const std::string display = presentTestDisplay(); \
  ASSERT_FALSE(display.empty()) << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY"

size_t countLines(const std::string& text) {
  return size_t(std::count(text.begin(), text.end(), '\n'));
}

TEST(PresentSupport, ADeviceThatCannotPresentEndsTheRunWithOneLineNamingTheOffloadVariables) {
  REQUIRE_PRESENT_TEST_DISPLAY();
  for (const char* backend : {"cpu", "auto"}) {
    const AppResult result =
        runApp({"--backend", backend, "--frames", "3", "--grid", "16", "--size", "64x64"},
               {"VKSIM_VALIDATION=1", "DISPLAY=" + display, "VKSIM_DENY_PRESENT=1"});
    ASSERT_FALSE(result.timedOut) << backend;
    EXPECT_EQ(result.exitCode, 3) << backend << "\n" << result.out << result.err;
    EXPECT_EQ(countLines(result.err), 1u) << backend << "\n" << result.err;
    for (const std::string& part :
         {std::string("cannot present to the window on display ") + display, std::string("llvmpipe"),
          std::string("--headless"), std::string("__NV_PRIME_RENDER_OFFLOAD=1"),
          std::string("__VK_LAYER_NV_optimus=NVIDIA_only")})
      EXPECT_NE(result.err.find(part), std::string::npos)
          << backend << ": " << part << " missing from: " << result.err;
    EXPECT_EQ(result.out.find("running in a window"), std::string::npos) << result.out;
  }
}

TEST(PresentSupport, ListDevicesSaysWhichDevicesCanPresentToTheDisplay) {
  REQUIRE_PRESENT_TEST_DISPLAY();
  const AppResult result = runApp({"--list-devices"}, {"DISPLAY=" + display, "WAYLAND_DISPLAY="});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("Presenting to a window on display " + display + " (NV-GLX no, Xwayland no):"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("llvmpipe"), std::string::npos);
  const size_t section = result.out.find("Presenting to a window");
  ASSERT_NE(section, std::string::npos) << result.out;
  EXPECT_NE(result.out.find(": yes (queue family 0)", section), std::string::npos) << result.out;

  const AppResult denied =
      runApp({"--list-devices"}, {"DISPLAY=" + display, "WAYLAND_DISPLAY=", "VKSIM_DENY_PRESENT=1"});
  ASSERT_EQ(denied.exitCode, 0) << denied.err;
  EXPECT_NE(denied.out.find(": no (VKSIM_DENY_PRESENT=1"), std::string::npos) << denied.out;
  EXPECT_EQ(denied.out.find(": yes (queue family"), std::string::npos) << denied.out;

  // The user's skip of the X server check is said where the check is, and
  // changes nothing on a device the check never refuses.
  const AppResult skipped =
      runApp({"--list-devices"}, {"DISPLAY=" + display, "WAYLAND_DISPLAY=", "VKSIM_SKIP_DISPLAY_CHECK=1"});
  ASSERT_EQ(skipped.exitCode, 0) << skipped.err;
  EXPECT_NE(skipped.out.find("(NV-GLX no, Xwayland no, check skipped: VKSIM_SKIP_DISPLAY_CHECK=1):"),
            std::string::npos)
      << skipped.out;
  EXPECT_NE(skipped.out.find(": yes (queue family 0)", skipped.out.find("Presenting to a window")),
            std::string::npos)
      << skipped.out;
}

TEST(PresentSupport, ListDevicesWithoutADisplaySaysNothingWasChecked) {
  const AppResult result = runApp({"--list-devices"}, {"DISPLAY=", "WAYLAND_DISPLAY="});
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("Presenting to a window: not checked (no display"), std::string::npos)
      << result.out;
}

TEST(PresentSupport, AMisspeltDenySwitchIsAUsageError) {
  for (const char* name : {"VKSIM_DENY_PRESENT", "VKSIM_SKIP_DISPLAY_CHECK"}) {
    const AppResult result = runApp({"--headless", "--frames", "1"}, {std::string(name) + "=yes"});
    EXPECT_EQ(result.exitCode, 2) << name << ": " << result.err;
    EXPECT_NE(result.err.find(name), std::string::npos) << result.err;
  }
}

}  // namespace
}  // namespace vksim::testing
