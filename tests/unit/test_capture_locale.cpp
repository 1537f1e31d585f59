// Files are read by programs: the capture CSV, its summary and the trace write
// numbers the same whatever locale the process runs in. The test makes a
// German locale (decimal comma, '.' between thousands), makes it the global
// one for C and C++ alike, proves that a locale-sensitive formatter would now
// write "1.234,5", and then writes a capture and a trace in-process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <clocale>
#include <cstdio>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <locale>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "app/capture/capture_writer.h"
#include "app/capture/trace_writer.h"
#include "tests/support/german_locale.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;

class GermanLocale : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("vksim-locale-" + std::to_string(getpid()));
    const std::string problem = testing::makeGermanLocale((directory_ / "locales").string());
    ASSERT_EQ(problem, "");
    // glibc reads LOCPATH when a locale is looked up.
    setenv("LOCPATH", (directory_ / "locales").c_str(), 1);
    previous_ = std::locale();
    std::locale::global(std::locale("de_DE.UTF-8"));  // a named global locale sets C's too
  }
  void TearDown() override {
    std::locale::global(previous_);
    std::setlocale(LC_ALL, "C");
    unsetenv("LOCPATH");
    fs::remove_all(directory_);
  }
  std::string file(const char* name) const { return (directory_ / name).string(); }

  fs::path directory_;
  std::locale previous_;
};

std::string readCaptureText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The premise: in this process a formatter that follows the locale writes a
// decimal comma, in C (printf) and in C++ (a stream left with the global
// locale), so the checks below would see one.
TEST_F(GermanLocale, IsInEffectForCAndCxxFormatters) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", 1234.5);
  EXPECT_STREQ(text, "1234,5");
  std::ostringstream stream;
  stream << 1234.5;
  EXPECT_EQ(stream.str(), "1.234,5");
}

TEST_F(GermanLocale, CaptureCsvSummaryAndTraceWriteInvariantNumbers) {
  CaptureWriter writer;
  CaptureOptions options;
  options.csvPath = file("run.csv");
  options.warmupFrames = 0;
  ASSERT_TRUE(writer.open(options));
  double time = 0.0;
  for (uint64_t k = 0; k < 25; ++k) {
    FrameRecord frame;
    frame.frame = k;
    frame.msBetweenPresents = 1234.5 + double(k);  // large enough for a thousands separator
    time += frame.msBetweenPresents / 1000.0;
    frame.timeInSeconds = time;
    frame.msCpuFrame = frame.msCpuBusy = 1001.25;
    frame.msRenderGpu = frame.msGpuBusy = 2000.5;
    frame.msSimGpu = 0.5;
    frame.syncMode = "timeline";
    frame.backend = "cpu";
    frame.model = "ripple";
    frame.grid = 4096;
    frame.timelineValue = 20000 + k;
    writer.addFrame(frame);
  }
  CaptureEnvironment environment;
  ASSERT_TRUE(writer.finish(environment));
  TraceWriter trace;
  ASSERT_TRUE(trace.open(file("run.json")));
  trace.addSpan(TraceTrack::hostFrame, 0, 1234.5, 2500.25);
  ASSERT_TRUE(trace.finish());

  // A decimal comma would split a field in two; a thousands separator would
  // change the number.
  std::stringstream csv(readCaptureText(file("run.csv")));
  std::string line;
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line)) {
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    rows.push_back(fields);
  }
  ASSERT_EQ(rows.size(), 26u);
  const auto column = size_t(std::find(rows[0].begin(), rows[0].end(), "MsBetweenPresents") - rows[0].begin());
  ASSERT_LT(column, rows[0].size());
  for (size_t k = 1; k < rows.size(); ++k) {
    ASSERT_EQ(rows[k].size(), rows[0].size()) << "row " << k << ": a field split by a decimal comma?";
    EXPECT_TRUE(std::regex_match(rows[k][column], std::regex(R"([0-9]+\.[0-9]+)"))) << rows[k][column];
    // std::from_chars: the one parser that ignores the locale (stod would not).
    double value = 0.0;
    const std::string& text = rows[k][column];
    std::from_chars(text.data(), text.data() + text.size(), value);
    EXPECT_EQ(value, 1234.5 + double(k - 1)) << text;
  }
  // The JSON files parse, and their numbers are the ones written.
  const nlohmann::json summary = nlohmann::json::parse(readCaptureText(file("run.summary.json")));
  EXPECT_DOUBLE_EQ(summary.at("slowestOnePercentMeanMs").get<double>(), 1234.5 + 24.0);  // one frame of 25
  const std::string traceText = readCaptureText(file("run.json"));
  ASSERT_TRUE(nlohmann::json::accept(traceText)) << traceText.substr(0, 300);
  EXPECT_NE(traceText.find("1234.5"), std::string::npos) << traceText.substr(0, 300);
  EXPECT_EQ(traceText.find("1.234"), std::string::npos) << "a thousands separator in the trace";
}

}  // namespace
}  // namespace vksim
