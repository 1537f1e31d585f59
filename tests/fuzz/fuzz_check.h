// What every fuzz target checks of a refusal, and how a broken promise is
// reported: abort(), which libFuzzer records as a crash with the input that
// caused it (a file to add to the corpus, as a regression case).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/result.h"

namespace vksim::fuzz {

inline void expect(bool holds, const char* promise, std::string_view detail) {
  if (holds) return;
  std::fprintf(stderr, "broken promise: %s\n%.*s\n", promise, int(detail.size()), detail.data());
  std::abort();
}

// A refusal is exit code 2 and one line that starts with `prefix` (the file,
// or "vkcuda-sim: "); a trailing newline is allowed, no other line break
// (a '\r' would let the terminal overwrite what the line said).
inline void expectOneLineRefusal(const Error& error, std::string_view prefix) {
  std::string_view message = error.message;
  expect(error.exitCode == kExitUsage, "a refusal's exit code is not 2", message);
  expect(message.substr(0, prefix.size()) == prefix, "a refusal does not start with its source", message);
  if (!message.empty() && message.back() == '\n') message.remove_suffix(1);
  expect(message.size() > prefix.size(), "a refusal says nothing", message);
  expect(message.find_first_of("\n\r") == std::string_view::npos, "a refusal is more than one line", message);
}

}  // namespace vksim::fuzz
