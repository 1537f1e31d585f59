// A capture from the app passes the checks CapFrameX makes before it imports a
// PresentMon-style CSV (more than 20 lines; a header naming Application,
// Dropped, TimeInSeconds, MsBetweenPresents and MsBetweenDisplayChange), its
// numbers are written the same whatever the locale (digits, one '.', no
// thousands separator), and the PresentMon 2.x columns MsCPUBusy and
// MsGPUBusy hold what docs/captures.md defines on this program's clocks.
// lavapipe, CPU backend, validation layer on; no timing thresholds.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app_runner.h"
#include "tests/support/german_locale.h"

namespace vksim::testing {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> result;
  std::stringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) result.push_back(line);
  return result;
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> result;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ',')) result.push_back(field);
  return result;
}

// The text columns; every other column is a number or NA.
bool isTextColumn(const std::string& name) {
  return name == "Application" || name == "Runtime" || name == "SwapChainAddress" || name == "SyncMode" ||
         name == "Backend" || name == "Model";
}

TEST(CaptureColumns, PassesCapFrameXChecksWithInvariantNumbers) {
  const std::string dir = makeTempDir("capture-columns");
  // A German numeric locale would write "16,6667" in a program that let the
  // locale format its numbers: the CSV must not change with it. The locale is
  // compiled here (the machine has none but C and POSIX), so that a program
  // that adopted the environment's locale (setlocale(LC_ALL, "")) would
  // really run in it; the formatters themselves are checked in-process under
  // that locale by unit/test_capture_locale.cpp.
  ASSERT_EQ(makeGermanLocale(dir + "/locales"), "");
  const AppResult result =
      runApp({"--headless", "--backend", "cpu", "--grid", "32", "--frames", "40", "--size", "64x64", "--warmup",
              "5", "--capture", dir + "/run.csv"},
             {"VKSIM_VALIDATION=1", "LOCPATH=" + dir + "/locales", "LC_ALL=de_DE.UTF-8", "LC_NUMERIC=de_DE.UTF-8",
              "LANG=de_DE.UTF-8"});
  expectCleanRun(result);
  const std::vector<std::string> text = lines(readFile(dir + "/run.csv"));

  // CapFrameX: a file without its "//" info header needs more than 20 lines,
  // and the column header must contain these five names.
  ASSERT_GT(text.size(), 20u);
  ASSERT_EQ(text.size(), 41u) << "the header and one row per frame";
  const std::string& header = text[0];
  ASSERT_NE(header.rfind("//", 0), 0u) << "no info header is written";
  for (const char* name : {"Application", "Dropped", "TimeInSeconds", "MsBetweenPresents", "MsBetweenDisplayChange"})
    EXPECT_NE(header.find(name), std::string::npos) << name;

  const std::vector<std::string> names = fields(header);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < names.size(); ++i) column[names[i]] = i;
  for (const char* name : {"MsCPUBusy", "MsGPUBusy", "MsUntilDisplayed"})
    ASSERT_TRUE(column.count(name)) << name << " missing from " << header;

  const std::regex invariantNumber(R"(-?[0-9]+(\.[0-9]+)?)");
  for (size_t row = 1; row < text.size(); ++row) {
    const std::vector<std::string> values = fields(text[row]);
    ASSERT_EQ(values.size(), names.size()) << "row " << row << ": " << text[row];
    for (size_t i = 0; i < names.size(); ++i) {
      if (isTextColumn(names[i])) continue;
      EXPECT_TRUE(values[i] == "NA" || std::regex_match(values[i], invariantNumber))
          << names[i] << " in row " << row << " is '" << values[i] << "'";
    }
    EXPECT_EQ(values[column["Application"]], "vkcuda-sim");
    // Headless: nothing reaches a display, so what depends on one is unknown.
    EXPECT_EQ(values[column["Dropped"]], "NA");
    EXPECT_EQ(values[column["MsBetweenDisplayChange"]], "NA");
    EXPECT_EQ(values[column["MsUntilDisplayed"]], "NA");
    // Headless the present call is empty (no time inside it): CPU busy, from
    // the previous present's return to this present, is the frame time.
    if (row > 1) {
      EXPECT_EQ(values[column["MsCPUBusy"]], values[column["MsBetweenPresents"]]) << "row " << row;
    }
    // The CPU backend's step runs on the host: the GPU was busy with the
    // render alone.
    EXPECT_NE(values[column["MsGPUBusy"]], "NA") << "row " << row;
    EXPECT_EQ(values[column["MsGPUBusy"]], values[column["MsRenderGpu"]]) << "row " << row;
  }

  const auto summary = nlohmann::json::parse(readFile(dir + "/run.summary.json"));
  EXPECT_EQ(summary.at("environment").at("displayTiming"), "none: headless, nothing is displayed");
}

// In a window the summary says where display times came from, or why they
// are NA. Mesa's lavapipe offers neither VK_KHR_present_id nor
// VK_KHR_present_wait: the reason names the driver and the extensions, and
// the display columns stay NA (a driver with them fills them: docs/captures.md).
TEST(CaptureColumns, WindowSummarySaysWhyDisplayTimesAreMissing) {
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  ASSERT_TRUE(display && *display) << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY";
  const std::string dir = makeTempDir("capture-window");
  const AppResult result = runApp({"--backend", "cpu", "--grid", "32", "--size", "320x240", "--vsync", "on",
                                   "--frames", "25", "--capture", dir + "/window.csv"},
                                  {"VKSIM_VALIDATION=1", std::string("DISPLAY=") + display});
  expectCleanRun(result);
  const auto summary = nlohmann::json::parse(readFile(dir + "/window.summary.json"));
  const std::string reason = summary.at("environment").at("displayTiming");
  const bool lavapipe = summary.at("environment").at("gpu").get<std::string>().find("llvmpipe") != std::string::npos;
  const std::vector<std::string> text = lines(readFile(dir + "/window.csv"));
  ASSERT_EQ(text.size(), 26u);
  const std::vector<std::string> names = fields(text[0]);
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < names.size(); ++i) column[names[i]] = i;
  if (lavapipe) {
    EXPECT_EQ(reason.rfind("none: the driver (", 0), 0u) << reason;
    EXPECT_NE(reason.find("VK_KHR_present_id and VK_KHR_present_wait"), std::string::npos) << reason;
    for (size_t row = 1; row < text.size(); ++row) {
      const std::vector<std::string> values = fields(text[row]);
      EXPECT_EQ(values[column["MsBetweenDisplayChange"]], "NA") << row;
      EXPECT_EQ(values[column["MsUntilDisplayed"]], "NA") << row;
      EXPECT_EQ(values[column["Dropped"]], "NA") << row;
    }
  } else {
    EXPECT_FALSE(reason.empty());
  }
  // A window's present call has a length: CPU busy leaves it out.
  for (size_t row = 2; row < text.size(); ++row) {
    const std::vector<std::string> values = fields(text[row]);
    EXPECT_LE(std::stod(values[column["MsCPUBusy"]]), std::stod(values[column["MsBetweenPresents"]]) + 1e-4) << row;
  }
}

}  // namespace
}  // namespace vksim::testing
