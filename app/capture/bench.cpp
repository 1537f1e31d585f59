#include "app/capture/bench.h"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <thread>

#include "app/app.h"
#include "app/capture/capture_stats.h"
#include "app/capture/frame_budget.h"
#include "app/capture/frame_timing.h"
#include "app/capture/progress.h"
#include "app/capture/switch_probe.h"
#include "app/frame_loop.h"
#include "app/ui/interrupt.h"
#include "app/ui/overlay_panels.h"
#include "renderer/external_transfer_stages.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

std::optional<double> meanOf(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
}

nlohmann::ordered_json numberOrNull(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
}

// The shared progress bar (app/capture/progress.h) on a terminal; plain
// lines, one per configuration, otherwise. The label is formatted only when
// a redraw is due: nothing is allocated in the measured frames between them.
class Progress {
 public:
  Progress(uint64_t totalFrames, size_t configurations)
      : bar_(createProgressBar(totalFrames, hostNowNs())), configurations_(configurations) {}

  void frameDone(size_t configuration, const std::string& label) {
    const int64_t now = hostNowNs();
    if (countProgressFrame(bar_, now))
      drawProgressBar(bar_, now, fmt::format("{}/{} {}", configuration + 1, configurations_, label));
  }

  void configurationDone(size_t configuration, const std::string& label, const BenchResult& result) {
    if (bar_.enabled) return;
    fmt::print("bench {}/{}: {}: mean {:.3f} ms over {} frames\n", configuration + 1, configurations_, label,
               result.meanMs, result.frames);
    std::fflush(stdout);
  }

  void finish() { finishProgressBar(bar_); }

 private:
  ProgressBar bar_;
  size_t configurations_;
};

std::string labelOf(const BenchConfiguration& configuration) {
  return "grid " + std::to_string(configuration.grid) + ", " + syncName(configuration) + ", " +
         toString(configuration.transfer) + ", wait " + waitName(configuration) + ", lod " +
         (configuration.levelOfDetail ? "on" : "off") + ", texture " +
         (configuration.texture ? "on" : "off") + ", overlay " + (configuration.overlay ? "on" : "off");
}

// The measured frames' samples. Frame times, host times and waits are the
// frame's own; the render, step and overlap times are those inside the
// frame's interval (app/capture/frame_budget.h), so that they add up to it.
BenchSamples samplesOf(const std::vector<FrameTiming>& timings, uint64_t firstMeasured,
                       bool gpuClockCalibrated) {
  BenchSamples samples;
  if (gpuClockCalibrated) samples.renderEndMs = renderEndIntervals(timings, firstMeasured);
  for (const FrameTiming& timing : timings) {
    if (timing.frame < firstMeasured) continue;
    samples.cpuFrameMs.push_back(timing.hostFrame.milliseconds());
    if (timing.simWait) samples.simWaitMs.push_back(timing.simWait->milliseconds());
  }
  for (const IntervalBudget& budget : intervalBudgets(timings, firstMeasured)) {
    // MsBetweenPresents, as in a capture: present point to present point.
    samples.frameMs.push_back(budget.frameMs);
    if (budget.renderMs) samples.renderGpuMs.push_back(*budget.renderMs);
    if (budget.simMs) samples.simGpuMs.push_back(*budget.simMs);
    if (budget.overlapMs) samples.overlapMs.push_back(*budget.overlapMs);
  }
  return samples;
}

// Points the app at the configuration: fresh grid resources built for its
// transfer and grid, the schedule at frame 0 in its sync mode. Frame records
// of the configuration before are dropped.
void applyConfiguration(App& app, const BenchConfiguration& configuration, bool rebuild) {
  app.options.levelOfDetail = configuration.levelOfDetail;
  app.options.texture = configuration.texture;  // read by the rebuild (gridSetup)
  app.options.overlay = configuration.overlay;  // whether measureConfiguration builds the widgets
  // A row without the overlay draws none: the last ImGui frame of a row
  // with it (built ahead during its last frame) must not be drawn again.
  app.overlay.hasDrawData = false;
  app.overlay.builtAhead = false;
  app.options.transfer = configuration.transfer;
  app.options.waitStrategy = configuration.wait;
  ModelParams params = app.options.model;
  params.grid = configuration.grid;
  if (rebuild) rebuildGridResources(app, params);
  // Safe to set directly: render 0 of the rebuilt state waits on the initial
  // write's simDone whatever the mode, and nothing else is outstanding.
  app.schedule.mode = configuration.sync;
  app.schedule.pendingMode.reset();
  app.schedule.switchEvery = 0;
  while (takeFinishedFrame(app.timing, /*flush=*/true)) {
  }
}

// The samples of the configuration's measured frames; nullopt when a signal
// (main's flag, `interrupted`) stopped it part-way: its frames are abandoned, not
// reported as a shorter measurement. Either way the schedule is drained, so
// the next configuration or the teardown starts with nothing outstanding.
std::optional<BenchSamples> measureConfiguration(App& app, const BenchOptions& bench, Progress& progress,
                                                 size_t index, const std::string& label,
                                                 const volatile std::sig_atomic_t& interrupted) {
  const bool overlay = app.options.overlay;  // this row's (applyConfiguration)
  // Every frame, the warm-up's included: their spans may reach into the first
  // measured frame's interval.
  std::vector<FrameTiming> timings;
  bool abandoned = false;
  const auto takeFinished = [&](bool flush) {
    while (std::optional<FrameTiming> timing = takeFinishedFrame(app.timing, flush))
      timings.push_back(std::move(*timing));
  };
  const auto runOne = [&](bool counted) {
    if (interrupted != 0) abandoned = true;
    if (abandoned) return false;
    // As the run loop does (app/main.cpp): buildOverlay at the frame boundary
    // (where the host takes turns with the simulation it finds the widgets
    // already built during the last frame's render: app/frame_loop.cpp), the
    // frame, and its duration for the overlay's statistics.
    const int64_t startNs = hostNowNs();
    if (overlay) buildOverlay(app);
    runFrame(app);  // headless: always rendered
    if (overlay) app.frameMilliseconds.push_back(double(hostNowNs() - startNs) * 1e-6);
    takeFinished(false);
    if (counted) progress.frameDone(index, label);
    return true;
  };
  // The warm-up: its frames, and on until it has lasted warmupMs (the
  // frames past the count are not in the progress bar's total).
  const int64_t warmupStartNs = hostNowNs();
  uint64_t warmupRun = 0;
  while (!warmupFinished(bench, warmupRun, uint64_t(hostNowNs() - warmupStartNs)) && runOne(warmupRun < bench.warmupFrames))
    ++warmupRun;
  const uint64_t firstMeasured = app.schedule.totalFrames;
  const HostLoadSnapshot loadBefore = takeHostLoadSnapshot();
  for (uint32_t frame = 0; frame < bench.frames && runOne(true); ++frame) {
  }
  drainSchedule(app);
  if (!simulationOf(app.grid)->finish(kWaitTimeoutNs))
    throw RuntimeFailure("timeout: the simulation did not finish");
  settleFrameTimings(app.timing, app.device, app.gpuTimer, simulationOf(app.grid));
  takeFinished(true);
  if (abandoned) return std::nullopt;
  BenchSamples samples = samplesOf(timings, firstMeasured, app.timing.timeBase == GpuTimeBase::calibrated);
  samples.hostLoad = hostLoadBetween(loadBefore, takeHostLoadSnapshot());
  samples.warmupFrames = warmupRun;
  return samples;
}

nlohmann::ordered_json machineDescription(const App& app) {
  const PhysicalDeviceInfo& info = app.device.info;
  nlohmann::ordered_json machine;
  machine["gpu"] = info.name;
  machine["driver"] = describeDriver(info);
  machine["vulkan"] = formatVersion(info.apiVersion);
  const std::string cpu = cpuModelName();
  machine["cpu"] = cpu.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(cpu);
  machine["cpuThreads"] = std::thread::hardware_concurrency();
  if (app.devices.backend == Backend::cuda) machine["cudaDriver"] = formatCudaVersion(app.cudaDevices.driverVersion);
  utsname system{};
  if (uname(&system) == 0) machine["os"] = std::string(system.sysname) + " " + system.release;
  return machine;
}

}  // namespace

bool warmupFinished(const BenchOptions& bench, uint64_t framesRun, uint64_t elapsedNs) {
  return framesRun >= bench.warmupFrames && elapsedNs >= uint64_t(bench.warmupMs) * 1'000'000;
}

std::vector<BenchConfiguration> benchMatrix(const BenchOptions& options) {
  std::vector<BenchConfiguration> matrix;
  // What the frame draws besides the mesh, innermost.
  const auto addLooks = [&](BenchConfiguration configuration) {
    for (bool texture : options.textures)
      for (bool overlay : options.overlays) {
        configuration.texture = texture;
        configuration.overlay = overlay;
        matrix.push_back(configuration);
      }
  };
  for (uint32_t grid : options.grids)
    for (TransferMode transfer : options.transfers) {
      if (transfer == TransferMode::copy) {
        for (bool lod : options.levelsOfDetail)
          addLooks({grid, transfer, SyncMode::timeline, WaitStrategy::poll, lod});
        continue;
      }
      for (SyncMode sync : options.syncModes)
        for (WaitStrategy wait : options.waitStrategies)
          for (bool lod : options.levelsOfDetail) addLooks({grid, transfer, sync, wait, lod});
    }
  return matrix;
}

const char* textureName(const BenchConfiguration& configuration, bool textureDrawn) {
  if (!configuration.texture) return "off";
  return textureDrawn ? "on" : "placeholder";
}

const char* syncName(const BenchConfiguration& configuration) {
  return shownSyncMode(configuration.transfer, configuration.sync);
}

const char* waitName(const BenchConfiguration& configuration) {
  return shownWaitStrategy(configuration.transfer, configuration.wait);
}

std::vector<double> renderEndIntervals(const std::vector<FrameTiming>& timings, uint64_t firstMeasured) {
  std::vector<double> intervals;
  const FrameTiming* before = nullptr;
  for (const FrameTiming& timing : timings) {
    if (before && before->renderGpu && timing.renderGpu && timing.frame == before->frame + 1 &&
        timing.frame >= firstMeasured)
      intervals.push_back(double(timing.renderGpu->endNs - before->renderGpu->endNs) * 1e-6);
    before = &timing;
  }
  return intervals;
}

BenchResult summarizeBench(const BenchConfiguration& configuration, const std::string& backend,
                           const BenchSamples& samples) {
  BenchResult result;
  result.configuration = configuration;
  result.backend = backend;
  const FrameStats stats = computeFrameStats(samples.frameMs);
  result.frames = uint32_t(stats.frameCount);
  result.meanMs = stats.frameCount > 0 ? stats.totalMs / double(stats.frameCount) : 0.0;
  result.p50Ms = stats.p50Ms;
  result.p99Ms = stats.p99Ms;
  if (!samples.renderEndMs.empty()) result.renderEndP99Ms = computeFrameStats(samples.renderEndMs).p99Ms;
  result.renderGpuMs = meanOf(samples.renderGpuMs);
  result.simGpuMs = meanOf(samples.simGpuMs);
  result.simWaitMs = meanOf(samples.simWaitMs);
  result.cpuFrameMs = meanOf(samples.cpuFrameMs).value_or(0.0);
  result.overlapMs = meanOf(samples.overlapMs);
  result.hostStealMs = samples.hostLoad.stealMs;
  result.involuntarySwitches = samples.hostLoad.involuntarySwitches;
  result.warmupFrames = samples.warmupFrames;
  // The frame time that neither side's GPU work accounts for: on the H200
  // mostly the two GPU context switches between Vulkan and CUDA (or
  // OpenCL), plus submission and host work on the critical path. OpenCL's
  // step has no timing, so there it also holds the whole step, the
  // texture's kernels included. Time the two sides ran at
  // once (the copy path's step beside the render) is counted once, so the
  // parts add up to the frame; and each part is counted inside the frames'
  // intervals, so the rest is never negative.
  result.unexplainedMs = result.meanMs - result.renderGpuMs.value_or(0.0) - result.simGpuMs.value_or(0.0) +
                         result.overlapMs.value_or(0.0);
  return result;
}

std::string formatBenchTable(const std::vector<BenchResult>& results) {
  fmt::memory_buffer table;
  fmt::format_to(
      std::back_inserter(table),
      "{:>6}  {:<8}  {:<9}  {:<7}  {:<3}  {:<11}  {:<7}  {:>9}  {:>9}  {:>9}  {:>17}  {:>10}  {:>13}  {:>10}"
      "  {:>14}  {:>13}  {:>9}\n",
      "grid", "sync", "transfer", "wait", "lod", "texture", "overlay", "mean ms", "P50 ms", "P99 ms",
      "render-end P99 ms", "sim GPU ms", "render GPU ms", "overlap ms", "unexplained ms", "2 switches ms",
      "M tris");
  const auto cell = [](const std::optional<double>& value) {
    return value ? fmt::format("{:.3f}", *value) : std::string("NA");
  };
  for (const BenchResult& result : results)
    fmt::format_to(
        std::back_inserter(table),
        "{:>6}  {:<8}  {:<9}  {:<7}  {:<3}  {:<11}  {:<7}  {:>9.3f}  {:>9.3f}  {:>9.3f}  {:>17}  {:>10}"
        "  {:>13}  {:>10}  {:>14.3f}  {:>13}  {:>9.3f}\n",
        result.configuration.grid, syncName(result.configuration), toString(result.configuration.transfer),
        waitName(result.configuration), result.configuration.levelOfDetail ? "on" : "off",
        textureName(result.configuration, result.textureDrawn), result.configuration.overlay ? "on" : "off",
        result.meanMs, result.p50Ms, result.p99Ms, cell(result.renderEndP99Ms), cell(result.simGpuMs),
        cell(result.renderGpuMs),
        cell(result.overlapMs), result.unexplainedMs,
        cell(result.switchUs ? std::optional<double>(result.switchUs->pair * 1e-3) : std::nullopt),
        double(result.trianglesDrawn) * 1e-6);
  return fmt::to_string(table);
}

nlohmann::ordered_json benchJson(const nlohmann::ordered_json& machine,
                                 const nlohmann::ordered_json& settings,
                                 const std::vector<BenchResult>& results) {
  nlohmann::ordered_json document;
  document["schema"] = "vkcuda-sim.bench/1";
  document["machine"] = machine;
  document["settings"] = settings;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const BenchResult& result : results) {
    const BenchConfiguration& configuration = result.configuration;
    nlohmann::ordered_json row;
    row["grid"] = configuration.grid;
    row["vertices"] = uint64_t(configuration.grid) * configuration.grid;
    row["sync"] = syncName(configuration);
    row["transfer"] = toString(configuration.transfer);
    row["waitStrategy"] = waitName(configuration);
    row["lod"] = configuration.levelOfDetail ? "on" : "off";
    row["texture"] = textureName(configuration, result.textureDrawn);
    row["overlay"] = configuration.overlay ? "on" : "off";
    row["overlayVertices"] = result.overlayVertices;
    row["backend"] = result.backend;
    row["frames"] = result.frames;
    row["meanMs"] = result.meanMs;
    row["p50Ms"] = result.p50Ms;
    row["p99Ms"] = result.p99Ms;
    row["renderEndP99Ms"] = numberOrNull(result.renderEndP99Ms);
    row["simGpuMs"] = numberOrNull(result.simGpuMs);
    row["renderGpuMs"] = numberOrNull(result.renderGpuMs);
    row["simWaitMs"] = numberOrNull(result.simWaitMs);
    row["cpuFrameMs"] = result.cpuFrameMs;
    row["overlapMs"] = numberOrNull(result.overlapMs);
    row["unexplainedMs"] = result.unexplainedMs;
    row["switchUs"] = result.switchUs ? nlohmann::ordered_json{{"vulkanToSim", result.switchUs->vulkanToSim},
                                                               {"simToVulkan", result.switchUs->simToVulkan},
                                                               {"pair", result.switchUs->pair}}
                                      : nlohmann::ordered_json();
    row["trianglesDrawn"] = result.trianglesDrawn;
    row["gridTriangles"] = result.gridTriangles;
    row["hostStealMs"] = numberOrNull(result.hostStealMs);
    row["involuntarySwitches"] = result.involuntarySwitches;
    row["warmupFrames"] = result.warmupFrames;
    if (!result.stagingMemory.empty()) row["stagingMemory"] = result.stagingMemory;
    rows.push_back(row);
  }
  document["results"] = rows;
  return document;
}

std::string cpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? std::string() : line.substr(start);
  }
  return {};
}

namespace {

// The app is created for the matrix's first configuration; later ones
// rebuild what differs (applyConfiguration).
Options firstConfigurationOptions(const Options& options, const BenchConfiguration& first) {
  Options result = options;
  result.model.grid = first.grid;
  result.transfer = first.transfer;
  result.sync = first.sync;
  result.waitStrategy = first.wait;
  result.switchSyncEvery = 0;
  result.texture = first.texture;
  // The overlay exists for the whole matrix when a row asks for it; the
  // rows without it build and draw none.
  result.overlay = std::find(options.bench->overlays.begin(), options.bench->overlays.end(), true) !=
                   options.bench->overlays.end();
  return result;
}

// The context switch between the two APIs: its cost when measured, and
// the JSON that says either the cost or why there is none.
struct SwitchProbe {
  std::optional<SwitchCost> cost;
  nlohmann::ordered_json json;
};

// Measured once, before any configuration runs: nothing else is outstanding
// on either side then.
SwitchProbe probeContextSwitch(App& app, const std::string& backend) {
  SwitchProbe probe;
  const bool cudaProbe = app.devices.backend == Backend::cuda && app.devices.cuda.has_value();
  if (cudaProbe || (app.devices.backend == Backend::opencl && app.devices.opencl)) {
    Result<SwitchCost> probed = cudaProbe ? probeVulkanCudaSwitch(app.device, app.devices.cuda->ordinal)
                                          : probeVulkanOpenClSwitch(app.device, *app.devices.opencl);
    if (probed) {
      probe.cost = *probed;
      probe.json = switchCostJson(*probed);
      fmt::print("{}\n", formatSwitchCost(*probed));
    } else {
      probe.json = {{"status", "n/a"}, {"reason", probed.error().message}};
      fmt::print("switch probe: n/a ({})\n", probed.error().message);
    }
  } else {
    probe.json = {{"status", "n/a"}, {"reason", "the " + backend + " backend has no GPU context of its own"}};
  }
  return probe;
}

struct MatrixOutcome {
  std::vector<BenchResult> results;  // the configurations that completed
  bool stoppedEarly = false;         // a signal abandoned a configuration
};

MatrixOutcome runMatrix(App& app, const BenchOptions& bench, const std::vector<BenchConfiguration>& matrix,
                        const std::string& backend, const std::optional<SwitchCost>& switchCost,
                        const volatile std::sig_atomic_t& interrupted) {
  Progress progress(uint64_t(matrix.size()) * (uint64_t(bench.warmupFrames) + bench.frames), matrix.size());
  MatrixOutcome outcome;
  std::vector<BenchResult>& results = outcome.results;
  for (size_t i = 0; i < matrix.size() && !outcome.stoppedEarly; ++i) {
    const std::string label = labelOf(matrix[i]);
    applyConfiguration(app, matrix[i], /*rebuild=*/i > 0);
    const std::optional<BenchSamples> samples = measureConfiguration(app, bench, progress, i, label, interrupted);
    if (!samples) {
      outcome.stoppedEarly = true;
      continue;
    }
    results.push_back(summarizeBench(matrix[i], backend, *samples));
    results.back().trianglesDrawn = app.meshDraw.triangles;
    results.back().gridTriangles = app.meshDraw.gridTriangles;
    results.back().textureDrawn = textureDrawn(app.grid);
    results.back().overlayVertices = overlayDrawnVertices(app.overlay);
    if (matrix[i].transfer == TransferMode::copy) {
      results.back().stagingMemory = describeStagingChoice(app.device, app.path.copy.stagingChoice);
      fmt::print("bench: grid {} copy path staging memory: {}\n", matrix[i].grid, results.back().stagingMemory);
    }
    if (switchCost)
      results.back().switchUs = BenchResult::SwitchUs{switchCost->firstToSecond.medianUs,
                                                      switchCost->secondToFirst.medianUs, switchCost->pairUs};
    progress.configurationDone(i, label, results.back());
  }
  progress.finish();
  return outcome;
}

void writeBenchJson(const App& app, const Options& options, const SwitchProbe& probe,
                    const MatrixOutcome& outcome) {
  const BenchOptions& bench = *options.bench;
  nlohmann::ordered_json settings;
  settings["model"] = toString(options.model.model);
  settings["memoryOwner"] = toString(options.memoryOwner);
  settings["resolution"] = {{"width", options.width}, {"height", options.height}};
  settings["framesPerConfiguration"] = bench.frames;
  settings["warmupFrames"] = bench.warmupFrames;
  settings["warmupMs"] = bench.warmupMs;
  settings["presentPoint"] = "end of the frame's vkQueueSubmit (headless)";
  settings["gpuTimeBase"] = describe(app.timing.timeBase);
  // Which form the ownership transfers to and from EXTERNAL took (rules M21
  // and M22): the A/B of VK_KHR_maintenance8 is two bench runs that differ here.
  settings["transferStages"] = transferStagesName(app.device.maintenance8);
  AtomicFile file;
  if (Result<> opened = file.open(bench.jsonPath, "bench table"); !opened)
    throw RuntimeFailure(opened.error().message);
  nlohmann::ordered_json document = benchJson(machineDescription(app), settings, outcome.results);
  document["switchProbe"] = probe.json;
  // A signal stopped the matrix: the results are the configurations
  // that completed, and a reader must not take them for the whole run.
  document["interrupted"] = outcome.stoppedEarly;
  file.stream() << document.dump(2) << '\n';
  if (Result<> committed = file.commit(); !committed) throw RuntimeFailure(committed.error().message);
  fmt::print("wrote {} ({} results)\n", bench.jsonPath, outcome.results.size());
}

}  // namespace

int runBenchmark(const Options& options, const volatile std::sig_atomic_t& interrupted) {
  const BenchOptions& bench = *options.bench;
  const std::vector<BenchConfiguration> matrix = benchMatrix(bench);
  if (matrix.empty()) {
    fmt::print(stderr, "vkcuda-sim: bench: the matrix is empty\n");
    return kExitUsage;
  }
  App app;
  app.headless = true;
  const int exitCode = runThenTearDown(app, [&] {
    const Options first = firstConfigurationOptions(options, matrix.front());
    createApp(app, first);
    endStartUp();  // a signal from now on abandons the configuration in progress (app/ui/interrupt.h)
    const std::string backend = backendName(app.devices);
    fmt::print(
        "bench: {} configurations, {} frames each after {} warm-up frames and at least {} ms, {} backend, "
        "{} model, {}x{}, memory owner {}\n",
        matrix.size(), bench.frames, bench.warmupFrames, bench.warmupMs, backend, toString(options.model.model),
        options.width, options.height, toString(options.memoryOwner));
    std::fflush(stdout);
    const SwitchProbe probe = probeContextSwitch(app, backend);
    std::fflush(stdout);

    const MatrixOutcome outcome = runMatrix(app, bench, matrix, backend, probe.cost, interrupted);
    if (outcome.stoppedEarly)
      fmt::print("bench: interrupted: {} of {} configurations completed, the one in progress abandoned\n",
                 outcome.results.size(), matrix.size());
    fmt::print("{}", formatBenchTable(outcome.results));
    if (!bench.jsonPath.empty()) writeBenchJson(app, options, probe, outcome);
    fmt::print("vkcuda-sim: bench configurations={} transfer_stages={} {} validation_warnings={} "
               "validation_errors={}\n",
               outcome.results.size(), transferStagesName(app.device.maintenance8), describeValidation(app.instance),
               validationCounts().warnings.load(), validationCounts().errors.load());
  });
  std::fflush(stdout);
  return exitCode;
}

}  // namespace vksim
