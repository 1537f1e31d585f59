// Broken-on-purpose variants of steps 10 and 11, whose command lines take
// options of their own (check.h's parseArguments reads at most one
// argument): `--break NAME` runs the step with one rule broken, and a check
// in the step catches it (exit 4, one line). `--break list` prints each name
// with what it breaks and exits 0. The variants are check.h's BrokenVariant,
// the exit codes check.h's. Nothing here teaches interop.
#pragma once

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

using BreakVariant = BrokenVariant;

// The value of `--break NAME` among argv[1..argc), "" when there is none.
// Removes the two arguments from argv (argc updated) so that the step reads
// the rest. `--break list` prints "NAME: what" per variant and exits 0; a
// name not in `variants` exits kExitUsage with one line.
inline std::string takeBreakArgument(int& argc, char** argv, const std::vector<BreakVariant>& variants) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--break") != 0) continue;
    if (i + 1 >= argc) exitWith(kExitUsage, "--break needs a name (--break list shows them)");
    const std::string name = argv[i + 1];
    for (int j = i; j + 2 < argc; ++j) argv[j] = argv[j + 2];
    argc -= 2;
    if (name == "list") {
      for (const BreakVariant& variant : variants) std::printf("%s: %s\n", variant.name, variant.what);
      std::fflush(stdout);
      std::_Exit(kExitOk);
    }
    for (const BreakVariant& variant : variants)
      if (name == variant.name) return name;
    exitWith(kExitUsage, "no broken variant '%s' (--break list shows them)", name.c_str());
  }
  return "";
}
