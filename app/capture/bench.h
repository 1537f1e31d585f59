// `vkcuda-sim bench`: the benchmark matrix, run headless in one process. Each
// configuration rebuilds the grid resources (rebuildGridResources: new buffers,
// semaphores and simulation, the schedule back at frame 0), runs its warm-up
// frames, then measures its frames through the same frame records as a
// capture (app/capture/frame_timing.h). One table on stdout, and the same as JSON in
// the schema scripts/plot-bench reads (docs/benchmarks.md, docs/captures.md).
#pragma once
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/capture/host_load.h"
#include "app/cli.h"

namespace vksim {

struct FrameTiming;  // app/capture/frame_timing.h

// One cell of the matrix. The copy path has no semaphores, so it runs once
// per grid, with no sync mode or wait strategy of its own.
struct BenchConfiguration {
  uint32_t grid = 0;
  TransferMode transfer = TransferMode::zeroCopy;
  SyncMode sync = SyncMode::timeline;      // zero-copy only
  WaitStrategy wait = WaitStrategy::poll;  // zero-copy only
  bool levelOfDetail = true;               // --lod: tiles at their level (renderer/tile_lod.h), or every triangle
  bool texture = true;                     // --texture: asked for (the copy transfer binds a placeholder anyway)
  bool overlay = false;                    // --overlay: the ImGui overlay built and drawn every frame
};

// The matrix in the order it runs: grids as given, zero-copy (every sync mode
// x every wait strategy) before copy, each with every level-of-detail choice,
// then every texture choice, then every overlay choice (innermost, so that a
// row with the overlay and the same row without it run one after the other).
std::vector<BenchConfiguration> benchMatrix(const BenchOptions& options);

// The texture column: "on", "off", or "placeholder" where it was asked for
// but the configuration's path writes none (textureDrawn false: the copy
// path; before they wrote the texture, the render-queue backends, OpenCL and
// --memory-owner cuda too, and older JSONs say so).
const char* textureName(const BenchConfiguration& configuration, bool textureDrawn);

// "sync" and "waitStrategy" as the table and the JSON name them ("none" on the copy path).
const char* syncName(const BenchConfiguration& configuration);
const char* waitName(const BenchConfiguration& configuration);

// What one configuration measured: means over its measured frames, ms.
struct BenchResult {
  BenchConfiguration configuration;
  std::string backend;  // "cuda", "cpu", "vulkan", "cuda-nvx" or "opencl"
  uint32_t frames = 0;  // frames measured (after the warm-up)
  double meanMs = 0.0;  // mean frame time: present point to present point (MsBetweenPresents)
  double p50Ms = 0.0;   // its median (capture_stats.h's interpolation)
  double p99Ms = 0.0;   // its 99th percentile
  // The 99th percentile of the time from one render's end on the GPU to the
  // next's (renderEndMs): the pace at which finished frames leave the GPU,
  // which is what a window shows with vsync off. Beside p99Ms it says whether
  // the slow frames the host measured reached the GPU: a host that runs ahead
  // of the GPU can be slow for a frame while the GPU's renders go on at their
  // pace. Null where the render timestamps are not on the host's clock
  // (GpuTimeBase::calibrated) or no two consecutive frames have them.
  std::optional<double> renderEndP99Ms;
  // The step's and the render's time inside each measured frame's interval,
  // averaged (app/capture/frame_budget.h); the step's wait: the mean of the
  // frames that have one.
  std::optional<double> simGpuMs, renderGpuMs, simWaitMs;
  double cpuFrameMs = 0.0;                                 // mean host time of runFrame's body
  // How long the render and the step ran at once inside the intervals (the
  // copy path's step runs beside the render); counted once in the budget.
  // Null without both spans.
  std::optional<double> overlapMs;
  // The rest of the frame: meanMs - renderGpuMs - simGpuMs + overlapMs, so
  // that render + sim - overlap + unexplained = meanMs (docs/benchmarks.md).
  double unexplainedMs = 0.0;
  // The run's context-switch probe (app/capture/switch_probe.h), medians in
  // µs; absent where the backend has no GPU context of its own (cpu, and
  // cuda-nvx and vulkan, which run in Vulkan's: bench.cpp's
  // probeContextSwitch probes cuda and opencl only) or the probe could not
  // run. The same for every row of one run.
  struct SwitchUs {
    double vulkanToSim = 0.0, simToVulkan = 0.0, pair = 0.0;
  };
  std::optional<SwitchUs> switchUs;
  // Copy path: the staging memory type chosen by measured host write speed
  // and the candidates' speeds (describeStagingChoice); empty otherwise.
  std::string stagingMemory;
  // The mesh's triangles drawn in the last measured frame, and the whole
  // grid's (equal with --lod off).
  uint64_t trianglesDrawn = 0, gridTriangles = 0;
  // Whether the mesh sampled a texture the simulation wrote (false: the
  // placeholder, or --texture off).
  bool textureDrawn = false;
  // The overlay's vertices in the last measured frame (overlayDrawnVertices):
  // 0 where no overlay was drawn.
  uint64_t overlayVertices = 0;
  // While the measured frames ran (app/capture/host_load.h): the machine's
  // steal time over every CPU, ms (null without steal accounting), and the
  // frame loop thread's involuntary context switches.
  std::optional<double> hostStealMs;
  uint64_t involuntarySwitches = 0;
  uint64_t warmupFrames = 0;  // frames the warm-up ran before these (at least --warmup, and --warmup-ms long)
};

// Whether a configuration's warm-up is over after `framesRun` frames and
// `elapsedNs` since its rebuild: once both bench.warmupFrames frames and
// bench.warmupMs have passed.
bool warmupFinished(const BenchOptions& bench, uint64_t framesRun, uint64_t elapsedNs);

// The measured frames: their frame times and host times, and per frame the
// render, step and overlap time inside its interval (samplesOf, bench.cpp);
// renderEndMs, from the render before's end on the GPU to this frame's
// (renderEndIntervals), empty unless the render spans are calibrated.
struct BenchSamples {
  std::vector<double> frameMs, cpuFrameMs, renderGpuMs, simGpuMs, simWaitMs, overlapMs, renderEndMs;
  HostLoad hostLoad;  // over the measured frames
  uint64_t warmupFrames = 0;  // frames the warm-up ran (warmupFinished)
};
// For each frame from `firstMeasured` on whose render span and the previous
// frame's (FrameTiming::frame one less) are both known, ms from the previous
// render's end to its own. The spans must be on the host's clock through
// calibrated timestamps: spans anchored where the host saw a render complete
// would measure the host again.
std::vector<double> renderEndIntervals(const std::vector<FrameTiming>& timings, uint64_t firstMeasured);
BenchResult summarizeBench(const BenchConfiguration& configuration, const std::string& backend,
                           const BenchSamples& samples);

// The table printed at the end, one line per result, with a header: the
// configuration (grid, sync, transfer, wait, lod, texture as textureName
// says, overlay), the frame times (mean, P50, P99), the render ends' P99 and
// the spans in ms, the run's two context switches (switchUs.pair) in ms, NA
// for what a row lacks, and the triangles drawn in millions.
std::string formatBenchTable(const std::vector<BenchResult>& results);

// The JSON document: {"schema", "machine", "settings", "results": [...]};
// each result carries "switchUs": {"vulkanToSim", "simToVulkan", "pair"} or
// null. runBenchmark adds "switchProbe" (switchCostJson, or why not).
nlohmann::ordered_json benchJson(const nlohmann::ordered_json& machine,
                                 const nlohmann::ordered_json& settings,
                                 const std::vector<BenchResult>& results);

// "model name" of the first processor in /proc/cpuinfo; empty when unknown.
std::string cpuModelName();

// The whole `bench` run after parsing: returns the process exit code.
// `interrupted` is main's signal flag (nonzero once SIGINT or SIGTERM asked
// the process to stop), read before every frame: the configuration in
// progress is then abandoned, the completed ones are printed and written to
// --json with "interrupted": true, and the exit code is 0.
int runBenchmark(const Options& options, const volatile std::sig_atomic_t& interrupted);

}  // namespace vksim
