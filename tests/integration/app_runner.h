// Runs the vkcuda-sim executable as a user would, for the integration and GPU
// tests: arguments, extra environment, captured output and exit code, with a
// timeout so that a hang fails the test instead of stalling ctest.
#pragma once
#include <string>
#include <vector>

namespace vksim::testing {

// The environment of a run with the validation layer on.
inline const std::vector<std::string> kValidation{"VKSIM_VALIDATION=1"};

struct AppResult {
  int exitCode = -1;     // -1 when killed by the timeout or a signal
  bool timedOut = false;
  std::string out;       // stdout
  std::string err;       // stderr
};

// The app under test: $VKSIM_APP if set, else the build tree's, else the one
// beside the test executable (a packed copy on the NVIDIA machine).
std::string appPath();

// Runs appPath() (or `program` if not empty) with args; env entries are
// "NAME=value" added to the inherited environment; workingDirectory, when
// given, is the child's current directory.
AppResult runApp(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                 int timeoutSeconds = 120, const std::string& program = "",
                 const std::string& workingDirectory = "");

// A fresh empty directory under the test's temporary directory.
std::string makeTempDir(const std::string& name);

// Reads a whole file; empty when missing.
std::string readFile(const std::string& path);
bool fileExists(const std::string& path);

// The value following "key=" on the app's summary line ("... key=value ..."),
// or empty when absent.
std::string summaryField(const std::string& output, const std::string& key);

// Asserts (gtest) that the run ended by itself with exit code 0 and that the
// validation layer stayed silent: no warning or error counted on the summary
// line, no "Validation" message on stderr. Says nothing about whether the
// layer was on; for runs that turn it on through the environment.
void expectSilentRun(const AppResult& result);

// expectSilentRun, and the summary line says that the validation layer and its
// synchronization validation were both on (a silent layer that was off would
// prove nothing).
void expectCleanRun(const AppResult& result);

// The summary line says that the validation layer and its synchronization
// validation were on (the second half of expectCleanRun).
void expectLayerOn(const AppResult& result);

// Open fds of this process, counted in /proc/self/fd (the directory stream's
// own fd left out); -1 when the directory cannot be read.
int openFdCount();

}  // namespace vksim::testing
