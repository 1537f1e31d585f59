// MangoHud itself (Debian 12's mangohud 0.6.8, a Vulkan implicit layer that
// scripts/setup installs) watches a windowed run under Xvfb on lavapipe and
// writes its own frame log; the same run writes this program's
// `--capture-format mangohud` log. The two must have the same header rows and
// columns, and the same frame times: MangoHud's log covers a one-second window
// of the run, found in ours by matching the frame-time sequences, and the
// medians of that window must agree within 3 %. CapFrameX's rules
// (tests/support/capframex_rules.h) must read both alike.
//
// Only this test sets MANGOHUD=1, and only in the app's environment. The
// validation layer is off for this run: MangoHud 0.6.8's vkCreateDevice hook
// adds pEnabledFeatures to a VkDeviceCreateInfo whose pNext already holds
// VkPhysicalDeviceFeatures2 (VUID-VkDeviceCreateInfo-pNext-00373, an error in
// what the layer passes down, not in what this program asks for).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "app_runner.h"
#include "app/capture/mangohud_log.h"
#include "tests/support/capframex_rules.h"

namespace vksim::testing {
namespace {

constexpr const char* kMangoHudLayer = "/usr/share/vulkan/implicit_layer.d/MangoHud.json";

// The frametime column (whole microseconds) of a MangoHud-format log.
std::vector<long> frameTimesUs(const std::vector<std::string>& lines) {
  std::vector<long> times;
  for (size_t row = 3; row < lines.size(); ++row) {
    const std::vector<std::string> values = capframex::splitCommas(lines[row]);
    if (values.size() > 1) times.push_back(std::stol(values[1]));
  }
  return times;
}

double median(std::vector<long> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? double(values[n / 2]) : 0.5 * double(values[n / 2 - 1] + values[n / 2]);
}

// Where MangoHud's window starts in our frames: the offset whose frame times
// differ least from MangoHud's, summed over the window.
size_t bestOffset(const std::vector<long>& ours, const std::vector<long>& theirs) {
  size_t best = 0;
  long bestDifference = -1;
  for (size_t offset = 0; offset + theirs.size() <= ours.size(); ++offset) {
    long difference = 0;
    for (size_t i = 0; i < theirs.size(); ++i) difference += std::labs(ours[offset + i] - theirs[i]);
    if (bestDifference < 0 || difference < bestDifference) {
      bestDifference = difference;
      best = offset;
    }
  }
  return best;
}

// MangoHud names its log <program>_<date>.csv in output_folder, with a
// _summary.csv beside it; ours is app.csv.
std::string mangoHudLogIn(const std::string& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("vkcuda-sim_", 0) == 0 && name.ends_with(".csv") && !name.ends_with("_summary.csv"))
      return entry.path().string();
  }
  return "";
}

std::string listing(const std::string& dir) {
  std::string names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names += entry.path().filename().string() + " ";
  return names;
}

TEST(MangoHud, OwnLogAndOursAgree) {
  ASSERT_TRUE(std::filesystem::exists(kMangoHudLayer))
      << "Debian's mangohud package is not installed (scripts/setup installs it)";
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  ASSERT_TRUE(display && *display) << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY";
  const std::string dir = makeTempDir("mangohud");
  // MangoHud 0.6.8's options: write to dir, start logging 1 s after the
  // layer loads, log every frame (log_interval=0; the default samples every
  // 100 ms), stop after 1 s, draw nothing. XDG_CONFIG_HOME keeps a user's
  // MangoHud.conf out.
  const AppResult result = runApp(
      {"--backend", "cpu", "--grid", "32", "--size", "320x240", "--frames", "2000", "--capture", dir + "/app.csv",
       "--capture-format", "mangohud"},
      {std::string("DISPLAY=") + display, "VKSIM_VALIDATION=0", "MANGOHUD=1", "XDG_CONFIG_HOME=" + dir,
       "MANGOHUD_CONFIG=output_folder=" + dir + ",autostart_log=1,log_interval=0,log_duration=1,no_display"});
  expectSilentRun(result);
  const std::string theirsPath = mangoHudLogIn(dir);
  ASSERT_FALSE(theirsPath.empty()) << "MangoHud wrote no log; " << dir << " holds: " << listing(dir) << "\n"
                                   << result.err;
  const std::vector<std::string> theirs = capframex::splitLines(readFile(theirsPath));
  const std::vector<std::string> ours = capframex::splitLines(readFile(dir + "/app.csv"));
  ASSERT_GE(theirs.size(), 23u) << theirsPath;
  ASSERT_EQ(ours.size(), 2003u);

  // The header rows: the system line's names, and the column row.
  EXPECT_EQ(ours[0], theirs[0]);
  EXPECT_EQ(ours[2], theirs[2]);
  // The system values read as MangoHud reads them; gpu (2) and driver (5)
  // come from pci.ids and glxinfo in MangoHud (often empty), from Vulkan here.
  const std::vector<std::string> ourSystem = capframex::splitCommas(ours[1]);
  const std::vector<std::string> theirSystem = capframex::splitCommas(theirs[1]);
  ASSERT_EQ(ourSystem.size(), 7u) << ours[1];
  ASSERT_EQ(theirSystem.size(), 7u) << theirs[1];
  for (size_t field : {0u, 1u, 3u, 4u, 6u})
    EXPECT_EQ(ourSystem[field], theirSystem[field]) << "system field " << field;
  std::printf("MangoHud's system line: %s\nours:                   %s\n", theirs[1].c_str(), ours[1].c_str());

  const std::vector<long> theirTimes = frameTimesUs(theirs);
  const std::vector<long> ourTimes = frameTimesUs(ours);
  ASSERT_LE(theirTimes.size(), ourTimes.size());
  const size_t offset = bestOffset(ourTimes, theirTimes);
  const std::vector<long> window(ourTimes.begin() + long(offset),
                                 ourTimes.begin() + long(offset + theirTimes.size()));
  const double theirMedian = median(theirTimes), ourMedian = median(window);
  std::printf("MangoHud: %zu frames, median %.0f us; ours: frames %zu-%zu of %zu, median %.0f us; ratio %.4f\n",
              theirTimes.size(), theirMedian, offset, offset + theirTimes.size() - 1, ourTimes.size(), ourMedian,
              ourMedian / theirMedian);
  EXPECT_NEAR(ourMedian / theirMedian, 1.0, 0.03);

  const CapFrameXReading theirReading = readAsCapFrameX(readFile(theirsPath));
  const CapFrameXReading ourReading = readAsCapFrameX(readFile(dir + "/app.csv"));
  EXPECT_TRUE(theirReading.mangoHud && ourReading.mangoHud);
  EXPECT_TRUE(theirReading.headerCheckPassed && ourReading.headerCheckPassed);
  EXPECT_EQ(ourReading.frameTimeColumn, theirReading.frameTimeColumn);
  EXPECT_EQ(ourReading.rowsKept, ourTimes.size());
  EXPECT_EQ(theirReading.rowsKept, theirTimes.size());

  // The summary beside each log: MangoHud's own, and ours computed from
  // MangoHud's frame times with the same figures, the same header and the
  // same four frame-rate values (the loads are MangoHud's measurements,
  // 0.0 in ours).
  const std::string theirSummaryPath = theirsPath.substr(0, theirsPath.size() - 4) + "_summary.csv";
  ASSERT_TRUE(fileExists(theirSummaryPath)) << listing(dir);
  ASSERT_TRUE(fileExists(dir + "/app_summary.csv")) << listing(dir);
  const std::vector<std::string> theirSummary = capframex::splitLines(readFile(theirSummaryPath));
  ASSERT_EQ(theirSummary.size(), 2u) << readFile(theirSummaryPath);
  const std::vector<std::string> ourSummary = capframex::splitLines(readFile(dir + "/app_summary.csv"));
  ASSERT_EQ(ourSummary.size(), 2u);
  EXPECT_EQ(ourSummary[0], theirSummary[0]);
  std::vector<float> theirFps;
  for (long us : theirTimes) theirFps.push_back(mangoHudFps(uint64_t(us)));
  std::ostringstream recomputed;
  writeMangoHudSummary(recomputed, summarizeMangoHudFps(theirFps));
  const std::vector<std::string> theirValues = capframex::splitCommas(theirSummary[1]);
  const std::vector<std::string> recomputedValues =
      capframex::splitCommas(capframex::splitLines(recomputed.str())[1]);
  ASSERT_EQ(theirValues.size(), 6u) << theirSummary[1];
  ASSERT_EQ(recomputedValues.size(), 6u);
  for (size_t field = 0; field < 4; ++field)
    EXPECT_EQ(recomputedValues[field], theirValues[field]) << theirSummary[0] << ", field " << field;
  std::printf("MangoHud's summary: %s\nours, from its frames: %s\n", theirSummary[1].c_str(),
              capframex::splitLines(recomputed.str())[1].c_str());
}

}  // namespace
}  // namespace vksim::testing
