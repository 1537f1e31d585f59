// vkcuda-sim: a Vulkan renderer and a CUDA (or CPU) simulation sharing one
// vertex buffer with zero copies. Exit codes: 0 success, 2 usage error,
// 3 unsupported environment, 4 runtime failure (README.md).
#include <cstdio>

#include "app/app.h"
#include "app/cli.h"

int main(int argc, char** argv) {
  const vksim::ParseOutcome parsed = vksim::parseCommandLine(argc, argv);
  if (!parsed.options) {
    std::fputs(parsed.message.c_str(), parsed.exitCode == vksim::kExitSuccess ? stdout : stderr);
    return parsed.exitCode;
  }
  return vksim::runApplication(*parsed.options);
}
