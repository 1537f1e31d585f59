#include "app/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "app/capture/capture_writer.h"
#include "app/files.h"
#include "app/scene.h"
#include "app/ui/cli_checks.h"

namespace vksim {
namespace {

const std::map<std::string, ModelKind> kModelChoices = choicesOf(kModelNames);
const std::map<std::string, SyncMode> kSyncChoices = choicesOf(kSyncModeNames);
// Every backend of the table (app/interop/interop_config.h), by name.
std::map<std::string, BackendChoice> backendChoices() {
  std::map<std::string, BackendChoice> choices;
  for (const BackendTraits& row : backendTable()) choices.emplace(row.name, row.backend);
  return choices;
}
const std::map<std::string, BackendChoice> kBackendChoices = backendChoices();

// --backend's help: each row's words, in the table's order.
std::string backendHelp() {
  std::string help = "Simulation backend: ";
  for (const BackendTraits& row : backendTable())
    help += std::string(row.backend == BackendChoice::automatic ? "" : ", ") + row.help;
  return help;
}
const std::map<std::string, MemoryOwner> kMemoryOwnerChoices{{"vulkan", MemoryOwner::vulkan},
                                                             {"cuda", MemoryOwner::cuda}};
const std::map<std::string, TransferMode> kTransferChoices =
    choicesOf({TransferMode::zeroCopy, TransferMode::copy});
const std::map<std::string, WaitStrategy> kWaitStrategyChoices =
    choicesOf({WaitStrategy::poll, WaitStrategy::enqueue});
const std::map<std::string, CaptureFormat> kCaptureFormatChoices =
    choicesOf({CaptureFormat::presentmon, CaptureFormat::mangohud});
const std::map<std::string, CaptureColumns> kCaptureColumnChoices =
    choicesOf({CaptureColumns::v1, CaptureColumns::v2});

// One file the run reads or writes, and the option that names it.
struct NamedFile {
  std::string option;  // "--screenshot", "--capture's summary", ...
  std::string path;
  bool output = true;  // false: an input that an output must not replace
};

// Every file a run will write, and the input files it read: each output is
// written through AtomicFile (rename over the target), so two outputs naming
// one file leave only the later one, and an output naming an input replaces
// the user's scene or script. Refused before any frame, with the two names.
std::string refuseSharedNames(const Options& options, const std::string& scene) {
  std::vector<NamedFile> files;
  const auto add = [&](std::string option, const std::string& path, bool output = true) {
    if (!path.empty()) files.push_back({std::move(option), path, output});
  };
  add("--screenshot", options.screenshotPath);
  add("--dump-vertices", options.dumpVerticesPath);
  add("--capture", options.capturePath);
  if (!options.capturePath.empty()) add("--capture's summary", summaryPathFor(options.capturePath));
  if (!options.capturePath.empty() && options.captureFormat == CaptureFormat::mangohud)
    add("--capture's MangoHud summary", mangoHudSummaryPathFor(options.capturePath));
  add("--trace", options.tracePath);
  if (options.bench) add("bench --json", options.bench->jsonPath);
  // Screenshots of one script may share a name on purpose (a later one
  // replaces an earlier one); each is still checked against the rest.
  for (const ScriptCommand& command : options.inputScript.commands)
    if (command.action == ScriptAction::screenshot)
      add("--input-script's screenshot (line " + std::to_string(command.line) + ")", command.text);
  add("--input-script", options.inputScriptPath, /*output=*/false);
  if (!scene.empty() && std::filesystem::is_regular_file(scene)) add("--scene", scene, /*output=*/false);
  std::vector<std::string> identities;
  for (const NamedFile& file : files) identities.push_back(fileIdentity(file.path));
  for (size_t second = 1; second < files.size(); ++second)
    for (size_t first = 0; first < second; ++first) {
      const bool bothScriptShots = files[first].option.starts_with("--input-script's") &&
                                   files[second].option.starts_with("--input-script's");
      if (bothScriptShots || (!files[first].output && !files[second].output)) continue;
      if (identities[first].empty() || identities[first] != identities[second]) continue;
      return files[first].option + " " + files[first].path + " and " + files[second].option + " " +
             files[second].path + " name the same file" +
             (files[first].output && files[second].output ? ": one would overwrite the other"
                                                          : ": the output would replace the input");
    }
  return "";
}

// A bench dimension given as on, off or both (any case): both runs on first.
void addOnOffDimension(CLI::App& command, const std::string& name, std::vector<bool>& values,
                       const std::string& help) {
  command
      .add_option_function<std::string>(
          name,
          [&values](std::string given) {
            for (char& c : given) c = char(std::tolower(static_cast<unsigned char>(c)));
            values = given == "both" ? std::vector<bool>{true, false} : std::vector<bool>{given == "on"};
          },
          help)
      ->check(CLI::IsMember({"on", "off", "both"}, CLI::ignore_case));
}

// `vkcuda-sim bench`: the options of the benchmark matrix (docs/benchmarks.md).
CLI::App* addBenchCommand(CLI::App& app, Options& options, BenchOptions& bench, std::string& size) {
  CLI::App* command = app.add_subcommand(
      "bench",
      "Run a headless benchmark matrix (grids x sync x transfer x wait strategy x level of detail x texture "
      "x overlay) and print one table");
  command->add_option("--grids", bench.grids, "Grid sizes (vertices per side), comma-separated")
      ->delimiter(',')
      ->check(wholeNumber(kMinGrid, kMaxGrid));
  addDimension<SyncMode>(*command, "--sync", bench.syncModes, kSyncChoices,
                         "Sync modes: both, timeline or binary");
  addDimension<TransferMode>(*command, "--transfer", bench.transfers, kTransferChoices,
                             "Transfers: both, zero-copy or copy");
  addDimension<WaitStrategy>(*command, "--wait-strategy", bench.waitStrategies, kWaitStrategyChoices,
                             "Wait strategies (zero-copy only): both, poll or enqueue");
  addOnOffDimension(*command, "--lod", bench.levelsOfDetail,
                    "Level of detail: on (the default), off, or both");
  addOnOffDimension(
      *command, "--texture", bench.textures,
      "The surface texture: on (the default), off, or both (the copy transfer binds a placeholder whatever this says)");
  addOnOffDimension(
      *command, "--overlay", bench.overlays,
      "The ImGui overlay, built and drawn every frame as in a window: off (the default), on, or both");
  command->add_option("--frames", bench.frames, "Frames measured per configuration, after the warm-up")
      ->check(wholeNumber(1, kMaxBenchFrames));
  command->add_option("--warmup", bench.warmupFrames, "Frames run and not measured after each rebuild")
      ->check(wholeNumber(0, kMaxBenchFrames));
  command->add_option("--warmup-ms", bench.warmupMs,
                      "The least time the warm-up lasts after each rebuild, ms (the GPU's clocks ramp up)")
      ->check(wholeNumber(0, kMaxWarmupMs));
  command->add_option("--json", bench.jsonPath, "Write the table as JSON (schema in docs/captures.md)")
      ->check(outputFile(".json"));
  command->add_option("--backend", options.backend, backendHelp())->transform(oneOf(kBackendChoices));
  command->add_option("--sim", options.model.model, "Simulation model")->transform(oneOf(kModelChoices));
  command->add_option("--device", options.device, "Vulkan device index or UUID (see --list-devices)")
      ->check(deviceSelector());
  command->add_option("--size", size, "Offscreen image size, WxH")->check(sizeValidator());
  command->add_option("--memory-owner", options.memoryOwner, "Who allocates the shared vertex memory")
      ->transform(oneOf(kMemoryOwnerChoices));
  return command;
}

const std::map<std::string, bool> kOnOff{{"on", true}, {"off", false}};

// The strings that options fill during parsing and parseCommandLine turns
// into Options afterwards.
struct CommandLineText {
  std::string size;
  std::string scene;
  std::vector<std::string> faults;
};

// The main command's options, added in the order that --help lists them.
void addRunOptions(CLI::App& app, Options& options, std::string& size) {
  app.add_flag("--headless", options.headless, "Render offscreen; needs no display");
  app.add_option(
         "--frames", options.frames,
         "Frames to run; 0 = until the window closes or the run is interrupted (headless default 600)")
      ->check(wholeNumber(0, kMaxFrames));
  app.add_option("--sim", options.model.model, "Simulation model")->transform(oneOf(kModelChoices));
  app.add_option("--grid", options.model.grid, "Vertices per side")->check(wholeNumber(kMinGrid, kMaxGrid));
  app.add_option("--sync", options.sync, "Semaphore kind of the value schedule")
      ->transform(oneOf(kSyncChoices));
  app.add_option("--backend", options.backend, backendHelp())->transform(oneOf(kBackendChoices));
  app.add_option("--size", size, "Window or image size, WxH")->check(sizeValidator());
  app.add_option("--seed", options.model.seed, "Seed of the ripple drops")
      ->check(wholeNumber(0, std::numeric_limits<uint64_t>::max()));
}

void addOutputOptions(CLI::App& app, Options& options) {
  app.add_option("--screenshot", options.screenshotPath, "Write the last frame as PNG")->check(outputFile(".png"));
  app.add_option("--dump-vertices", options.dumpVerticesPath,
                 "Write the final vertex buffer as raw little-endian float32 (shared layout)")
      ->check(outputFile(""));
}

void addDeviceOptions(CLI::App& app, Options& options) {
  app.add_option("--device", options.device, "Vulkan device index or UUID (see --list-devices)")
      ->check(deviceSelector());
  app.add_flag("--list-devices", options.listDevices, "List Vulkan and CUDA devices and which pairs match");
}

void addScheduleAndDisplayOptions(CLI::App& app, Options& options, std::string& scene) {
  app.add_option("--switch-sync-every", options.switchSyncEvery,
                 "Switch between binary and timeline every N frames")
      ->check(wholeNumber(0, kMaxFrames));
  app.add_option("--vsync", options.vsync, "Wait for vertical blank when presenting")
      ->transform(oneOf(kOnOff));
  app.add_option("--texture", options.texture,
                 "The surface texture that the simulation writes and the mesh samples (mip-mapped; "
                 "--transfer copy draws the height colour instead)")
      ->transform(oneOf(kOnOff));
  app.add_option("--lod", options.levelOfDetail,
                 "Level of detail: each tile of the mesh drawn at the vertex stride its distance needs, seams "
                 "stitched (on), or every triangle (off: for comparison and for the lesson)")
      ->transform(oneOf(kOnOff));
  app.add_option("--lod-pixels", options.lodCellPixels,
                 "With --lod on: the most pixels a drawn cell may span at its tile's nearest point (larger: "
                 "fewer triangles, a coarser picture)")
      ->check(wholeNumber(kMinLodCellPixels, kMaxLodCellPixels));
  app.add_option("--scene", scene,
                 "Scene preset (a name from assets/scenes, or a .json path): model parameters and camera; "
                 "--sim, --grid and --seed given as well override it");
  app.add_flag("--overlay", options.overlay, "Draw the ImGui overlay in headless runs too (screenshots include it)");
  app.add_option("--input-script", options.inputScriptPath,
                 "Timed keyboard and mouse commands, a test and demo facility (docs/interactive.md)")
      ->check(CLI::ExistingFile);
}

void addInteropOptions(CLI::App& app, Options& options) {
  app.add_option(
         "--transfer", options.transfer,
         "zero-copy: the simulation writes the shared buffer; copy: through host memory and a staging "
         "buffer, as without interop (docs/benchmarks.md)")
      ->transform(oneOf(kTransferChoices));
  app.add_option(
         "--wait-strategy", options.waitStrategy,
         "poll: spin on the host until each semaphore wait's value is reached, then hand it over "
         "(tighter P99, keeps a CPU core busy); enqueue: hand it to the GPU at once and sleep. Same "
         "schedule, same mean cost: two GPU context switches a frame on the H200 (docs/benchmarks.md)")
      ->transform(oneOf(kWaitStrategyChoices));
}

void addCaptureOptions(CLI::App& app, Options& options) {
  app.add_option("--capture", options.capturePath,
                 "Record one CSV row per frame, and PATH.summary.json beside it (docs/captures.md)")
      ->check(outputFile(".csv", /*withSummary=*/true));
  app.add_option("--trace", options.tracePath,
                 "Record a Chrome trace of host and GPU spans (docs/captures.md)")
      ->check(outputFile(".json"));
  app.add_option("--warmup", options.warmupFrames,
                 "First frames left out of the capture's statistics (still in its CSV)")
      ->check(wholeNumber(0, kMaxFrames));
  app.add_option("--capture-format", options.captureFormat,
                 "The capture's layout: presentmon (PresentMon's CSV columns) or mangohud (the frame log of "
                 "MangoHud 0.6.8, for CapFrameX and MangoHud's viewers) (docs/captures.md)")
      ->transform(oneOf(kCaptureFormatChoices));
  app.add_option("--capture-columns", options.captureColumns,
                 "PresentMon's column names: v1 (PresentMon 1.x's, which CapFrameX's file check takes) or v2 "
                 "(PresentMon 2.x's default set) (docs/captures.md)")
      ->transform(oneOf(kCaptureColumnChoices));
}

// --capture-format and --capture-columns shape the --capture file: without
// one, or in combinations that mean nothing, they are refused rather than
// quietly ignored.
Result<> checkCaptureLayout(const CLI::App& app, const Options& options) {
  const bool formatGiven = app.count("--capture-format") > 0, columnsGiven = app.count("--capture-columns") > 0;
  if ((formatGiven || columnsGiven) && options.capturePath.empty())
    return fail(std::string(formatGiven ? "--capture-format" : "--capture-columns") +
                " shapes the --capture file: give --capture PATH.csv too");
  if (columnsGiven && options.captureFormat == CaptureFormat::mangohud)
    return fail("--capture-columns names PresentMon's columns: it does not apply to --capture-format mangohud");
  // MangoHud's summary goes beside the log: refused now, like the log and
  // its JSON summary (--capture's own check), not when the capture opens.
  if (options.captureFormat == CaptureFormat::mangohud && !options.capturePath.empty())
    if (Result<> writable = checkWritable(mangoHudSummaryPathFor(options.capturePath)); !writable)
      return fail("--capture: " + writable.error().message);
  return {};
}

// The run's options that `bench` replaces with its matrix: given before
// `bench`, they parse (they belong to the main command) and would be
// silently overridden. Each with what sets it in the bench.
constexpr std::pair<const char*, const char*> kReplacedByBench[] = {
    {"--frames", "bench --frames"},       {"--grid", "bench --grids"},   {"--sync", "bench --sync"},
    {"--transfer", "bench --transfer"},   {"--wait-strategy", "bench --wait-strategy"},
    {"--lod", "bench --lod"},             {"--warmup", "bench --warmup"},
    {"--switch-sync-every", "nothing: the bench never switches"},
    {"--vsync", "nothing: the bench presents nothing"}};

// Options that cannot take effect in the run asked for are refused, as
// --capture-format without --capture is, rather than accepted and ignored.
// The level of detail can be turned on during a run (key L, or an input
// script's `key L`), so --lod-pixels with --lod off is refused only where
// nothing can: a headless run without a script, or a bench without --lod on.
Result<> checkOptionsTakeEffect(const CLI::App& app, const CLI::App& benchCommand, const Options& options) {
  if (options.bench) {
    for (const auto& [option, instead] : kReplacedByBench)
      if (app.count(option))
        return fail(std::string("bench runs its own matrix: ") + option + " does not apply (set by " + instead + ")");
    const auto& b = *options.bench;
    if (app.count("--lod-pixels") && std::find(b.levelsOfDetail.begin(), b.levelsOfDetail.end(), true) ==
                                         b.levelsOfDetail.end())
      return fail("--lod-pixels sizes the level of detail's cells: bench --lod off draws every triangle");
    if (benchCommand.count("--wait-strategy") &&
        std::find(b.transfers.begin(), b.transfers.end(), TransferMode::zeroCopy) == b.transfers.end())
      return fail("bench --wait-strategy chooses the zero-copy rows' waits: bench --transfer copy has none");
    return {};
  }
  if (app.count("--lod-pixels") && !options.levelOfDetail && options.headless && options.inputScriptPath.empty())
    return fail("--lod-pixels sizes the level of detail's cells: with --lod off, a --headless run without "
                "--input-script draws every triangle to the end");
  if (app.count("--warmup") && options.capturePath.empty())
    return fail("--warmup leaves frames out of the --capture's statistics: give --capture PATH.csv too");
  if (app.count("--vsync") && options.headless)
    return fail("--vsync paces a window's presentation: a --headless run presents nothing");
  if (app.count("--wait-strategy") && options.transfer == TransferMode::copy)
    return fail("--wait-strategy chooses how the zero-copy path waits: --transfer copy has no semaphore wait");
  return {};
}

// Test facilities, and --memory-owner between them.
void addFacilityOptions(CLI::App& app, Options& options, std::vector<std::string>& faults) {
  app.add_option("--inject-fault", faults,
                 "Make a failure happen on purpose, a test facility (docs/testing.md): NAME[@FRAME], NAME one of " +
                     faultNames() + "; repeatable")
      ->check(CLI::Validator(
          [](std::string& value) {
            const FaultParseResult parsed = parseFault(value);
            return parsed.ok ? std::string() : parsed.error;
          },
          "NAME[@FRAME]"));
  app.add_option("--memory-owner", options.memoryOwner,
                 "Who allocates the shared vertex memory: vulkan (exported to CUDA) or cuda (cuMemCreate, "
                 "exported to Vulkan); cuda needs the CUDA backend and the zero-copy transfer")
      ->transform(oneOf(kMemoryOwnerChoices));
  app.add_flag("--frame-tags", options.frameTags,
               "Test facility: the CPU simulation steps on a worker thread and tags each state; each render "
               "records the tag it read into the trace (headless, --backend cpu; docs/value-schedule.md)");
}

// One line whatever the user typed: a value echoed back may hold control
// characters (a '\r' in an argument), shown as \xNN.
tl::unexpected<Error> usageError(const std::string& message) {
  return fail("vkcuda-sim: " + printableText(message) + "\n", kExitUsage);
}

// Not a usage error: the request is well formed, but the backend cannot do
// it (exit 3, as for a missing device), whatever the machine has.
tl::unexpected<Error> unavailable(const std::string& message) {
  return fail("vkcuda-sim: " + printableText(message) + "\n", kExitEnvironment);
}

Result<> applyBenchCommand(const CLI::App& app, const CLI::App& benchCommand, const BenchOptions& bench,
                           Options& options) {
  options.bench = bench;
  options.headless = true;  // the benchmark measures the schedule, not a display
  // --texture and --overlay given before `bench` (the form scripts and older
  // docs use) choose the bench's single value; given on both sides, refused.
  for (const auto& [option, values, before] :
       {std::tuple{"--texture", &options.bench->textures, options.texture},
        std::tuple{"--overlay", &options.bench->overlays, options.overlay}}) {
    if (!app.count(option)) continue;
    if (benchCommand.count(option))
      return usageError(std::string(option) + " given before and after `bench`: give it once, after `bench`");
    *values = {before};
  }
  // The run's output options, given before `bench`, parse (they belong to
  // the main command) but bench writes none of them: refused rather than
  // accepted and quietly left unwritten.
  for (const char* output :
       {"--screenshot", "--dump-vertices", "--capture", "--capture-format", "--capture-columns", "--trace", "--input-script"})
    if (app.count(output))
      return usageError(std::string("bench writes its table and --json only: ") + output + " does not apply");
  return {};
}

// What OpenCL cannot run is refused; what it can is narrowed to binary sync
// and the zero-copy transfer.
Result<> restrictToOpenCl(const CLI::App& app, const CLI::App& benchCommand, const BenchOptions& bench,
                          Options& options) {
  const bool timelineAsked = options.bench ? benchCommand.count("--sync") && std::find(bench.syncModes.begin(),
                                                 bench.syncModes.end(), SyncMode::timeline) != bench.syncModes.end()
                                           : app.count("--sync") && options.sync == SyncMode::timeline;
  if (timelineAsked)
    return unavailable("--sync timeline: the OpenCL backend runs binary semaphores only (cl_khr_semaphore "
                       "defines no timeline semaphore)");
  if (options.switchSyncEvery > 0)
    return unavailable("--switch-sync-every: the OpenCL backend runs binary semaphores only (cl_khr_semaphore "
                       "defines no timeline semaphore to switch to)");
  const bool copyAsked = options.bench ? benchCommand.count("--transfer") &&
                                             std::find(bench.transfers.begin(), bench.transfers.end(),
                                                       TransferMode::copy) != bench.transfers.end()
                                       : options.transfer == TransferMode::copy;
  if (copyAsked) return unavailable("--transfer copy: the OpenCL backend runs the zero-copy transfer only");
  // The stall gate this backend had (a user event in front of the step's
  // acquire) left the run hanging past 60 s on the one OpenCL platform with
  // the interop extensions it was tried on (NVIDIA 580 on the H200),
  // and OpenCL specifies no other gate that the host may open while the
  // queue runs; so the fault is not offered here rather than left to hang.
  for (const Fault& fault : options.faults.faults)
    if (fault.kind == FaultKind::simStalls)
      return unavailable("--inject-fault sim-stalls: not offered with the OpenCL backend (its user-event gate "
                         "hung on NVIDIA's OpenCL; docs/interop-walkthrough.md, section 13)");
  options.sync = SyncMode::binary;
  if (options.bench) {
    options.bench->syncModes = {SyncMode::binary};
    options.bench->transfers = {TransferMode::zeroCopy};
  }
  return {};
}

// --memory-owner cuda asks for the CUDA backend's own allocation: with the
// CPU backend, or on the copy path (which shares no memory), the options
// contradict each other, which is a usage error (exit 2), not an
// environment that lacks something.
Result<> checkCudaMemoryOwner(const Options& options) {
  if (options.backend != BackendChoice::cuda && options.backend != BackendChoice::automatic)
    return usageError(std::string("--memory-owner cuda needs the CUDA backend (--backend cuda or auto), not --backend ") +
                      toString(options.backend));
  const bool copyAsked = options.bench ? std::find(options.bench->transfers.begin(), options.bench->transfers.end(),
                                                   TransferMode::copy) != options.bench->transfers.end()
                                       : options.transfer == TransferMode::copy;
  if (copyAsked)
    return usageError(
        "--memory-owner cuda shares memory, which the copy path does not: use --transfer zero-copy");
  return {};
}

// The bench's copy rows do not exist for a simulation in the render's
// queue (its vertices never leave the VkDevice): they are left out, and a
// matrix of copy rows alone is refused.
Result<> dropBenchCopyRowsForRenderQueue(Options& options) {
  std::erase(options.bench->transfers, TransferMode::copy);
  if (options.bench->transfers.empty())
    return usageError(std::string("bench --backend ") + toString(options.backend) +
                      ": --transfer copy does not apply (the vertices never leave the Vulkan device)");
  return {};
}

// The scene's parameters, overridden by --sim, --grid and --seed given as well.
Result<> applyScene(const CLI::App& app, const std::string& scene, Options& options) {
  // The loader's message is one line naming the file and the field.
  const Result<Scene> loaded = loadScene(scene);
  if (!loaded) return usageError("--scene: " + loaded.error().message);
  ModelParams params = loaded->params;
  if (app.count("--sim")) params.model = options.model.model;
  if (app.count("--grid")) params.grid = options.model.grid;
  if (app.count("--seed")) params.seed = options.model.seed;
  options.model = params;
  options.camera = loaded->camera;
  options.sceneName = loaded->name;
  return {};
}

Result<> loadInputScriptOption(Options& options) {
  Result<InputScript> loaded = loadInputScript(options.inputScriptPath);
  if (!loaded) return usageError("--input-script: " + loaded.error().message);
  // Screenshots are written during the run; refuse an unwritable path
  // before the first frame, as --screenshot does.
  for (const ScriptCommand& command : loaded->commands)
    if (command.action == ScriptAction::screenshot)
      if (const Result<> checked = checkOutputPath(command.text, ".png"); !checked)
        return usageError("--input-script: " + options.inputScriptPath + ":" +
                          std::to_string(command.line) + ": screenshot " + command.text + ": " +
                          checked.error().message);
  options.inputScript = std::move(*loaded);
  return {};
}

// Everything parseCommandLine checks and derives after CLI11 has parsed, in
// order; the first refusal ends it.
Result<> finishOptions(const CLI::App& app, const CLI::App& benchCommand, const BenchOptions& bench,
                       const CommandLineText& text, Options& options) {
  for (const std::string& fault : text.faults) options.faults.faults.push_back(parseFault(fault).fault);
  if (const char* timeout = std::getenv(kWaitTimeoutVariable)) {
    if (const Result<uint64_t> parsed = parseWaitTimeoutMs(timeout); !parsed)
      return usageError(std::string(kWaitTimeoutVariable) + ": " + parsed.error().message);
  }
  if (!text.size.empty()) std::sscanf(text.size.c_str(), "%u%*c%u", &options.width, &options.height);
  if (benchCommand.parsed())
    if (Result<> applied = applyBenchCommand(app, benchCommand, bench, options); !applied) return applied;
  if (options.backend == BackendChoice::opencl)
    if (Result<> restricted = restrictToOpenCl(app, benchCommand, bench, options); !restricted) return restricted;
  if (options.frameTags && (!options.headless || options.backend != BackendChoice::cpu ||
                            options.transfer != TransferMode::zeroCopy))
    return usageError("--frame-tags needs --headless, --backend cpu and the zero-copy transfer");
  if (options.memoryOwner == MemoryOwner::cuda)
    if (Result<> checked = checkCudaMemoryOwner(options); !checked) return checked;
  if (options.bench && traitsOf(options.backend).inRenderQueue)
    if (Result<> dropped = dropBenchCopyRowsForRenderQueue(options); !dropped) return dropped;
  if (const std::string refused = refuseForRenderQueue(options); !refused.empty()) return usageError(refused);
  if (!text.scene.empty())
    if (Result<> applied = applyScene(app, text.scene, options); !applied) return applied;
  if (!options.inputScriptPath.empty())
    if (Result<> loaded = loadInputScriptOption(options); !loaded) return loaded;
  if (const std::string refused = refuseSharedNames(options, text.scene); !refused.empty())
    return usageError(refused);
  if (Result<> checked = checkCaptureLayout(app, options); !checked) return usageError(checked.error().message);
  if (Result<> checked = checkOptionsTakeEffect(app, benchCommand, options); !checked)
    return usageError(checked.error().message);
  return {};
}

}  // namespace

std::string refuseForRenderQueue(const Options& options) {
  if (!traitsOf(options.backend).inRenderQueue) return "";
  const std::string backend = std::string("--backend ") + toString(options.backend);
  // Its vertices never leave the VkDevice: there is nothing to copy through
  // the host, to export or to import.
  if (options.transfer == TransferMode::copy)
    return backend + " writes the vertex buffer in the render's queue: --transfer copy does not apply";
  for (const Fault& fault : options.faults.faults) {
    if (fault.kind == FaultKind::importFails || fault.kind == FaultKind::exportFails)
      return "--inject-fault " + std::string(toString(fault.kind)) + " does not apply to " + backend +
             ": nothing is exported or imported";
    if (fault.kind == FaultKind::simStalls)
      return "--inject-fault sim-stalls does not apply to " + backend +
             ": its step runs inside the render's submission, which nothing on the host can hold back";
  }
  return "";
}

Result<Options> parseCommandLine(int argc, const char* const* argv) {
  Options options;
  CLI::App app{"vkcuda-sim: Vulkan and CUDA sharing one vertex buffer with zero copies", "vkcuda-sim"};
  app.set_version_flag("--version", std::string("vkcuda-sim ") + VKSIM_VERSION);

  CommandLineText text;
  addRunOptions(app, options, text.size);
  addOutputOptions(app, options);
  addDeviceOptions(app, options);
  addScheduleAndDisplayOptions(app, options, text.scene);
  addInteropOptions(app, options);
  addCaptureOptions(app, options);
  addFacilityOptions(app, options, text.faults);
  BenchOptions bench;
  CLI::App* benchCommand = addBenchCommand(app, options, bench, text.size);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    return fail(app.help(), kExitSuccess);
  } catch (const CLI::CallForVersion&) {
    return fail(std::string("vkcuda-sim ") + VKSIM_VERSION + "\n", kExitSuccess);
  } catch (const CLI::ParseError& error) {
    return usageError(std::string(error.what()) + " (see --help)");
  }
  if (Result<> finished = finishOptions(app, *benchCommand, bench, text, options); !finished)
    return tl::unexpected<Error>(finished.error());
  return options;
}

InteropConfig interopConfig(const Options& options) {
  InteropConfig config;
  config.backend = options.backend;
  config.device = options.device;
  config.transfer = options.transfer;
  config.waitStrategy = options.waitStrategy;
  config.memoryOwner = options.memoryOwner;
  config.texture = options.texture;
  config.frameTags = options.frameTags;
  config.faults = options.faults;
  return config;
}

int64_t framesToRun(const Options& options, bool headless) {
  if (options.frames >= 0) return options.frames;
  return headless ? kDefaultHeadlessFrames : 0;
}

}  // namespace vksim
