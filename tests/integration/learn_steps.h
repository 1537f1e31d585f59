// The learn/ steps (docs/learn/README.md) as the tests see them: a fixed list,
// found in the learn directory by their number, so that a step joins the
// tests as soon as its binary is built; and every step's broken variants
// (`--break NAME`), with what each must end with on an NVIDIA GPU.
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

// The steps that the generic checks run (1 to 9: each runs with no
// arguments). Steps 10 and 11 of docs/learn/README.md's table take options
// of their own and have tests of their own (tests/gpu/test_learn_steps.cpp).
constexpr int kLearnStepCount = 9;

// Steps 1 to kLearnStepCount, each with the binary learn_<NN>_<name> if the
// learn directory holds one (learn_01_pair_devices ... learn_09_opencl).
inline std::vector<LearnStep> learnSteps() {
  std::vector<LearnStep> steps;
  const std::filesystem::path directory = learnDirectory();
  for (int number = 1; number <= kLearnStepCount; ++number) {
    LearnStep step{number, ""};
    const std::string prefix = std::string(number < 10 ? "learn_0" : "learn_") + std::to_string(number) + "_";
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

// A rule a step breaks on purpose with `--break name`, and how the run must
// end on an NVIDIA GPU: its exit code and a regular expression its last line
// on stderr must match (docs/learn/NN-*.md, "Broken on purpose", says why).
struct BrokenVariant {
  int step = 0;
  std::string name;
  int exitCode = 4;
  std::string lastLine;
};

// Every step's variants, in `--break list` order.
inline std::vector<BrokenVariant> brokenVariants() {
  return {
      {1, "driver-uuid", 3, R"(learn 01: no Vulkan device pairs with a CUDA device \(.*no CUDA device has its UUID.*\))"},
      {2, "import-size", 4, R"(learn 02: .* failed: cudaErrorInvalidValue)"},
      {3, "no-wait", 4, R"(learn 03: round \d+: value \d+ is 0x[0-9a-f]{8}, expected 0x[0-9a-f]{8})"},
      {4, "wait-value", 4, R"(learn 04: .*vkWaitForFences.* failed: VK_TIMEOUT)"},
      {4, "read-value", 4, R"(learn 04: round \d+: value \d+ is 0x[0-9a-f]{8}, expected 0x[0-9a-f]{8})"},
      {5, "no-wait", 4, R"(learn 05: round \d+: value \d+ is 0x[0-9a-f]{8}, expected 0x[0-9a-f]{8})"},
      {6, "early-draw", 4, R"(learn 06: round \d+: (triangle \d+'s pixel|pixel \(\d+, \d+\) behind triangle) .*)"},
      {7, "levels", 4, R"(learn 07: .*(cudaGetMipmappedArrayLevel|cudaExternalMemoryGetMappedMipmappedArray).* failed: cudaError\w+)"},
      {8, "granularity", 4, R"(learn 08: .*memCreate.* failed: CUDA_ERROR_\w+)"},
      {9, "no-signal", 4, R"(learn 09: .*vkWaitForFences.* failed: VK_TIMEOUT)"},
  };
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
