// The real binary under interruption and bad input: SIGINT/SIGTERM during a
// run with --screenshot, an output directory removed while the run goes on,
// bad values that only the binary can see (environment switches), and the
// validation canary that proves the summary's counters count.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
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
      if (std::chrono::steady_clock::now() > deadline || !readSome(200))
        return out_.find(text) != std::string::npos;
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
        terminatingSignal_ = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
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
  // The signal that ended the child (after finish()); 0 when it exited.
  int terminatingSignal() const { return terminatingSignal_; }
  pid_t pid() const { return pid_; }

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
  int terminatingSignal_ = 0;
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

std::vector<std::string> untilInterrupted(const std::string& dir) {
  return {"--headless",
          "--backend",
          "cpu",
          "--frames",
          "0",
          "--grid",
          "32",
          "--size",
          "200x120",
          "--screenshot",
          dir + "/shot.png",
          "--dump-vertices",
          dir + "/v.bin"};
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

// A run that cannot finish by itself: its first step stalls for the whole
// wait bound (120 s here). The first SIGTERM is announced at once, though the
// run stays blocked; the second must end the process by that same signal
// (the default action), not wait for the stall and exit with a code. A
// handler that ignored the second signal leaves the run stalled until the
// hang guard, which ends it first.
TEST(InterruptedRun, SecondSignalEndsAStalledRunByThatSignal) {
  const std::string dir = makeTempDir("second-signal");
  RunningApp app({"--headless", "--backend", "cpu", "--frames", "0", "--grid", "16", "--size", "64x64",
                  "--inject-fault", "sim-stalls@0", "--screenshot", dir + "/shot.png"},
                 {"VKSIM_VALIDATION=1", "VKSIM_WAIT_TIMEOUT_MS=120000"}, dir);
  ASSERT_TRUE(app.waitForOutput("running headless")) << app.out() << app.err();
  app.signal(SIGTERM);
  ASSERT_TRUE(app.waitForOutput("interrupted (SIGTERM)")) << "the first signal was not announced: " << app.out();
  app.signal(SIGTERM);
  const int exitCode = app.finish(60);  // guard: half the stall's bound
  ASSERT_FALSE(app.timedOut()) << "the second SIGTERM did not end the stalled run: " << app.out() << app.err();
  EXPECT_EQ(exitCode, -1) << "it exited with a code instead: " << app.out() << app.err();
  EXPECT_EQ(app.terminatingSignal(), SIGTERM);
  EXPECT_TRUE(filesIn(dir).empty()) << "a file was left by the run that was ended";
}

// checkWritable's probe files (PATH.tmp-<pid>) exist for a moment while the
// command line is parsed. A SIGTERM sent the moment the first one appears
// (inotify tells when) ends the start-up by that signal, but only once the
// probe is gone (app/ui/interrupt.h, StartUpSignalsHeld). The signal lands in
// the window only some of the time; the repetitions make a hit likely, and
// every attempt checks the directory.
TEST(InterruptedRun, SignalWhileAnOutputIsProbedLeavesNoProbeFile) {
  for (int attempt = 0; attempt < 10; ++attempt) {
    const std::string dir = makeTempDir("probe-" + std::to_string(attempt));
    const int watch = inotify_init1(IN_CLOEXEC);
    ASSERT_GE(watch, 0);
    ASSERT_GE(inotify_add_watch(watch, dir.c_str(), IN_CREATE), 0);
    RunningApp app(untilInterrupted(dir), kValidation, dir);
    pollfd created{watch, POLLIN, 0};
    const bool seen = poll(&created, 1, 60'000) == 1;  // guard: the parse creates a probe at once
    app.signal(SIGTERM);
    close(watch);
    ASSERT_TRUE(seen) << "no probe file was created";
    const int exitCode = app.finish();
    ASSERT_FALSE(app.timedOut()) << app.out() << app.err();
    EXPECT_TRUE(filesIn(dir).empty()) << "attempt " << attempt << ": left behind: " << filesIn(dir).front();
    // Parsing is start-up: the signal ends the process, by that signal.
    EXPECT_EQ(exitCode, -1) << "attempt " << attempt << ": " << app.out() << app.err();
    EXPECT_EQ(app.terminatingSignal(), SIGTERM) << "attempt " << attempt;
  }
}

// A start-up that cannot go on by itself: the app reads its scene or its
// input script from a FIFO whose writer sends nothing. The first SIGTERM
// must end it, by that signal, with the start-up line. (Before, the handler
// only noted the signal, the read went on under SA_RESTART, and the process
// waited for a second signal.) The write end opens only once the app has
// opened the read end (a non-blocking open for writing fails until then), so
// the signal reaches a process that is blocked in that read.
class InterruptedStartUp : public ::testing::TestWithParam<const char*> {};

TEST_P(InterruptedStartUp, FirstSignalEndsAStartUpBlockedOnAnInputFile) {
  const std::string option = GetParam();
  const std::string dir = makeTempDir("startup-fifo");
  const std::string fifo = dir + (option == "--scene" ? "/blocked.json" : "/blocked.txt");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  RunningApp app({"--headless", "--backend", "cpu", "--frames", "5", "--grid", "16", option, fifo}, kValidation,
                 dir);
  int writer = -1;
  for (int tries = 0; writer < 0 && tries < 6000; ++tries) {  // guard: 60 s
    writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer < 0) usleep(10'000);
  }
  ASSERT_GE(writer, 0) << "the app never opened " << fifo << ": " << app.out() << app.err();
  app.signal(SIGTERM);
  const int exitCode = app.finish(30);  // guard, not a measurement
  close(writer);
  ASSERT_FALSE(app.timedOut()) << "the first SIGTERM did not end the blocked start-up: " << app.out();
  EXPECT_EQ(exitCode, -1) << app.out() << app.err();
  EXPECT_EQ(app.terminatingSignal(), SIGTERM);
  EXPECT_EQ(app.out(), "interrupted (SIGTERM) during start-up: ending now\n");
  EXPECT_TRUE(app.err().empty()) << app.err();
}

INSTANTIATE_TEST_SUITE_P(Inputs, InterruptedStartUp, ::testing::Values("--scene", "--input-script"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           return std::string(p.param).substr(2) == "scene" ? std::string("Scene")
                                                                             : std::string("InputScript");
                         });

// A signal at any moment of a run: before "running" is printed it is
// start-up, which the signal ends by that signal; after, the run finishes
// (exit 0). Never a process left running, never an exit code in between.
TEST(InterruptedRun, SignalBeforeTheRunEndsStartUpAfterItFinishesTheRun) {
  for (const int delayMs : {0, 30, 100, 300, 1000}) {
    const std::string dir = makeTempDir("stage-" + std::to_string(delayMs));
    RunningApp app(untilInterrupted(dir), kValidation, dir);
    usleep(useconds_t(delayMs) * 1000);
    app.signal(SIGTERM);
    const int exitCode = app.finish();
    ASSERT_FALSE(app.timedOut()) << app.out() << app.err();
    if (app.out().find("running headless") == std::string::npos) {
      EXPECT_EQ(app.terminatingSignal(), SIGTERM) << "after " << delayMs << " ms: " << app.out() << app.err();
    } else {
      EXPECT_EQ(exitCode, 0) << "after " << delayMs << " ms: " << app.out() << app.err();
    }
  }
}

// `bench` under SIGTERM: the configuration in progress is abandoned, the
// completed ones are reported (table and --json, marked "interrupted"), and
// the run ends like an interrupted run (exit 0, nothing on stderr). Here the
// signal comes right after the first line, before any configuration can
// finish (each would take 1,000,000 frames): no rows, "interrupted": true.
TEST(InterruptedBench, SignalBeforeAnyConfigurationCompletedWritesNoRowsMarkedInterrupted) {
  const std::string dir = makeTempDir("bench-early");
  RunningApp app({"bench", "--backend", "cpu", "--grids", "16", "--sync", "timeline", "--transfer", "zero-copy",
                  "--wait-strategy", "poll", "--frames", "1000000", "--warmup", "0", "--size", "64x64",
                  "--json", dir + "/b.json"},
                 kValidation, dir);
  ASSERT_TRUE(app.waitForOutput("bench: 1 configurations")) << app.out() << app.err();
  app.signal(SIGTERM);
  const int exitCode = app.finish();
  ASSERT_FALSE(app.timedOut()) << app.out() << app.err();
  EXPECT_EQ(exitCode, 0) << app.out() << app.err();
  EXPECT_TRUE(app.err().empty()) << app.err();
  EXPECT_NE(app.out().find("interrupted (SIGTERM)"), std::string::npos) << app.out();
  EXPECT_NE(app.out().find("bench: interrupted: 0 of 1 configurations completed"), std::string::npos) << app.out();
  const nlohmann::json document = nlohmann::json::parse(readFile(dir + "/b.json"), nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << readFile(dir + "/b.json");
  EXPECT_EQ(document.value("interrupted", false), true);
  EXPECT_TRUE(document["results"].is_array() && document["results"].empty()) << document.dump();
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{"b.json"});
}

// As above with one configuration completed: the signal comes when the first
// (grid 16) has printed its line, while the second (grid 1024, a thousand
// times the vertices, same frame count) runs. The first is in the JSON, the
// second is not.
TEST(InterruptedBench, SignalDuringTheSecondConfigurationKeepsTheFirstMarkedInterrupted) {
  const std::string dir = makeTempDir("bench-second");
  RunningApp app({"bench", "--backend", "cpu", "--grids", "16,1024", "--sync", "timeline", "--transfer",
                  "zero-copy", "--wait-strategy", "poll", "--frames", "200", "--warmup", "0", "--size", "64x64",
                  "--json", dir + "/b.json"},
                 kValidation, dir);
  ASSERT_TRUE(app.waitForOutput("bench 1/2:")) << app.out() << app.err();
  app.signal(SIGTERM);
  const int exitCode = app.finish();
  ASSERT_FALSE(app.timedOut()) << app.out() << app.err();
  EXPECT_EQ(exitCode, 0) << app.out() << app.err();
  EXPECT_TRUE(app.err().empty()) << app.err();
  ASSERT_EQ(app.out().find("bench 2/2:"), std::string::npos) << "the second configuration finished first";
  EXPECT_NE(app.out().find("bench: interrupted: 1 of 2 configurations completed"), std::string::npos) << app.out();
  const nlohmann::json document = nlohmann::json::parse(readFile(dir + "/b.json"), nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << readFile(dir + "/b.json");
  EXPECT_EQ(document.value("interrupted", false), true);
  ASSERT_EQ(document["results"].size(), 1u) << document.dump();
  EXPECT_EQ(document["results"][0]["grid"], 16);
  EXPECT_GT(document["results"][0]["frames"].get<int>(), 0) << document.dump();
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
  std::ofstream(dir + "/shots.txt") << "at 1 screenshot x.png\n";
  fs::create_directory(dir + "/blocked.summary.json");
  fs::create_directory_symlink(dir, dir + "/alias");
  fs::create_symlink("x.png", dir + "/link.png");
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
      // The CSV can be written, its summary cannot (a directory is in the way).
      // Without that check the 3 frames run and the end is exit 4.
      {"--headless", "--frames", "3", "--grid", "16", "--capture", "blocked.csv"},
      // Two outputs, or an output and an input, that name one file.
      {"--headless", "--screenshot", "x.png", "--dump-vertices", "x.png"},
      {"--headless", "--screenshot", "x.png", "--dump-vertices", "./x.png"},
      {"--headless", "--screenshot", "x.png", "--dump-vertices", dir + "/x.png"},
      {"--headless", "--screenshot", "x.png", "--dump-vertices", "alias/x.png"},
      {"--headless", "--screenshot", "x.png", "--dump-vertices", "link.png"},
      {"--headless", "--capture", "a.csv", "--trace", "a.summary.json"},
      {"--headless", "--capture", "a.csv", "--dump-vertices", "./a.csv"},
      {"--headless", "--trace", "t.json", "--dump-vertices", "t.json"},
      {"--headless", "--input-script", "shots.txt", "--screenshot", "x.png"},
      {"--headless", "--input-script", "shots.txt", "--dump-vertices", "shots.txt"},
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
  EXPECT_EQ(names, (std::vector<std::string>{"alias", "blocked.summary.json", "calm.json", "link.png",
                                             "script.txt", "shots.txt"}))
      << "a bad run created a file";
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
