// The command line (CLI11). Parsing never exits the process: it returns what
// main() should do, so tests can check every bad input's message and code.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "app/camera.h"
#include "app/input_script.h"
#include "sim/sim_types.h"

namespace vksim {

enum class BackendChoice { automatic, cuda, cpu };
const char* toString(BackendChoice backend);

// Exit codes, documented in README.md.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitUsage = 2;        // bad command line (CLI11's message)
inline constexpr int kExitEnvironment = 3;  // no Vulkan device, backend or device unavailable
inline constexpr int kExitRuntime = 4;      // timeout, device lost, failed call

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
};

inline constexpr int64_t kDefaultHeadlessFrames = 600;

struct ParseOutcome {
  std::optional<Options> options;  // set when the program should run
  int exitCode = kExitSuccess;     // when options is empty: exit with this...
  std::string message;             // ...after printing this (stdout for 0, stderr otherwise)
};

ParseOutcome parseCommandLine(int argc, const char* const* argv);

// Frames to run once windowing is decided: 0 means until the window closes
// (or, headless, until interrupted).
int64_t framesToRun(const Options& options, bool headless);

}  // namespace vksim
