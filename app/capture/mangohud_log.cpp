#include "app/capture/mangohud_log.h"

#include <sys/utsname.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <vector>

#include "app/capture/csv_row.h"

namespace vksim {
namespace {

// The text after `prefix` on the last line of `path` that starts with it
// (MangoHud's sed ... | tail -n1), or empty.
std::string lastValueAfter(const std::string& path, std::string_view prefix) {
  std::ifstream in(path);
  std::string line, value;
  while (std::getline(in, line))
    if (line.starts_with(prefix)) value = line.substr(prefix.size());
  return value;
}

// /proc/cpuinfo's "model name<tabs>: NAME": the name after the colon.
std::string cpuModelName() {
  std::string value = lastValueAfter("/proc/cpuinfo", "model name");
  const size_t colon = value.find(':');
  return colon == std::string::npos ? std::string() : value.substr(colon + 1);
}

// /proc/meminfo's MemTotal, in kB, the number only (MangoHud's "ram").
std::string memoryTotalKb() {
  const std::string value = lastValueAfter("/proc/meminfo", "MemTotal:");
  std::string digits;
  for (char c : value)
    if (c >= '0' && c <= '9') digits += c;
  return digits;
}

std::string firstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::string mangoHudField(std::string_view text, bool dropParenthesised) {
  std::string out;
  int depth = 0;
  for (char c : text) {
    if (dropParenthesised && c == '(') ++depth;
    const bool inside = depth > 0;
    if (dropParenthesised && c == ')' && depth > 0) --depth;
    if (inside || c == '"' || c == '\r' || c == '\n') continue;
    if (c == ',' || c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

MangoHudSystemInfo readMangoHudSystemInfo(std::string_view gpu, std::string_view driver) {
  MangoHudSystemInfo info;
  info.os = mangoHudField(lastValueAfter("/etc/os-release", "PRETTY_NAME="), false);
  info.cpu = mangoHudField(cpuModelName(), true);
  info.gpu = mangoHudField(gpu, true);
  info.ram = memoryTotalKb();
  if (utsname names{}; uname(&names) == 0) info.kernel = mangoHudField(names.release, false);
  info.driver = mangoHudField(driver, true);
  // Empty where the kernel has no cpufreq (a VM), as in MangoHud's log.
  info.cpuScheduler = mangoHudField(firstLine("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"), false);
  return info;
}

void writeMangoHudLog(std::ostream& out, const MangoHudSystemInfo& system, std::span<const MangoHudFrame> frames) {
  fmt::memory_buffer buffer;
  RowBuilder row(buffer);
  for (std::string_view column : kMangoHudSystemColumns) row.word(column);
  row.end();
  for (const std::string* value :
       {&system.os, &system.cpu, &system.gpu, &system.ram, &system.kernel, &system.driver, &system.cpuScheduler})
    row.word(*value);
  row.end();
  for (std::string_view column : kMangoHudColumns) row.word(column);
  row.end();
  out.write(buffer.data(), std::streamsize(buffer.size()));
  for (const MangoHudFrame& frame : frames) {
    RowBuilder values(buffer);
    // MangoHud 0.6.8 keeps the frame time in whole microseconds (truncated)
    // and computes fps from that in float arithmetic.
    const uint64_t frameTimeUs = mangoHudFrameTimeUs(frame.frameTimeNs);
    values.sixDigits(double(mangoHudFps(frameTimeUs)));
    values.unsignedInteger(frameTimeUs);
    // cpu_load ... ram_used: not measured here. MangoHud writes 0 for what
    // it did not read (its record starts zeroed), so a reader sees the same.
    for (int column = 0; column < 9; ++column) values.word("0");
    values.signedInteger(frame.elapsedNs);
    values.end();
    out.write(buffer.data(), std::streamsize(buffer.size()));
  }
}

uint64_t mangoHudFrameTimeUs(int64_t frameTimeNs) {
  return uint64_t(std::max<int64_t>(0, frameTimeNs) / 1000);
}

float mangoHudFps(uint64_t frameTimeUs) {
  return 1000.0f / (float(frameTimeUs) / 1000.0f);
}

MangoHudSummary summarizeMangoHudFps(std::span<const float> fps) {
  MangoHudSummary summary;
  if (fps.empty()) return summary;
  std::vector<float> sorted(fps.begin(), fps.end());
  std::sort(sorted.begin(), sorted.end());
  // The lowest ceil(n * p) rows, with n * p in float as MangoHud computes it.
  const auto meanOfLowest = [&sorted](float part) {
    const size_t count = std::max<size_t>(1, size_t(std::ceil(float(sorted.size()) * part)));
    float total = 0.0f;
    for (size_t i = 0; i < count; ++i) total += sorted[i];
    return total / float(count);
  };
  summary.minFps01 = meanOfLowest(0.001f);
  summary.minFps1 = meanOfLowest(0.01f);
  summary.percentile97 = sorted[size_t(std::floor(0.97 * double(sorted.size() - 1)))];
  float total = 0.0f;
  for (float value : sorted) total += value;
  summary.averageFps = total / float(sorted.size());
  return summary;
}

void writeMangoHudSummary(std::ostream& out, const MangoHudSummary& summary) {
  out << "0.1% Min FPS,1% Min FPS,97% Percentile FPS,Average FPS,GPU Load,CPU Load\n"
      << fmt::format("{:.1f},{:.1f},{:.1f},{:.1f},0.0,0.0", double(summary.minFps01), double(summary.minFps1),
                     double(summary.percentile97), double(summary.averageFps));
}

}  // namespace vksim
