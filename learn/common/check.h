// The checks every learn/ step uses, and its exit codes. Nothing here
// teaches interop; it only keeps error handling out of the lesson's way.
//
//   exit 0  everything the step checks holds ("step N: ok: ..." on stdout)
//   exit 2  a bad command line (an unknown --break variant; one line)
//   exit 3  the machine lacks what the step needs (one line on stderr)
//   exit 4  a check failed, or an API call returned an error (one line)
//
// Every step also runs broken on purpose: `--break NAME` breaks one rule,
// and a check of the step catches it (exit 4, or exit 3 where the broken
// code can no longer find a device); `--break list` prints the variants.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include <cuda_runtime.h>
#include <vulkan/vk_enum_string_helper.h>
#include <vulkan/vulkan.h>

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitMissing = 3;
constexpr int kExitCheckFailed = 4;

// "learn 02": the prefix of every line a step prints on stderr. main sets it
// first thing.
inline const char* gStepName = "learn";

// Prints "<gStepName>: <message>" on stderr and exits with `code`.
[[noreturn]] inline void exitWith(int code, const char* format, ...) __attribute__((format(printf, 2, 3)));
[[noreturn]] inline void exitWith(int code, const char* format, ...) {
  std::fprintf(stderr, "%s: ", gStepName);
  va_list arguments;
  va_start(arguments, format);
  std::vfprintf(stderr, format, arguments);
  va_end(arguments);
  std::fputc('\n', stderr);
  // Not exit(): after a failed wait, CUDA work may still wait for a signal
  // that never comes, and the CUDA runtime's exit handlers would wait for it
  // with no bound. The process ends here, its output flushed, without them.
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(code);
}

// The call, where it was made and the VkResult's name; exit 4.
#define VK_CHECK(call)                                                                                         \
  do {                                                                                                         \
    VkResult vkCheckResult = (call);                                                                           \
    if (vkCheckResult != VK_SUCCESS)                                                                           \
      exitWith(kExitCheckFailed, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call,                           \
               string_VkResult(vkCheckResult));                                                                \
  } while (0)

// The call, where it was made and the cudaError_t's name; exit 4. A CUDA call
// may report an error left by earlier asynchronous work (interop-reference G1).
#define CUDA_CHECK(call)                                                                                       \
  do {                                                                                                         \
    cudaError_t cudaCheckError = (call);                                                                       \
    if (cudaCheckError != cudaSuccess)                                                                         \
      exitWith(kExitCheckFailed, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call,                           \
               cudaGetErrorName(cudaCheckError));                                                              \
  } while (0)

// A value the step checks: exit 4 with the message when it does not hold.
#define EXPECT_OR_EXIT(condition, ...)                                                                         \
  do {                                                                                                         \
    if (!(condition))                                                                                          \
      exitWith(kExitCheckFailed, __VA_ARGS__);                                                                 \
  } while (0)

// ---- broken on purpose ------------------------------------------------------

// One rule a step can break on purpose: its --break name and what it does.
struct BrokenVariant {
  const char* name;
  const char* what;
};

// The variant this run breaks ("" for none); parseArguments sets it.
inline const char* gBreak = "";

// True when this run breaks the rule called `name`.
inline bool breaking(const char* name) { return std::strcmp(gBreak, name) == 0; }

// Reads `[--break NAME | --break list]`, and one ARGUMENT where the step
// names it (`argumentName`: steps 6 and 7 take the PNG's path), after main
// has set gStepName: `--break list` prints "NAME: what" per variant and
// exits 0; an unknown name or option, or an argument the step does not take,
// exits 2. Returns ARGUMENT, or nullptr.
inline const char* parseArguments(int argc, char** argv, std::initializer_list<BrokenVariant> variants,
                                  const char* argumentName = nullptr) {
  const char* argument = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--break") != 0) {
      if (argv[i][0] == '-' || argument != nullptr || argumentName == nullptr) {
        if (argumentName == nullptr) exitWith(kExitUsage, "usage: [--break NAME|list]");
        exitWith(kExitUsage, "usage: [--break NAME|list] [%s]", argumentName);
      }
      argument = argv[i];
      continue;
    }
    if (++i == argc) exitWith(kExitUsage, "--break needs a variant's name, or list");
    gBreak = argv[i];
  }
  if (std::strcmp(gBreak, "list") == 0) {
    for (const BrokenVariant& variant : variants) std::printf("%s: %s\n", variant.name, variant.what);
    std::exit(kExitOk);
  }
  if (*gBreak == '\0') return argument;
  for (const BrokenVariant& variant : variants)
    if (breaking(variant.name)) {
      std::printf("%s: BROKEN ON PURPOSE: %s\n", gStepName, variant.what);
      return argument;
    }
  exitWith(kExitUsage, "no broken variant '%s' (--break list names them)", gBreak);
}
