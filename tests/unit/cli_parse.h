// parseCommandLine as the tests call it: arguments after the program name.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "app/cli.h"

namespace vksim::testing {

inline Result<Options> parseArguments(std::vector<std::string> args) {
  args.insert(args.begin(), "vkcuda-sim");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parseCommandLine(int(argv.size()), argv.data());
}

// The tests' short name for it (one definition: a unity build puts several
// test files in one translation unit).
inline Result<Options> parse(std::vector<std::string> args) { return parseArguments(std::move(args)); }

}  // namespace vksim::testing
