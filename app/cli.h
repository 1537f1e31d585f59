// The command line (CLI11). Parsing never exits the process: it returns what
// main() should do, so tests can check every bad input's message and code.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/ui/camera.h"
#include "app/ui/input_script.h"
#include "base/config.h"
#include "base/result.h"
#include "app/interop/wait_strategy.h"
#include "sim/fault_plan.h"
#include "sim/sim_types.h"

namespace vksim {

// automatic: cuda where a CUDA device pairs with a Vulkan device, else cpu
// (never one of the render-queue backends, nor opencl: they are asked for by
// name). vulkan and cudaNvx run the simulation in the render's own Vulkan
// queue (docs/queue-backends.md); opencl runs in binary mode only
// (cl_khr_semaphore has no timeline semaphore).
enum class BackendChoice { automatic, cuda, cpu, vulkan, cudaNvx, opencl };
const char* toString(BackendChoice backend);

// How the vertices reach the renderer (docs/benchmarks.md):
//   zeroCopy: the simulation writes the renderer's exported buffer in place,
//             ordered by the value schedule's semaphores;
//   copy:     what a program without interop does: the simulation writes
//             memory of its own, the host copies it into a staging buffer and
//             the frame's command buffer copies that into the vertex buffer.
enum class TransferMode { zeroCopy, copy };
const char* toString(TransferMode transfer);  // "zero-copy", "copy"

// Who allocates the shared vertex memory (docs/interop-walkthrough.md):
//   vulkan: the renderer allocates and exports it, CUDA imports it;
//   cuda:   the CUDA simulation allocates it (cuMemCreate) and exports it,
//           the renderer imports it ("the reverse direction"). Needs the
//           CUDA backend and the zero-copy transfer.
enum class MemoryOwner { vulkan, cuda };
const char* toString(MemoryOwner owner);  // "vulkan", "cuda"

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
  MemoryOwner memoryOwner = MemoryOwner::vulkan;  // --memory-owner
  bool texture = true;     // --texture on|off: the surface texture (renderer/shared_texture.h)
  bool frameTags = false;  // --frame-tags: a test facility (app/interop/frame_tags.h); headless, CPU, zero-copy
};

// The options to run with, or what to print before exiting instead: a usage
// error (exit 2, for stderr), or the text of --help or --version, which is an
// Error with exitCode kExitSuccess (for stdout; base/result.h). The message
// ends in a newline. Never exits the process.
Result<Options> parseCommandLine(int argc, const char* const* argv);

// For --backend vulkan and cuda-nvx: one sentence naming the option that does
// not apply to a simulation in the render's queue (--transfer copy, the
// import/export faults, sim-stalls), or empty when everything applies.
// parseCommandLine refuses such a command line with it (exit 2).
std::string refuseForRenderQueue(const Options& options);

// Parses a VKSIM_WAIT_TIMEOUT_MS value (base/config.h) into nanoseconds;
// refuses, with one sentence, anything but a whole number of milliseconds in
// [1, kMaxWaitTimeoutMs].
Result<uint64_t> parseWaitTimeoutMs(const std::string& text);

// The wait timeout of this process: VKSIM_WAIT_TIMEOUT_MS when set and valid
// (parseCommandLine refuses an invalid one with exit 2), else the default.
uint64_t waitTimeoutFromEnvironment();

// Frames to run once windowing is decided: 0 means until the window closes
// (or, headless, until interrupted).
int64_t framesToRun(const Options& options, bool headless);

}  // namespace vksim
