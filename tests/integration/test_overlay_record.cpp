// The overlay's Record button, pressed through an input script as a user
// would click it: the capture it starts is the same as --capture's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "app_runner.h"

namespace vksim::testing {
namespace {

TEST(OverlayRecord, TheRecordButtonWritesACaptureOfTheFramesAfterTheClick) {
  const std::string dir = makeTempDir("record");
  // Positions in the default 1280x720 layout: the "Record" header, then the
  // "Start recording" button it reveals (docs/interactive.md, input scripts).
  const std::string script = dir + "/record.txt";
  std::ofstream(script) << "at 3 click 60 395\nat 8 click 60 489\n";
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

// The capture the overlay wrote into `dir` (not MangoHud's summary beside it), or "".
std::string csvIn(const std::string& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".csv" && !entry.path().string().ends_with("_summary.csv"))
      return entry.path().string();
  return "";
}

// The first `count` lines of a file.
std::vector<std::string> headLines(const std::string& path, size_t count) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; lines.size() < count && std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct LayoutCase {
  const char* name;
  int itemY;                       // the combo item's row in the open list (below the combo)
  std::vector<std::string> flags;  // the same layout on the command line
  size_t headerLines;              // lines before the first frame's row
};

void PrintTo(const LayoutCase& layout, std::ostream* out) { *out << layout.name; }

class OverlayRecordLayout : public ::testing::TestWithParam<LayoutCase> {};

// The format combo picks the file's layout: the header it writes is the one
// --capture writes with the same --capture-format / --capture-columns.
TEST_P(OverlayRecordLayout, TheFormatComboGivesTheCommandLinesLayout) {
  const LayoutCase& layout = GetParam();
  const std::string dir = makeTempDir("record-layout");
  const std::string script = dir + "/record.txt";
  // The header, the combo (its list opens below it), the item, the button.
  std::ofstream(script) << "at 3 click 60 395\nat 6 click 100 466\nat 9 click 60 " << layout.itemY
                        << "\nat 12 click 60 489\n";
  const AppResult result = runApp({"--headless", "--overlay", "--backend", "cpu", "--frames", "30", "--grid",
                                   "64", "--input-script", script},
                                  {"VKSIM_VALIDATION=1"}, 120, "", dir);
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(summaryField(result.out, "validation_errors"), "0");
  const std::string csv = csvIn(dir);
  ASSERT_FALSE(csv.empty()) << "no capture written: " << result.out;

  const std::string referenceDir = makeTempDir("record-layout-cli");
  std::vector<std::string> args = {"--headless", "--backend", "cpu",
                                   "--frames",   "5",         "--grid",
                                   "64",         "--capture", referenceDir + "/cli.csv"};
  args.insert(args.end(), layout.flags.begin(), layout.flags.end());
  const AppResult reference = runApp(args, {}, 120, "", referenceDir);
  ASSERT_EQ(reference.exitCode, 0) << reference.out << reference.err;
  EXPECT_EQ(headLines(csv, layout.headerLines), headLines(referenceDir + "/cli.csv", layout.headerLines))
      << layout.name;
}

INSTANTIATE_TEST_SUITE_P(Layouts, OverlayRecordLayout,
                         ::testing::Values(LayoutCase{"presentmon_v2", 508, {"--capture-columns", "v2"}, 1},
                                           LayoutCase{"mangohud", 525, {"--capture-format", "mangohud"}, 3}),
                         [](const auto& testInfo) { return std::string(testInfo.param.name); });

}  // namespace
}  // namespace vksim::testing
