// The command line (CLI11). Parsing never exits the process: it returns what
// main() should do, so tests can check every bad input's message and code.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/capture/frame_record.h"
#include "app/ui/camera.h"
#include "app/ui/input_script.h"
#include "base/config.h"
#include "base/result.h"
#include "app/interop/interop_config.h"
#include "app/interop/wait_strategy.h"
#include "sim/fault_plan.h"
#include "sim/sim_types.h"

namespace vksim {

// `vkcuda-sim bench`: the matrix it runs (every combination, headless) and
// where the table goes as JSON (docs/benchmarks.md).
struct BenchOptions {
  std::vector<uint32_t> grids{64, 256, 1024, 2048, 4096};
  std::vector<SyncMode> syncModes{SyncMode::timeline, SyncMode::binary};
  std::vector<TransferMode> transfers{TransferMode::zeroCopy, TransferMode::copy};
  std::vector<WaitStrategy> waitStrategies{WaitStrategy::poll, WaitStrategy::enqueue};
  std::vector<bool> levelsOfDetail{true};  // --lod on|off|both: the mesh's level of detail (renderer/tile_lod.h)
  std::vector<bool> textures{true};  // --texture on|off|both: the surface texture (renderer/shared_texture.h)
  std::vector<bool> overlays{false};  // --overlay on|off|both: the ImGui overlay built and drawn every frame
  uint32_t frames = 300;  // measured per configuration, after the warm-up
  uint32_t warmupFrames = kDefaultWarmupFrames;
  // --warmup-ms: the warm-up also lasts at least this long (base/config.h's
  // kDefaultWarmupMs says why); it ends once both have passed.
  uint32_t warmupMs = kDefaultWarmupMs;
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
  CaptureFormat captureFormat = CaptureFormat::presentmon;  // --capture-format
  CaptureColumns captureColumns = CaptureColumns::v1;       // --capture-columns
  std::optional<BenchOptions> bench;               // the bench subcommand was given
  FaultPlan faults;                                // --inject-fault (a test facility, docs/testing.md)
  MemoryOwner memoryOwner = MemoryOwner::vulkan;  // --memory-owner
  bool texture = true;     // --texture on|off: the surface texture (renderer/shared_texture.h)
  // --lod on|off: each tile of the mesh at the level of detail its distance
  // needs (renderer/tile_lod.h), or every triangle (off: the lesson's draw).
  bool levelOfDetail = true;
  uint32_t lodCellPixels = kLodCellPixels;  // --lod-pixels: the most pixels a drawn cell may span
  bool frameTags = false;  // --frame-tags: a test facility (app/testing/frame_tags.h); headless, CPU, zero-copy
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

// The part of the options that the interop core reads (app/interop/interop_config.h).
InteropConfig interopConfig(const Options& options);

// Frames to run once windowing is decided: 0 means until the window closes
// (or, headless, until interrupted).
int64_t framesToRun(const Options& options, bool headless);

}  // namespace vksim
