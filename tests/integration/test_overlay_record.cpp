// The overlay's Record button, pressed through an input script as a user
// would click it: the capture it starts is the same as --capture's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app_runner.h"

namespace vksim::testing {
namespace {

TEST(OverlayRecord, TheRecordButtonWritesACaptureOfTheFramesAfterTheClick) {
  const std::string dir = makeTempDir("record");
  // Positions in the default 1280x720 layout: the "Record" header, then the
  // "Start recording" button it reveals (docs/interactive.md, input scripts).
  const std::string script = dir + "/record.txt";
  std::ofstream(script) << "at 3 click 60 607\nat 8 click 60 678\n";
  const AppResult result = runApp({"--headless", "--overlay", "--backend", "cpu", "--frames", "40", "--grid",
                                   "64", "--input-script", script},
                                  {"VKSIM_VALIDATION=1"}, 120, "", dir);
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(summaryField(result.out, "validation_errors"), "0");
  EXPECT_EQ(summaryField(result.out, "validation"), "on") << result.out;
  EXPECT_EQ(summaryField(result.out, "sync_validation"), "on") << result.out;
  std::string csv;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".csv") csv = entry.path().string();
  ASSERT_FALSE(csv.empty()) << "no capture written: " << result.out;
  EXPECT_NE(result.out.find("wrote " + std::filesystem::path(csv).filename().string()), std::string::npos)
      << result.out;
  // The button is released at frame 10: frames 10..39 are recorded, each one row.
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("Application,ProcessID,", 0), 0u) << header;
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 30);
  EXPECT_TRUE(fileExists(csv.substr(0, csv.size() - 4) + ".summary.json"));
}

}  // namespace
}  // namespace vksim::testing
