// The overlay allocates nothing inside its frames: ImGui's vertex and index
// buffers are reserved before the first frame (app/ui/overlay.cpp), and the
// summary line counts the frames that outgrew them (overlay_buffer_growths).
// docs/interactive.md, "What the overlay costs a frame".
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "app_runner.h"

namespace vksim::testing {
namespace {

// Every section open, bottom to top so that each header is still where it was
// measured (a 640x1100 headless screenshot with --overlay, CPU backend): Help,
// Scenes, Devices, Record, Camera and window, then Simulation (closed at start). The display is tall
// enough that nothing of the window is clipped, so every widget is drawn.
TEST(OverlaySteady, EverySectionOpenFitsTheReservedBuffers) {
  const std::string dir = makeTempDir("overlay-steady");
  const std::string script = dir + "/open-all.txt";
  std::ofstream(script) << "at 5 click 60 466\nat 8 click 60 443\nat 11 click 60 420\nat 14 click 60 397\n"
                           "at 17 click 60 236\nat 20 click 60 213\n";
  const AppResult result = runApp({"--headless", "--overlay", "--backend", "cpu", "--grid", "64", "--frames",
                                   "120", "--size", "640x3000", "--input-script", script},
                                  kValidation, 300, "", dir);
  expectCleanRun(result);
  EXPECT_EQ(summaryField(result.out, "overlay_buffer_growths"), "0") << result.out;
}

}  // namespace
}  // namespace vksim::testing
