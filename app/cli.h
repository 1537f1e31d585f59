// The command line (CLI11). Parsing never exits the process: it returns what
// main() should do, so tests can check every bad input's message and code.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/ui/camera.h"
#include "base/result.h"
#include "app/ui/input_script.h"
#include "app/interop/wait_strategy.h"
#include "sim/fault_plan.h"
#include "sim/sim_types.h"

namespace vksim {

enum class BackendChoice { automatic, cuda, cpu };
const char* toString(BackendChoice backend);

// How the vertices reach the renderer (docs/benchmarks.md):
//   zeroCopy: the simulation writes the renderer's exported buffer in place,
//             ordered by the value schedule's semaphores;
//   copy:     what a program without interop does: the simulation writes
//             memory of its own, the host copies it into a staging buffer and
//             the frame's command buffer copies that into the vertex buffer.
enum class TransferMode { zeroCopy, copy };
const char* toString(TransferMode transfer);  // "zero-copy", "copy"

// Frames left out of a capture's or a benchmark's statistics by default (their
// rows are still in a capture's CSV): the first frames pay for first-use costs
// (module loading, page faults in fresh buffers, clocks ramping up).
inline constexpr uint32_t kDefaultWarmupFrames = 30;

// `vkcuda-sim bench`: the matrix it runs (every combination, headless) and
// where the table goes as JSON (docs/benchmarks.md).
struct BenchOptions {
  std::vector<uint32_t> grids{64, 256, 1024, 2048, 4096};
  std::vector<SyncMode> syncModes{SyncMode::timeline, SyncMode::binary};
  std::vector<TransferMode> transfers{TransferMode::zeroCopy, TransferMode::copy};
  std::vector<WaitStrategy> waitStrategies{WaitStrategy::poll, WaitStrategy::enqueue};
  uint32_t frames = 300;  // measured per configuration, after the warm-up
  uint32_t warmupFrames = kDefaultWarmupFrames;
  std::string jsonPath;  // --json, empty: table only
};

struct Options {
  bool headless = false;
  int64_t frames = -1;  // -1: not given (windowed: until closed; headless: kDefaultHeadlessFrames)
  ModelParams model;    // --sim, --grid, --seed land here
  SyncMode sync = SyncMode::timeline;
  BackendChoice backend = BackendChoice::automatic;
  uint32_t width = 1280, height = 720;
  std::string screenshotPath;     // --screenshot, .png
  std::string dumpVerticesPath;   // --dump-vertices, raw little-endian float32
  std::string device;             // --device INDEX|UUID, empty = choose
  bool listDevices = false;
  uint32_t switchSyncEvery = 0;   // 0 = never
  bool vsync = true;
  bool overlay = false;        // --overlay: draw the ImGui overlay in headless runs too (windows always have it)
  std::string sceneName;       // --scene: the loaded scene's name (empty: none)
  OrbitCamera camera;          // the starting view: the scene's camera, else the default; R returns to it
  std::string inputScriptPath;  // --input-script
  InputScript inputScript;      // parsed from inputScriptPath (empty without one)
  TransferMode transfer = TransferMode::zeroCopy;  // --transfer
  WaitStrategy waitStrategy = WaitStrategy::poll;  // --wait-strategy
  std::string capturePath;                         // --capture, .csv (the summary goes beside it)
  std::string tracePath;                           // --trace, .json
  uint32_t warmupFrames = kDefaultWarmupFrames;    // --warmup: of the capture's statistics
  std::optional<BenchOptions> bench;               // the bench subcommand was given
  FaultPlan faults;                                // --inject-fault (a test facility, docs/testing.md)
  bool frameTags = false;  // --frame-tags: a test facility (app/frame_tags.h); headless, CPU, zero-copy
};

inline constexpr int64_t kDefaultHeadlessFrames = 600;
// The largest --frames, --switch-sync-every and --warmup: about 190 days at
// 60 frames per second, and far inside every counter's range (the timeline
// value reaches 2 * frames).
inline constexpr uint64_t kMaxFrames = 1'000'000'000;
// The largest `bench --frames` and `bench --warmup`, per configuration.
inline constexpr uint64_t kMaxBenchFrames = 1'000'000;

struct ParseOutcome {
  std::optional<Options> options;  // set when the program should run
  int exitCode = kExitSuccess;     // when options is empty: exit with this...
  std::string message;             // ...after printing this (stdout for 0, stderr otherwise)
};

ParseOutcome parseCommandLine(int argc, const char* const* argv);

// The bound of every wait in a run (docs/testing.md): 5 s, or the value of
// the environment variable VKSIM_WAIT_TIMEOUT_MS (whole milliseconds, 1 to
// kMaxWaitTimeoutMs), a test facility that lets fault tests end quickly.
inline constexpr uint64_t kDefaultWaitTimeoutNs = 5'000'000'000ull;
inline constexpr uint64_t kMaxWaitTimeoutMs = 3'600'000;
inline constexpr const char* kWaitTimeoutVariable = "VKSIM_WAIT_TIMEOUT_MS";

// Parses a VKSIM_WAIT_TIMEOUT_MS value into nanoseconds; false (and *error, one
// sentence) for anything but a whole number in [1, kMaxWaitTimeoutMs].
bool parseWaitTimeoutMs(const std::string& text, uint64_t* timeoutNs, std::string* error);

// The wait timeout of this process: VKSIM_WAIT_TIMEOUT_MS when set and valid
// (parseCommandLine refuses an invalid one with exit 2), else the default.
uint64_t waitTimeoutFromEnvironment();

// Frames to run once windowing is decided: 0 means until the window closes
// (or, headless, until interrupted).
int64_t framesToRun(const Options& options, bool headless);

}  // namespace vksim
