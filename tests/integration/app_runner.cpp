#include "app_runner.h"

#include <dirent.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace vksim::testing {

std::string appPath() {
  if (const char* overridden = std::getenv("VKSIM_APP"); overridden && *overridden) return overridden;
  if (std::filesystem::exists(VKSIM_APP_PATH)) return VKSIM_APP_PATH;
  // A packed copy (../shared/gpu/pack.sh) keeps the test beside the app.
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "vkcuda-sim").string();
}

namespace {

// The app reports a failure that ends the run in one stderr line beginning
// "vkcuda-sim: " (app/app.h, runThenTearDown), before its teardown.
bool reportsRunTimeFailure(const std::string& err) {
  const std::string start = "vkcuda-sim: ";
  return err.rfind(start, 0) == 0 || err.find("\n" + start) != std::string::npos;
}

// How long a teardown after a failure may take: its bounded waits (the
// drain's, the simulation's finish, a capture's last GPU timings: three at
// most) at the run's wait bound (VKSIM_WAIT_TIMEOUT_MS in `env`, else the
// environment's, else 5 s), and 10 s for writing the outputs and the
// destroys on a loaded machine.
std::chrono::seconds teardownGrace(const std::vector<std::string>& env) {
  const std::string name = "VKSIM_WAIT_TIMEOUT_MS=";
  long long boundMs = 5000;
  if (const char* inherited = std::getenv("VKSIM_WAIT_TIMEOUT_MS"); inherited && *inherited)
    boundMs = std::atoll(inherited);
  for (const std::string& entry : env)
    if (entry.rfind(name, 0) == 0) boundMs = std::atoll(entry.c_str() + name.size());
  return std::chrono::seconds(3 * std::max(boundMs, 1000LL) / 1000 + 10);
}

}  // namespace

AppResult runApp(const std::vector<std::string>& args, const std::vector<std::string>& env, int timeoutSeconds,
                 const std::string& program, const std::string& workingDirectory) {
  const std::string path = program.empty() ? appPath() : program;
  std::vector<std::string> argStrings{path};
  argStrings.insert(argStrings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argStrings) argv.push_back(a.data());
  argv.push_back(nullptr);

  // An entry of `env` replaces the inherited variable of the same name (getenv
  // would otherwise find the inherited one first, e.g. ctest's VKSIM_VALIDATION=1).
  const auto nameOf = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  std::vector<std::string> envStrings;
  for (char** e = environ; *e; ++e) {
    const std::string inherited = *e;
    bool replaced = false;
    for (const std::string& entry : env) replaced |= nameOf(entry) == nameOf(inherited);
    if (!replaced) envStrings.push_back(inherited);
  }
  envStrings.insert(envStrings.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : envStrings) envp.push_back(e.data());
  envp.push_back(nullptr);

  int outPipe[2], errPipe[2];
  AppResult result;
  if (pipe(outPipe) != 0 || pipe(errPipe) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, outPipe[0]);
  posix_spawn_file_actions_addclose(&actions, errPipe[0]);
  if (!workingDirectory.empty()) posix_spawn_file_actions_addchdir_np(&actions, workingDirectory.c_str());
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (spawned != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    result.err = "posix_spawn failed: " + std::string(strerror(spawned));
    return result;
  }

  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
  bool failureReported = false;
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  int open = 2;
  char buffer[4096];
  while (open > 0) {
    // Once the app has reported a run-time failure, only its teardown's
    // bounded waits are left: a child still running after them is hung (a
    // queue that waits on a semaphore nobody will signal keeps
    // vkDeviceWaitIdle from returning) and is ended now, not at the
    // test's own bound or ctest's.
    if (!failureReported && reportsRunTimeFailure(result.err)) {
      failureReported = true;
      deadline = std::min(deadline, std::chrono::steady_clock::now() + teardownGrace(env));
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      if (failureReported)
        result.err += "[app_runner: the app reported the failure above and was still running " +
                      std::to_string(teardownGrace(env).count()) + " s later: killed]\n";
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, int(std::min<long long>(left.count(), 1000))) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      } else {
        (i == 0 ? result.out : result.err).append(buffer, size_t(n));
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exitCode = (!result.timedOut && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string makeTempDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir = std::filesystem::path(base ? base : std::filesystem::temp_directory_path().string()) /
                              ("vksim-" + std::to_string(getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool fileExists(const std::string& path) { return std::filesystem::exists(path); }

std::string summaryField(const std::string& output, const std::string& key) {
  const std::string needle = " " + key + "=";
  const size_t at = output.rfind(needle);
  if (at == std::string::npos) return {};
  const size_t begin = at + needle.size();
  const size_t end = output.find_first_of(" \n", begin);
  return output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

namespace {

// The checks of expectSilentRun, then, when layerOn, that the layer and its
// synchronization validation reported themselves on. One body, so that a
// fatal failure (timeout, exit code) skips the rest of it, as it always has.
void checkRun(const AppResult& result, bool layerOn) {
  ASSERT_FALSE(result.timedOut) << result.out << result.err;
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_EQ(summaryField(result.out, "validation_warnings"), "0") << result.err;
  EXPECT_EQ(summaryField(result.out, "validation_errors"), "0") << result.err;
  EXPECT_EQ(result.err.find("Validation"), std::string::npos) << result.err;
  if (layerOn) expectLayerOn(result);
}

}  // namespace

void expectLayerOn(const AppResult& result) {
  EXPECT_EQ(summaryField(result.out, "validation"), "on") << "the validation layer was off: " << result.out;
  EXPECT_EQ(summaryField(result.out, "sync_validation"), "on")
      << "synchronization validation was off: " << result.out;
}

void expectSilentRun(const AppResult& result) { checkRun(result, false); }

void expectCleanRun(const AppResult& result) { checkRun(result, true); }

int openFdCount() {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int count = 0;
  while (const dirent* entry = readdir(dir))
    if (entry->d_name[0] != '.') ++count;
  closedir(dir);
  return count - 1;
}

}  // namespace vksim::testing
