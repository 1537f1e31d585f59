// How every room reports what went wrong. Two paths, one per kind of caller:
//
//  - Result<T>: for work whose failure the caller handles (bad input, a file
//    that could not be written, an import that failed): either the value or
//    an Error. One shape for every such result in the program.
//  - EnvironmentError / RuntimeFailure: thrown where the run cannot go on;
//    runThenTearDown (app/app.h) turns them into exit codes 3 and 4.
//
// Exit codes are the documented ones (README.md, "Exit codes").
#pragma once
#include <stdexcept>
#include <string>
#include <utility>

#include <tl/expected.hpp>

namespace vksim {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitUsage = 2;        // bad command line or bad input file
inline constexpr int kExitEnvironment = 3;  // no Vulkan device, backend or device unavailable
inline constexpr int kExitRuntime = 4;      // timeout, device lost, failed call

// Why something failed: one line for the user, and the exit code that the
// failure means when it ends the run.
//
// One case is not a failure: an Error with exitCode kExitSuccess means "stop
// here, print this, exit 0". The command line uses it for --help and
// --version, whose text ends the program as an error would but belongs on
// stdout; callers print an Error to stdout when its exitCode is 0, to stderr
// otherwise (app/main.cpp).
struct Error {
  std::string message;
  int exitCode = kExitUsage;
};

// The value, or why there is none. Result<> (void) for work that returns
// nothing but can fail.
template <class T = void>
using Result = tl::expected<T, Error>;

// The failure side of a Result, for `return fail("...")`.
inline tl::unexpected<Error> fail(std::string message, int exitCode = kExitUsage) {
  return tl::unexpected<Error>(Error{std::move(message), exitCode});
}

// Exit code 3: no Vulkan, no suitable device, a requested backend or device
// that is not there. what() is one sentence for the user.
struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code 4: a Vulkan or CUDA call failed at run time, or a wait timed out.
struct RuntimeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace vksim
