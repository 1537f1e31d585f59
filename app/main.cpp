// vkcuda-sim: a Vulkan renderer and a CUDA (or CPU) simulation sharing one
// vertex buffer with zero copies. Exit codes: 0 success, 2 usage error,
// 3 unsupported environment, 4 runtime failure (README.md).
#include <cstdio>

#include "app/app.h"
#include "app/cli.h"

int main(int argc, char** argv) {
  const vksim::Result<vksim::Options> parsed = vksim::parseCommandLine(argc, argv);
  if (!parsed) {
    // --help and --version arrive here too, as exit code 0 (base/result.h).
    const vksim::Error& stop = parsed.error();
    std::fputs(stop.message.c_str(), stop.exitCode == vksim::kExitSuccess ? stdout : stderr);
    return stop.exitCode;
  }
  return vksim::runApplication(*parsed);
}
