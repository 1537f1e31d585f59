// libFuzzer target: the command line (app/cli.h, parseCommandLine). An input
// is the arguments after the program name, one per line. Checks, beyond "no
// crash, no sanitizer report, no slow input":
//   - a refusal (exit 2 or 3) is one line starting "vkcuda-sim: "; --help and
//     --version come back with exit 0;
//   - accepted options hold only values the options allow, and none of the
//     combinations that parseCommandLine refuses;
//   - parsing leaves no file behind (it creates and removes probe files in
//     the working directory, a fresh empty one).
// Arguments that name a path under /dev, /proc or /sys are skipped: reading
// /dev/kmsg blocks by design, and which device a user names is their choice.
// The target works in a fresh directory of its own, so the corpus and
// artifact paths given to libFuzzer must be absolute (smoke.sh's are).
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "app/cli.h"
#include "fuzz_check.h"

namespace {

std::string workDirectory;

bool directoryIsEmpty(const std::string& path) {
  DIR* directory = opendir(path.c_str());
  if (!directory) return false;
  bool empty = true;
  while (const dirent* entry = readdir(directory)) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") empty = false;
  }
  closedir(directory);
  return empty;
}

std::vector<std::string> splitArguments(std::string_view text) {
  std::vector<std::string> arguments;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    arguments.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (!arguments.empty() && arguments.back().empty()) arguments.pop_back();  // a final newline
  return arguments;
}

bool namesASpecialTree(const std::vector<std::string>& arguments) {
  for (const std::string& argument : arguments)
    for (const char* tree : {"/dev", "/proc", "/sys"})
      if (argument.find(tree) != std::string::npos) return true;
  return false;
}

void checkAccepted(const vksim::Options& o, std::string_view text) {
  using vksim::fuzz::expect;
  expect(o.model.grid >= vksim::kMinGrid && o.model.grid <= vksim::kMaxGrid, "a grid out of range", text);
  expect(o.width >= 16 && o.width <= 8192 && o.height >= 16 && o.height <= 8192, "a size out of range", text);
  expect(o.frames >= -1 && o.frames <= int64_t(vksim::kMaxFrames), "a frame count out of range", text);
  expect(o.lodCellPixels >= vksim::kMinLodCellPixels && o.lodCellPixels <= vksim::kMaxLodCellPixels,
         "--lod-pixels out of range", text);
  expect(o.memoryOwner != vksim::MemoryOwner::cuda ||
             ((o.backend == vksim::BackendChoice::cuda || o.backend == vksim::BackendChoice::automatic) &&
              o.transfer == vksim::TransferMode::zeroCopy),
         "--memory-owner cuda accepted without the CUDA backend's zero-copy path", text);
  expect(o.backend != vksim::BackendChoice::opencl || o.sync == vksim::SyncMode::binary,
         "the OpenCL backend accepted with timeline sync", text);
  expect(!o.frameTags || (o.headless && o.backend == vksim::BackendChoice::cpu &&
                          o.transfer == vksim::TransferMode::zeroCopy),
         "--frame-tags accepted outside headless CPU zero-copy", text);
  expect(vksim::refuseForRenderQueue(o).empty(), "an option that the render queue refuses was accepted", text);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A fresh, empty working directory: relative output paths land here, and
  // it must stay empty. Standard input reads as empty (/dev/stdin is a path
  // a user may give).
  char pattern[] = "/tmp/vksim-fuzz-cli.XXXXXX";
  if (!mkdtemp(pattern) || chdir(pattern) != 0) std::abort();
  workDirectory = pattern;
  if (!std::freopen("/dev/null", "r", stdin)) std::abort();
  // The source tree's scenes (compiled in), whatever the shell has set.
  unsetenv("VKSIM_SCENE_DIR");
  unsetenv("VKSIM_WAIT_TIMEOUT_MS");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> arguments = splitArguments(text);
  if (namesASpecialTree(arguments)) return 0;
  std::vector<const char*> argv{"vkcuda-sim"};
  for (const std::string& argument : arguments) argv.push_back(argument.c_str());
  const vksim::Result<vksim::Options> parsed = vksim::parseCommandLine(int(argv.size()), argv.data());
  vksim::fuzz::expect(directoryIsEmpty(workDirectory), "parsing left a file in the working directory", text);
  if (parsed) {
    checkAccepted(*parsed, text);
    return 0;
  }
  const vksim::Error& error = parsed.error();
  if (error.exitCode == vksim::kExitSuccess) return 0;  // --help, --version
  if (error.exitCode == vksim::kExitEnvironment) {
    vksim::Error asUsage = error;  // the same one-line rule; 3 is what the backend cannot do
    asUsage.exitCode = vksim::kExitUsage;
    vksim::fuzz::expectOneLineRefusal(asUsage, "vkcuda-sim: ");
    return 0;
  }
  vksim::fuzz::expectOneLineRefusal(error, "vkcuda-sim: ");
  return 0;
}
