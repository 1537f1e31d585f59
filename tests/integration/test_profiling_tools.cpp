// The NVTX ranges as a CUDA tool receives them (sim/nvtx_ranges.h,
// docs/profiling.md). The app runs with NVTX_INJECTION64_PATH pointing at
// tests/support/nvtx_recorder.cpp, which NVTX loads exactly as it loads
// Nsight Systems' or Nsight Compute's injection library; the recorder writes
// every push and pop, and the test rebuilds the tree of ranges of the main
// thread and compares its frames with the value schedule
// (docs/value-schedule.md), mode switches included. The CPU backend takes
// the schedule's turns on the host, so everything here runs without CUDA:
// the frame, the render's submission, the host's waits and the step's wait,
// writes and signal.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "app_runner.h"

namespace vksim {
namespace {

using testing::AppResult;

// One frame of the schedule, in the words the ranges use.
struct FrameWords {
  std::string renderWait, renderSignal, stepWait, stepSignal;
};

// What frame k's ranges must be, nested by two spaces, in the order they
// happen: the slot's fence, the poll for the sim signal the render waits on,
// the submission, the poll for the render's signal, then the step.
std::string expectedFrame(int k, const FrameWords& words) {
  std::ostringstream out;
  out << "frame " << k << "\n"
      << "  host wait: frame slot's fence\n"
      << "  host wait: sim signalled " << words.renderWait << "\n"
      << "  render " << k << ": wait " << words.renderWait << ", signal " << words.renderSignal << "\n"
      << "  host wait: render signalled " << words.renderSignal << "\n"
      << "  sim step: wait " << words.stepWait << ", signal " << words.stepSignal << "\n"
      << "    write vertices\n";
  return out.str();
}

struct Recording {
  std::vector<std::string>
      frames;  // each top-level "frame k" range with what it holds, as expectedFrame writes it
  std::map<std::string, int> openRanges;  // per thread: pushes never popped
  std::vector<std::string> domains;       // of every push, in order of first use
};

// Rebuilds the trees from the recorder's lines ("push\ttid\tdomain\tname",
// "pop\ttid\tdomain").
Recording readRecording(const std::string& text) {
  Recording recording;
  std::map<std::string, int> depth;
  std::istringstream lines(text);
  std::string line;
  std::string* frame = nullptr;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string field; std::getline(split, field, '\t');) fields.push_back(field);
    if (fields.size() < 3) continue;
    const std::string& thread = fields[1];
    if (fields[0] == "pop") {
      --depth[thread];
      continue;
    }
    if (fields.size() < 4) continue;
    if (std::find(recording.domains.begin(), recording.domains.end(), fields[2]) == recording.domains.end())
      recording.domains.push_back(fields[2]);
    const int level = depth[thread]++;
    if (level == 0 && fields[3].rfind("frame ", 0) == 0) {
      recording.frames.push_back("");
      frame = &recording.frames.back();
    }
    if (level == 0 && fields[3].rfind("frame ", 0) != 0) frame = nullptr;
    if (frame) *frame += std::string(size_t(2 * level), ' ') + fields[3] + "\n";
  }
  for (const auto& [thread, open] : depth)
    if (open != 0) recording.openRanges[thread] = open;
  return recording;
}

TEST(ProfilingTools, NvtxRangesFollowTheScheduleThroughModeSwitches) {
  const std::string dir = testing::makeTempDir("nvtx_ranges");
  const std::string record = dir + "/ranges.tsv";
  // Two timeline frames, two binary, two timeline (--switch-sync-every 2).
  const AppResult result = testing::runApp(
      {"--headless", "--backend", "cpu", "--grid", "32", "--size", "64x64", "--frames", "6",
       "--switch-sync-every", "2"},
      {std::string("NVTX_INJECTION64_PATH=") + VKSIM_NVTX_RECORDER, "VKSIM_NVTX_RECORD=" + record});
  testing::expectCleanRun(result);
  const Recording recording = readRecording(testing::readFile(record));
  ASSERT_EQ(recording.domains, std::vector<std::string>{"vkcuda-sim"})
      << "every range in the program's one domain";
  EXPECT_TRUE(recording.openRanges.empty()) << "every push popped on its own thread";
  // docs/value-schedule.md: render k waits what sim k-1 (or the initial
  // write, with simDone) signalled and signals 2k+1 or renderDone; sim k
  // waits 2k+1 or renderDone and signals 2k+2 or simDone.
  const std::vector<FrameWords> schedule = {
      {"simDone", "1", "1", "2"},                          // timeline; render 0 waits for the initial write
      {"2", "3", "3", "4"},                                // timeline
      {"4", "renderDone", "renderDone", "simDone"},        // binary, after a timeline step
      {"simDone", "renderDone", "renderDone", "simDone"},  // binary
      {"simDone", "9", "9", "10"},                         // timeline, after a binary step
      {"10", "11", "11", "12"},                            // timeline
  };
  ASSERT_EQ(recording.frames.size(), schedule.size()) << testing::readFile(record);
  for (size_t k = 0; k < schedule.size(); ++k)
    EXPECT_EQ(recording.frames[k], expectedFrame(int(k), schedule[k])) << "frame " << k;
}

}  // namespace
}  // namespace vksim
