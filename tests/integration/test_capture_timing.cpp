// What the capture's timing columns mean (docs/captures.md), checked on a
// real run of the app (headless, lavapipe, CPU backend): TimeInSeconds marks
// each present point, MsBetweenPresents is the interval between two present
// points (not the CPU time of one frame), and the summary's statistics are
// those of the CSV rows after the warm-up, recomputed here from the printed
// rows with the documented formulas (not with the app's own functions).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app_runner.h"

namespace vksim::testing {
namespace {

// The CSV prints seconds with 6 decimals and milliseconds with 4: a
// difference of two TimeInSeconds values is within 2 * 0.5 us of the exact
// one, a MsBetweenPresents within 0.05 us.
constexpr double kIntervalToleranceMs = 2 * 0.0005 + 0.00005 + 1e-9;
constexpr double kPrintedMsTolerance = 0.00005 + 1e-9;

struct Csv {
  std::map<std::string, size_t> column;
  std::vector<std::vector<std::string>> rows;  // without the header
  double number(size_t row, const std::string& name) const {
    return std::stod(rows[row].at(column.at(name)));
  }
};

Csv readCsv(const std::string& path) {
  Csv csv;
  std::stringstream stream(readFile(path));
  std::string line;
  bool header = true;
  while (std::getline(stream, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::stringstream fieldStream(line);
    std::string field;
    while (std::getline(fieldStream, field, ',')) fields.push_back(field);
    if (header) {
      for (size_t i = 0; i < fields.size(); ++i) csv.column[fields[i]] = i;
      header = false;
    } else {
      csv.rows.push_back(fields);
    }
  }
  return csv;
}

// docs/captures.md, "Statistics": h = p (N - 1), linear between neighbours.
double percentile(const std::vector<double>& sorted, double p) {
  const double h = p * double(sorted.size() - 1);
  const size_t low = size_t(std::floor(h));
  if (low + 1 >= sorted.size()) return sorted.back();
  return sorted[low] + (h - double(low)) * (sorted[low + 1] - sorted[low]);
}

// Frames i >= 1 whose time exceeds 2.5 times the mean of the (up to) 30 before.
int stutters(const std::vector<double>& times) {
  int count = 0;
  for (size_t i = 1; i < times.size(); ++i) {
    const size_t first = i > 30 ? i - 30 : 0;
    double sum = 0;
    for (size_t j = first; j < i; ++j) sum += times[j];
    if (times[i] > 2.5 * sum / double(i - first)) ++count;
  }
  return count;
}

TEST(CaptureTiming, TimeInSecondsStepsEqualMsBetweenPresentsAndTheSummaryIsThatOfTheRowsAfterWarmup) {
  const std::string dir = makeTempDir("capture-timing");
  constexpr int kFrames = 90, kWarmup = 12;
  // Grid 160: the CPU step takes long enough, and varies enough, that the
  // host's frame span and the present-to-present interval cannot coincide.
  for (const char* strategy : {"poll", "enqueue"}) {
    SCOPED_TRACE(strategy);
    const std::string path = dir + "/" + strategy + ".csv";
    const AppResult result =
        runApp({"--headless", "--backend", "cpu", "--grid", "160", "--frames", std::to_string(kFrames),
                "--size", "96x96", "--switch-sync-every", "9", "--wait-strategy", strategy, "--warmup",
                std::to_string(kWarmup), "--capture", path},
               {"VKSIM_VALIDATION=1"});
    ASSERT_FALSE(result.timedOut) << result.out << result.err;
    ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
    EXPECT_EQ(summaryField(result.out, "validation_errors"), "0") << result.err;
    EXPECT_EQ(summaryField(result.out, "validation"), "on") << result.out;
    EXPECT_EQ(summaryField(result.out, "sync_validation"), "on") << result.out;

    const Csv csv = readCsv(path);
    ASSERT_EQ(csv.rows.size(), size_t(kFrames));
    for (const char* name : {"TimeInSeconds", "MsBetweenPresents", "MsCpuFrame"})
      ASSERT_TRUE(csv.column.count(name)) << name;

    // Present to present: each row's MsBetweenPresents is the step of
    // TimeInSeconds from the row before (row 0 has no present before it).
    int differsFromCpuFrame = 0;
    for (size_t i = 1; i < csv.rows.size(); ++i) {
      const double step = (csv.number(i, "TimeInSeconds") - csv.number(i - 1, "TimeInSeconds")) * 1000.0;
      const double between = csv.number(i, "MsBetweenPresents");
      EXPECT_NEAR(between, step, kIntervalToleranceMs) << "row " << i;
      EXPECT_GT(csv.number(i, "TimeInSeconds"), csv.number(i - 1, "TimeInSeconds")) << "row " << i;
      if (std::fabs(between - csv.number(i, "MsCpuFrame")) > kIntervalToleranceMs) ++differsFromCpuFrame;
    }
    // The host frame span is another quantity: it starts at the fence wait
    // and ends after the sim step, not at a present point.
    EXPECT_GT(differsFromCpuFrame, 0);

    // The statistics from the printed rows after the warm-up.
    std::vector<double> times;
    for (size_t i = kWarmup; i < csv.rows.size(); ++i) times.push_back(csv.number(i, "MsBetweenPresents"));
    const size_t n = times.size();
    double totalMs = 0;
    for (double t : times) totalMs += t;
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const size_t slowestCount = std::max<size_t>(1, (n + 99) / 100);
    double slowestSum = 0;
    for (size_t i = 0; i < slowestCount; ++i) slowestSum += sorted[n - 1 - i];

    const auto summary = nlohmann::json::parse(readFile(dir + "/" + strategy + ".summary.json"));
    EXPECT_EQ(summary.at("rows"), kFrames);
    EXPECT_EQ(summary.at("warmupFramesExcluded"), kWarmup);
    EXPECT_EQ(summary.at("frames"), n);
    // Each printed time is within 0.05 us of the one the app summed.
    const double totalTolerance = double(n) * kPrintedMsTolerance;
    EXPECT_NEAR(summary.at("durationSeconds").get<double>() * 1000.0, totalMs, totalTolerance);
    const double fps = double(n) / (totalMs / 1000.0);
    EXPECT_NEAR(summary.at("averageFps").get<double>(), fps, fps * totalTolerance / totalMs * 1.01);
    const auto& ms = summary.at("frameTimeMs");
    const std::pair<const char*, double> percentiles[] = {
        {"p50", 0.5}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p99_9", 0.999}};
    for (const auto& [key, p] : percentiles)
      EXPECT_NEAR(ms.at(key).get<double>(), percentile(sorted, p), kPrintedMsTolerance) << key;
    const double p99 = percentile(sorted, 0.99), p999 = percentile(sorted, 0.999);
    EXPECT_NEAR(summary.at("onePercentLowFps").get<double>(), 1000.0 / p99,
                1000.0 / (p99 - kPrintedMsTolerance) - 1000.0 / p99);
    EXPECT_NEAR(summary.at("pointOnePercentLowFps").get<double>(), 1000.0 / p999,
                1000.0 / (p999 - kPrintedMsTolerance) - 1000.0 / p999);
    EXPECT_NEAR(summary.at("slowestOnePercentMeanMs").get<double>(), slowestSum / double(slowestCount),
                kPrintedMsTolerance);
    EXPECT_EQ(summary.at("stutterCount"), stutters(times));
  }
}

// In a window the present point is the vkQueuePresentKHR call: the same
// relation holds there (FIFO under Xvfb).
TEST(CaptureTiming, InAWindowTimeInSecondsStepsEqualMsBetweenPresents) {
  const char* display = std::getenv("VKSIM_TEST_DISPLAY");
  ASSERT_TRUE(display && *display)
      << "run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY";
  const std::string dir = makeTempDir("capture-timing-window");
  const AppResult result = runApp({"--backend", "cpu", "--grid", "96", "--frames", "40", "--size", "320x240",
                                   "--vsync", "on", "--capture", dir + "/window.csv"},
                                  {"VKSIM_VALIDATION=1", std::string("DISPLAY=") + display});
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("in a window"), std::string::npos) << result.out;
  EXPECT_EQ(summaryField(result.out, "validation_errors"), "0") << result.err;
  const auto summary = nlohmann::json::parse(readFile(dir + "/window.summary.json"));
  EXPECT_EQ(summary.at("environment").at("presentPoint"), "vkQueuePresentKHR call");
  const Csv csv = readCsv(dir + "/window.csv");
  ASSERT_EQ(csv.rows.size(), 40u);
  for (size_t i = 1; i < csv.rows.size(); ++i) {
    const double step = (csv.number(i, "TimeInSeconds") - csv.number(i - 1, "TimeInSeconds")) * 1000.0;
    EXPECT_NEAR(csv.number(i, "MsBetweenPresents"), step, kIntervalToleranceMs) << "row " << i;
  }
}

}  // namespace
}  // namespace vksim::testing
