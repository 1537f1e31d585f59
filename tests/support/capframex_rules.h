// The rules by which CapFrameX reads a frame-time CSV, written out again here
// (in our own code) from its import code, so that tests can apply them to
// every format this program writes. Source: CXWorld/CapFrameX at commit
// 3ba66ff508303ed669c37a37e1b6391939391e2a:
//   source/CapFrameX.Data/FileRecordInfo.cs  IsMangoHudFile, StandardIsValid,
//                                            MangoHudIsValid, HEADER_MARKER "//"
//   source/CapFrameX.Data/RecordManager.cs   LoadSessionFromCSV (lines skipped),
//                                            ConvertPresentDataLinesToSessionRun
//                                            (the column names for each quantity),
//                                            FilterByDominantSwapChain
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace vksim::testing {

// What CapFrameX makes of a file.
struct CapFrameXReading {
  bool mangoHud = false;      // detected as a MangoHud log by its first line
  bool headerCheckPassed = false;  // FileRecordInfo's validity check (the file list takes the file)
  std::string headerCheckMissing;  // the required names the column row lacks (standard files)
  // Columns matched for each quantity (-1: none); the last match wins, as in CapFrameX's loop.
  int frameStartColumn = -1, frameTimeColumn = -1, untilDisplayedColumn = -1, droppedColumn = -1,
      displayTimeColumn = -1, cpuStartInMsColumn = -1;
  bool frameStartInMs = false;  // TimeInMs (CapFrameX scales it to seconds)
  std::vector<double> frameStartSeconds;  // per row kept, normalised to the first
  std::vector<double> frameTimeMs;        // what it takes as MsBetweenPresents
  std::vector<bool> dropped;
  std::vector<double> untilDisplayedMs, displayTimeMs;  // 0 where the text does not parse
  std::size_t rowsKept = 0;  // after the dominant (Application, SwapChainAddress) filter
};

namespace capframex {

inline std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

inline std::vector<std::string> splitCommas(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  for (char c : line) {
    if (c == ',') {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

inline std::string lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

inline bool containsIgnoringCase(const std::string& text, const std::string& part) {
  return lower(text).find(lower(part)) != std::string::npos;
}

inline std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

// C#'s double.TryParse with NumberStyles.Any and the invariant culture, for
// the texts these files hold: a number, or nothing ("NA" does not parse).
inline std::optional<double> parseNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

// FileRecordInfo: a MangoHud log is valid with more than 20 lines; a
// standard file with more than 20 (40 with CapFrameX's "//" info header),
// and a column row holding these five names (case-insensitive substrings).
inline void checkHeader(const std::vector<std::string>& lines, CapFrameXReading& reading) {
  if (reading.mangoHud) {
    reading.headerCheckPassed = lines.size() > 20;
    return;
  }
  const bool infoHeader = !lines.empty() && lines[0].find("//") != std::string::npos;
  reading.headerCheckPassed = lines.size() > (infoHeader ? 40u : 20u);
  if (!reading.headerCheckPassed) return;
  std::size_t headerLine = 0;
  if (infoHeader)
    while (headerLine < lines.size() && lines[headerLine].find("//") != std::string::npos) ++headerLine;
  for (const char* name : {"Application", "Dropped", "TimeInSeconds", "MsBetweenPresents", "MsBetweenDisplayChange"})
    if (!containsIgnoringCase(lines[headerLine], name))
      reading.headerCheckMissing += (reading.headerCheckMissing.empty() ? "" : " ") + std::string(name);
  reading.headerCheckPassed = reading.headerCheckMissing.empty();
}

// ConvertPresentDataLinesToSessionRun's column matching: exact names, some
// compared ignoring case, as CapFrameX compares them.
inline void matchColumns(const std::vector<std::string>& names, CapFrameXReading& reading) {
  for (int i = 0; i < int(names.size()); ++i) {
    const std::string& name = names[size_t(i)];
    const std::string folded = lower(name);
    if (name == "AppRenderStart" || name == "TimeInSeconds" || name == "TimeInMs") {
      reading.frameStartColumn = i;
      reading.frameStartInMs = name == "TimeInMs";
    }
    if (folded == "msbetweenapppresents" || folded == "msbetweenpresents" || folded == "frametime")
      reading.frameTimeColumn = i;
    if (folded == "msuntildisplayed" || folded == "displaylatency") reading.untilDisplayedColumn = i;
    if (name == "AppMissed" || name == "Dropped") reading.droppedColumn = i;
    if (folded == "msbetweendisplaychange" || folded == "displayedtime") reading.displayTimeColumn = i;
    if (name == "CPUStartQPCTimeInMs" || name == "CPUStartTimeInMs") reading.cpuStartInMsColumn = i;
  }
}

// FilterByDominantSwapChain: with Application and SwapChainAddress columns,
// only the rows of the (application, swap chain) pair with the most rows stay.
inline std::vector<std::string> keepDominantSwapChain(const std::vector<std::string>& rows,
                                                      const std::vector<std::string>& names) {
  int swapChain = -1, application = -1;
  for (int i = 0; i < int(names.size()); ++i) {
    if (lower(names[size_t(i)]) == "swapchainaddress") swapChain = i;
    if (lower(names[size_t(i)]) == "application") application = i;
  }
  if (swapChain < 0 || application < 0) return rows;
  std::map<std::pair<std::string, std::string>, int> counts;
  for (const std::string& row : rows) {
    const std::vector<std::string> values = splitCommas(row);
    if (int(values.size()) <= std::max(swapChain, application)) continue;
    ++counts[{values[size_t(application)], values[size_t(swapChain)]}];
  }
  if (counts.empty()) return rows;
  const auto dominant =
      std::max_element(counts.begin(), counts.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
  std::vector<std::string> kept;
  for (const std::string& row : rows) {
    const std::vector<std::string> values = splitCommas(row);
    if (int(values.size()) > std::max(swapChain, application) && values[size_t(application)] == dominant.first &&
        values[size_t(swapChain)] == dominant.second)
      kept.push_back(row);
  }
  return kept;
}

inline double numberOrZero(const std::vector<std::string>& values, int column) {
  if (column < 0 || column >= int(values.size())) return 0.0;
  return parseNumber(values[size_t(column)]).value_or(0.0);
}

inline void readRows(const std::vector<std::string>& rows, CapFrameXReading& reading) {
  for (const std::string& row : rows) {
    if (row.empty()) continue;
    const std::vector<std::string> values = splitCommas(row);
    double start = numberOrZero(values, reading.frameStartColumn) * (reading.frameStartInMs ? 1e-3 : 1.0);
    if (reading.cpuStartInMsColumn >= 0) start = numberOrZero(values, reading.cpuStartInMsColumn) * 1e-3;
    reading.frameStartSeconds.push_back(start);
    reading.frameTimeMs.push_back(numberOrZero(values, reading.frameTimeColumn));
    // An int that does not parse ("NA") is read as dropped.
    if (reading.droppedColumn >= 0) {
      const std::string text = reading.droppedColumn < int(values.size()) ? values[size_t(reading.droppedColumn)] : "";
      const std::optional<double> number = parseNumber(text);
      reading.dropped.push_back(!number || *number != 0.0);
    } else {
      reading.dropped.push_back(false);
    }
    reading.displayTimeMs.push_back(numberOrZero(values, reading.displayTimeColumn));
    reading.untilDisplayedMs.push_back(numberOrZero(values, reading.untilDisplayedColumn));
  }
  // Without a frame-start column (TimeInSeconds, TimeInMs, AppRenderStart)
  // the times become the running sum of frame times, whatever else was read.
  if (reading.frameStartColumn < 0) {
    double sum = 0.0;
    for (size_t i = 0; i < reading.frameTimeMs.size(); ++i) {
      if (i > 0) sum += reading.frameTimeMs[i];
      reading.frameStartSeconds[i] = sum / 1000.0;
    }
  }
  const double first = reading.frameStartSeconds.empty() ? 0.0 : reading.frameStartSeconds[0];
  if (reading.frameStartColumn >= 0)
    for (double& start : reading.frameStartSeconds) start -= first;
}

}  // namespace capframex

// Reads `text` (a whole CSV) as CapFrameX does: the MangoHud detection and
// the lines it skips, the header check, the column matching, the swap-chain
// filter, and each row's values.
inline CapFrameXReading readAsCapFrameX(const std::string& text) {
  using namespace capframex;
  CapFrameXReading reading;
  const std::vector<std::string> lines = splitLines(text);
  if (lines.empty()) return reading;
  // IsMangoHudFile: both words on the first line.
  reading.mangoHud = lines[0].find("kernel") != std::string::npos &&
                     lines[0].find("cpuscheduler") != std::string::npos;
  checkHeader(lines, reading);
  std::vector<std::string> rest;
  size_t first = 0;
  if (reading.mangoHud) {
    first = 2;
  } else {
    while (first < lines.size() && lines[first].find("//") != std::string::npos) ++first;
  }
  rest.assign(lines.begin() + long(std::min(first, lines.size())), lines.end());
  if (rest.empty()) return reading;
  // The column row is the first line left when it names "frametime" or
  // starts with "Application" (otherwise CapFrameX uses its own capture's).
  if (rest[0].find("frametime") == std::string::npos && rest[0].rfind("Application", 0) != 0) return reading;
  std::vector<std::string> names = splitCommas(rest[0]);
  for (std::string& name : names) name = trim(name);
  const std::vector<std::string> rows =
      keepDominantSwapChain(std::vector<std::string>(rest.begin() + 1, rest.end()), names);
  matchColumns(names, reading);
  readRows(rows, reading);
  reading.rowsKept = reading.frameTimeMs.size();
  return reading;
}

}  // namespace vksim::testing
