// The real binary under interruption and bad input: SIGINT/SIGTERM during a
// run with --screenshot, an output directory removed while the run goes on,
// bad values that only the binary can see (environment switches), and the
// validation canary that proves the summary's counters count.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "app_runner.h"

namespace vksim::testing {
namespace {
namespace fs = std::filesystem;

// A running vkcuda-sim whose output is read as it comes, so that a signal can
// be sent at a known point of the run ("running ..." has been printed).
class RunningApp {
 public:
  RunningApp(const std::vector<std::string>& args, const std::vector<std::string>& env,
             const std::string& workingDirectory) {
    int out[2], err[2];
    if (pipe(out) != 0 || pipe(err) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      dup2(err[1], STDERR_FILENO);
      close(out[0]);
      close(err[0]);
      if (!workingDirectory.empty() && chdir(workingDirectory.c_str()) != 0) _exit(127);
      for (const std::string& entry : env) putenv(const_cast<char*>(entry.c_str()));
      const std::string program = appPath();
      std::vector<char*> argv{const_cast<char*>(program.c_str())};
      for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
      argv.push_back(nullptr);
      execv(program.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    close(err[1]);
    outFd_ = out[0];
    errFd_ = err[0];
  }
  ~RunningApp() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (outFd_ >= 0) close(outFd_);
    if (errFd_ >= 0) close(errFd_);
  }

  // Reads output until stdout contains `text`; false if the child ended or
  // the hang guard ran out first.
  bool waitForOutput(const std::string& text, int guardSeconds = 60) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(guardSeconds);
    while (out_.find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline || !readSome(200)) return out_.find(text) != std::string::npos;
    }
    return true;
  }

  void signal(int signalNumber) { kill(pid_, signalNumber); }

  // Waits for the exit (hang guard: SIGKILL after guardSeconds); returns the
  // exit code, or -1 when a signal ended the child.
  int finish(int guardSeconds = 60) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(guardSeconds);
    for (;;) {
      const bool open = readSome(100);
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        while (readSome(0)) {
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        timedOut_ = true;
        return -2;  // the destructor kills it
      }
      if (!open) usleep(10'000);
    }
  }

  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }
  bool timedOut() const { return timedOut_; }

 private:
  // One poll of both pipes; false when both are closed.
  bool readSome(int timeoutMs) {
    int* descriptors[2] = {&outFd_, &errFd_};
    std::string* sinks[2] = {&out_, &err_};
    pollfd fds[2] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}};
    if (outFd_ < 0 && errFd_ < 0) return false;
    if (poll(fds, 2, timeoutMs) < 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (*descriptors[i] < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buffer[4096];
      const ssize_t n = read(*descriptors[i], buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, size_t(n));
      } else {
        close(*descriptors[i]);  // end of output
        *descriptors[i] = -1;
      }
    }
    return outFd_ >= 0 || errFd_ >= 0;
  }

  pid_t pid_ = -1;
  int outFd_ = -1, errFd_ = -1;
  std::string out_, err_;
  bool exited_ = false, timedOut_ = false;
};

std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> names;
  if (!fs::is_directory(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  return names;
}

size_t lineCount(const std::string& text) {
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

struct PngSize {
  int width = 0, height = 0;
};
PngSize decodePng(const std::string& path) {
  PngSize size;
  int channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &size.width, &size.height, &channels, 4);
  if (!pixels) return {};
  stbi_image_free(pixels);
  return size;
}

const std::vector<std::string> kValidation{"VKSIM_VALIDATION=1"};

std::vector<std::string> untilInterrupted(const std::string& dir) {
  return {"--headless", "--backend", "cpu", "--frames", "0", "--grid", "32", "--size", "200x120",
          "--screenshot", dir + "/shot.png", "--dump-vertices", dir + "/v.bin"};
}

class Interrupted : public ::testing::TestWithParam<int> {};

// The run stops after one last frame, which the screenshot shows at the
// requested size; the vertex dump is complete; nothing temporary remains.
TEST_P(Interrupted, RunWritesTheLastFrameAtTheRequestedSize) {
  const int signalNumber = GetParam();
  const std::string dir = makeTempDir(signalNumber == SIGINT ? "sigint" : "sigterm");
  RunningApp app(untilInterrupted(dir), kValidation, dir);
  ASSERT_TRUE(app.waitForOutput("running headless")) << app.out() << app.err();
  app.signal(signalNumber);
  const int exitCode = app.finish();
  ASSERT_FALSE(app.timedOut()) << "the interrupted run did not end: " << app.out() << app.err();
  EXPECT_EQ(exitCode, 0) << app.out() << app.err();
  EXPECT_NE(app.out().find(signalNumber == SIGINT ? "interrupted (SIGINT)" : "interrupted (SIGTERM)"),
            std::string::npos)
      << app.out();
  EXPECT_NE(app.out().find("wrote screenshot 200x120"), std::string::npos) << app.out();
  const PngSize png = decodePng(dir + "/shot.png");
  EXPECT_EQ(png.width, 200);
  EXPECT_EQ(png.height, 120);
  const std::string vertices = readFile(dir + "/v.bin");
  EXPECT_FALSE(vertices.empty());
  EXPECT_EQ(vertices.size() % (32 * 32), 0u);
  EXPECT_EQ(summaryField(app.out(), "validation"), "on") << app.out();
  EXPECT_EQ(summaryField(app.out(), "validation_errors"), "0") << app.err();
  EXPECT_EQ(filesIn(dir).size(), 2u) << "a temporary file was left";
}

INSTANTIATE_TEST_SUITE_P(Signals, Interrupted, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return std::string(p.param == SIGINT ? "SIGINT" : "SIGTERM");
                         });

// A signal at any moment, even before the app installs its handler: the PNG
// is absent or a valid image of the requested size, never an empty 0x0 one.
TEST(InterruptedRun, SignalAtAnyMomentLeavesNoImageOrAValidOne) {
  for (const int delayMs : {0, 5, 20, 80}) {
    const std::string dir = makeTempDir("early-" + std::to_string(delayMs));
    RunningApp app(untilInterrupted(dir), kValidation, dir);
    usleep(useconds_t(delayMs) * 1000);
    app.signal(SIGTERM);
    app.finish();
    ASSERT_FALSE(app.timedOut()) << app.out() << app.err();
    if (fs::exists(dir + "/shot.png")) {
      const PngSize png = decodePng(dir + "/shot.png");
      EXPECT_EQ(png.width, 200) << "after " << delayMs << " ms";
      EXPECT_EQ(png.height, 120);
    }
    for (const std::string& name : filesIn(dir))
      EXPECT_TRUE(name == "shot.png" || name == "v.bin") << "left behind: " << name;
  }
}

// A failure after the run started: the output directory disappears while the
// app runs. The end of the run reports it in one line with exit code 4, and
// nothing is written anywhere (no partial file, no recreated directory).
TEST(InterruptedRun, OutputDirectoryRemovedDuringTheRunIsOneLineAndExitFour) {
  const std::string base = makeTempDir("removed");
  const std::string dir = base + "/out";
  fs::create_directory(dir);
  std::vector<std::string> args = untilInterrupted(dir);
  args.insert(args.end(), {"--capture", dir + "/c.csv", "--trace", dir + "/t.json"});
  RunningApp app(args, kValidation, base);
  ASSERT_TRUE(app.waitForOutput("running headless")) << app.out() << app.err();
  fs::remove_all(dir);
  app.signal(SIGTERM);
  const int exitCode = app.finish();
  ASSERT_FALSE(app.timedOut()) << app.out() << app.err();
  EXPECT_EQ(exitCode, 4) << app.out() << app.err();
  EXPECT_EQ(lineCount(app.err()), 1u) << app.err();
  EXPECT_NE(app.err().find(dir), std::string::npos) << app.err();
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(filesIn(base).empty());
}

// Environment switches are input too: a misspelt one must not quietly run
// without the layer.
TEST(BadEnvironment, MisspeltValidationSwitchIsExitTwoAndOneLine) {
  for (const char* value : {"VKSIM_VALIDATION=yes", "VKSIM_VALIDATION=on", "VKSIM_VALIDATION_CANARY=true"}) {
    const AppResult result = runApp({"--headless", "--frames", "2", "--grid", "16"}, {value});
    EXPECT_EQ(result.exitCode, 2) << value << result.out << result.err;
    EXPECT_EQ(lineCount(result.err), 1u) << result.err;
    EXPECT_NE(result.err.find(std::string(value).substr(0, std::string(value).find('='))), std::string::npos);
    EXPECT_TRUE(result.out.empty()) << result.out;
  }
}

// Bad values through the real binary (the full list goes through the parser
// in tests/unit/test_bad_input.cpp): exit 2, one stderr line, nothing on
// stdout, no file created in the working directory.
TEST(BadInputBinary, ExitTwoOneLineNoFile) {
  const std::string dir = makeTempDir("bad-binary");
  std::ofstream(dir + "/script.txt") << "at 1 click nan 5\n";
  std::ofstream(dir + "/calm.json") << R"({"name": "calm", "model": "ripple", "grid": 99999999999999999999})";
  const std::vector<std::vector<std::string>> cases{
      {"--frames", "99999999999999999999"},
      {"--seed", "-1"},
      {"--grid", "64", "--frames", "1e3"},
      {"--device", "xyz"},
      {"--headless", "--screenshot", "shot.jpg"},
      {"--headless", "--screenshot", "missing/shot.png"},
      {"--headless", "--capture", "missing/c.csv"},
      {"--input-script", "script.txt"},
      {"--scene", "calm.json"},
      {"bench", "--grids", "64,1"},
      {"bench", "--frames", "0"},
      {"bench", "--json", "missing/b.json"},
  };
  for (const std::vector<std::string>& args : cases) {
    std::vector<std::string> all = args;
    all.insert(all.end(), {"--backend", "cpu"});
    const AppResult result = runApp(all, kValidation, 60, "", dir);
    std::string shown;
    for (const std::string& a : all) shown += a + " ";
    EXPECT_EQ(result.exitCode, 2) << shown << result.out << result.err;
    EXPECT_EQ(lineCount(result.err), 1u) << shown << result.err;
    EXPECT_TRUE(result.out.empty()) << shown << result.out;
  }
  std::vector<std::string> names = filesIn(dir);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"calm.json", "script.txt"})) << "a bad run created a file";
}

// The canary (VKSIM_VALIDATION_CANARY=1) records one invalid call and one
// synchronization hazard: the summary must count them, and the layer must
// name both, which shows that synchronization validation really ran. Without
// the canary the same run counts none; without the layer it says so.
TEST(ValidationProvenOn, CanaryIsCountedAndNamedBySynchronizationValidation) {
  const std::vector<std::string> args{"--headless", "--backend", "cpu", "--frames", "3", "--grid", "16"};
  const AppResult canary = runApp(args, {"VKSIM_VALIDATION=1", "VKSIM_VALIDATION_CANARY=1"});
  ASSERT_EQ(canary.exitCode, 0) << canary.out << canary.err;
  EXPECT_EQ(summaryField(canary.out, "validation"), "on") << canary.out;
  EXPECT_EQ(summaryField(canary.out, "sync_validation"), "on") << canary.out;
  EXPECT_GE(std::atoi(summaryField(canary.out, "validation_errors").c_str()), 2) << canary.out << canary.err;
  EXPECT_NE(canary.err.find("VUID-vkCmdFillBuffer-dstOffset-00025"), std::string::npos) << canary.err;
  EXPECT_NE(canary.err.find("SYNC-HAZARD-WRITE-AFTER-WRITE"), std::string::npos) << canary.err;

  const AppResult clean = runApp(args, {"VKSIM_VALIDATION=1", "VKSIM_VALIDATION_CANARY=0"});
  ASSERT_EQ(clean.exitCode, 0) << clean.out << clean.err;
  EXPECT_EQ(summaryField(clean.out, "validation"), "on");
  EXPECT_EQ(summaryField(clean.out, "validation_errors"), "0") << clean.err;

  const AppResult off = runApp(args, {"VKSIM_VALIDATION=0"});
  ASSERT_EQ(off.exitCode, 0) << off.out << off.err;
  EXPECT_EQ(summaryField(off.out, "validation"), "off") << off.out;
  EXPECT_EQ(summaryField(off.out, "sync_validation"), "") << "no sync field without the layer";

  const AppResult canaryWithoutLayer = runApp(args, {"VKSIM_VALIDATION=0", "VKSIM_VALIDATION_CANARY=1"});
  EXPECT_EQ(canaryWithoutLayer.exitCode, 3) << canaryWithoutLayer.out << canaryWithoutLayer.err;
  EXPECT_EQ(lineCount(canaryWithoutLayer.err), 1u) << canaryWithoutLayer.err;
}

}  // namespace
}  // namespace vksim::testing
