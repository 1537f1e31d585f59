// The learn/ steps (docs/learn/README.md) as the tests see them: a fixed list
// of nine, found in the learn directory by their number, so that a step joins
// the tests as soon as its binary is built.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace vksim::testing {

struct LearnStep {
  int number = 0;
  std::string path;  // the binary; empty when not built (yet)
};

// $VKSIM_LEARN_DIR if set, else the build tree's learn/ (VKSIM_LEARN_DIR, a
// compile-time define), else learn/ beside the test executable (a packed copy).
inline std::string learnDirectory() {
  if (const char* overridden = std::getenv("VKSIM_LEARN_DIR"); overridden && *overridden) return overridden;
  if (std::filesystem::is_directory(VKSIM_LEARN_DIR)) return VKSIM_LEARN_DIR;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "learn").string();
}

// Steps 1 to 9, each with the binary learn_<NN>_<name> if the learn directory
// holds one (steps 1-5: learn_01_pair_devices ... learn_05_ownership_transfers).
inline std::vector<LearnStep> learnSteps() {
  std::vector<LearnStep> steps;
  const std::filesystem::path directory = learnDirectory();
  for (int number = 1; number <= 9; ++number) {
    LearnStep step{number, ""};
    const std::string prefix = std::string("learn_0") + std::to_string(number) + "_";
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ignored)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && entry.is_regular_file() && access(entry.path().c_str(), X_OK) == 0)
        step.path = entry.path().string();
    }
    steps.push_back(step);
  }
  return steps;
}

// The lines of `text`, a last line without '\n' included.
inline std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  for (char c : text) {
    if (c != '\n') {
      line += c;
      continue;
    }
    lines.push_back(line);
    line.clear();
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// Steps 10 and 11 (docs/learn/10-frames-in-flight.md, 11-whole-sample.md):
// the binary learn_<number>_<name> in the learn directory, "" when not built.
inline std::string laterLearnStep(int number) {
  const std::string prefix = "learn_" + std::to_string(number) + "_";
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator(learnDirectory(), ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.is_regular_file() && access(entry.path().c_str(), X_OK) == 0)
      return entry.path().string();
  }
  return "";
}

}  // namespace vksim::testing
