#include "app/ui/overlay_panels.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <ctime>
#include <iterator>
#include <string>

#include "app/capture/capture_session.h"
#include "app/frame_loop.h"
#include "app/interop/value_schedule.h"
#include "app/scene.h"
#include "app/ui/controls.h"
#include "app/ui/overlay.h"
#include "base/host_clock.h"

namespace vksim {
namespace {

constexpr float kWindowWidth = 420.0f;
constexpr float kWindowMargin = 8.0f;
constexpr double kGraphSeconds = 5.0;      // the frame-time graph's window
constexpr size_t kMaxGraphSamples = 2000;  // at most this many frames of it (a fast run on a fast GPU)
constexpr uint32_t kGridChoices[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
const ImVec4 kHighlight(1.0f, 0.8f, 0.3f, 1.0f);

unsigned long long u64(uint64_t value) {
  return static_cast<unsigned long long>(value);
}

// Where the semaphores and the vertex buffer go, in the overlay's words:
// the other API for the interop backends, the render's own queue for the
// render-queue backends, the host for the CPU backend.
struct SharingText {
  const char* semaphores;
  const char* buffer;
};
SharingText sharingText(const App& app) {
  return {app.path.descriptor->semaphoreSharing, app.path.descriptor->bufferSharing};
}

// Parameters that need no new resources change the running simulation at
// once (from its next step); while a rebuild is pending they change the
// parameters that the rebuild will use instead.
void changeParams(App& app, const ModelParams& params) {
  if (std::optional<ModelParams>& pending = app.input.requests.rebuild) {
    ModelParams merged = params;  // keep the model and grid that the rebuild asks for
    merged.model = pending->model;
    merged.grid = pending->grid;
    pending = merged;
  } else if (simulationOf(app.grid))
    simulationOf(app.grid)->setParams(params);
}

// The schedule of the frame that draws this ImGui frame. Built at the frame
// boundary, that is app.schedule. Built ahead (during frame k, after render
// k's submission, before sim k's turn): app.schedule as frame k+1 finds it
// when sim k's wait and signal are handed over as planned, so that the table
// names the frame it is drawn in.
ScheduleState scheduleOfDrawnFrame(const App& app, bool ahead) {
  ScheduleState schedule = app.schedule;
  if (!ahead) return schedule;
  StepResult planned;
  planned.waitEnqueued = planned.signalEnqueued = true;
  noteSimulationTurn(schedule, simSyncForFrame(schedule.scheduleFrame, schedule.mode), planned);
  advanceFrame(schedule);
  return schedule;
}

void drawSyncSection(App& app, const ScheduleState& schedule) {
  if (!ImGui::CollapsingHeader("Sync mode and value schedule", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const SyncMode shown = schedule.pendingMode.value_or(schedule.mode);
  if (ImGui::RadioButton("binary (B)", shown == SyncMode::binary)) requestSyncMode(app, SyncMode::binary);
  ImGui::SameLine();
  const bool timelineAvailable = app.path.descriptor->timeline;
  if (!timelineAvailable) ImGui::BeginDisabled();
  if (ImGui::RadioButton("timeline (T)", shown == SyncMode::timeline))
    requestSyncMode(app, SyncMode::timeline);
  if (!timelineAvailable) {
    ImGui::EndDisabled();
    ImGui::TextDisabled("timeline: unavailable with OpenCL (cl_khr_semaphore has binary semaphores only)");
  }
  if (schedule.pendingMode && *schedule.pendingMode != schedule.mode)
    ImGui::TextColored(kHighlight, "switching to %s at the next frame boundary",
                       toString(*schedule.pendingMode));

  const uint64_t k = schedule.scheduleFrame;
  const uint64_t counter =
      app.grid.semaphores.timeline ? readTimelineCounter(app.device, app.grid.semaphores) : 0;
  ImGui::Text("frame k = %llu of this timeline (%llu in all), %llu switches", u64(k),
              u64(schedule.totalFrames), u64(schedule.switches));
  ImGui::Text("timeline counter now: %llu", u64(counter));

  // What this frame's two submissions wait for and signal: the same pure
  // functions the path frames ask (app/paths/), so the table is the schedule,
  // not a copy of it.
  const RenderSync render = nextRenderSync(schedule);
  const StepSync sim = simSyncForFrame(k, schedule.mode);
  std::string renderWait = "nothing (no signal outstanding)";
  if (render.wait == RenderSync::Wait::timeline)
    renderWait = fmt::format("timeline >= {}", render.waitValue);
  else if (render.wait == RenderSync::Wait::simDone)
    renderWait = "simDone (binary)";
  const std::string renderSignal = render.signal == RenderSync::Signal::timeline
                                       ? fmt::format("timeline = {}", render.signalValue)
                                       : "renderDone (binary)";
  const bool simTimeline = sim.mode == SyncMode::timeline;
  const std::string simWait =
      simTimeline ? fmt::format("timeline >= {}", sim.waitValue) : "renderDone (binary)";
  const std::string simSignal =
      simTimeline ? fmt::format("timeline = {}", sim.signalValue) : "simDone (binary)";
  if (ImGui::BeginTable("schedule", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("this frame");
    ImGui::TableSetupColumn("waits for");
    ImGui::TableSetupColumn("signals");
    ImGui::TableHeadersRow();
    const char* rows[2][3] = {{"render k", renderWait.c_str(), renderSignal.c_str()},
                              {"sim k", simWait.c_str(), simSignal.c_str()}};
    for (const auto& row : rows) {
      ImGui::TableNextRow();
      for (int column = 0; column < 3; ++column) {
        ImGui::TableSetColumnIndex(column);
        ImGui::TextUnformatted(row[column]);
      }
    }
    ImGui::EndTable();
  }
  const bool timelineUsed = render.wait == RenderSync::Wait::timeline ||
                            render.signal == RenderSync::Signal::timeline || sim.mode == SyncMode::timeline;
  const bool binaryUsed = render.wait == RenderSync::Wait::simDone ||
                          render.signal == RenderSync::Signal::renderDone || sim.mode == SyncMode::binary;
  // The copy path's submissions carry no semaphore of the schedule.
  if (app.path.descriptor->hostOrdered)
    ImGui::Text("semaphores in use: none");
  else
    ImGui::Text("semaphores in use: %s%s", timelineUsed ? "timeline " : "", binaryUsed ? "renderDone simDone" : "");
  if (!app.headless) ImGui::Text("swapchain: imageAvailable, renderFinished[image]");
  ImGui::TextDisabled("%s", sharingText(app).semaphores);
}

void drawSimulationSection(App& app) {
  // Starts closed (all but its sliders have keys, listed in Help): the
  // overlay's GPU draw grows with the panel's pixels, and a smaller panel at
  // start costs every frame less (docs/interactive.md, "What the overlay
  // costs a frame", has the runs).
  if (!ImGui::CollapsingHeader("Simulation")) return;
  ModelParams params = currentModelParams(app);
  if (ImGui::RadioButton("ripple", params.model == ModelKind::ripple)) requestModel(app, ModelKind::ripple);
  ImGui::SameLine();
  if (ImGui::RadioButton("sinewave (M switches)", params.model == ModelKind::sinewave))
    requestModel(app, ModelKind::sinewave);

  const auto gridLabel = [](uint32_t grid) { return fmt::format("{} x {}", grid, grid); };
  ImGui::SetNextItemWidth(120.0f);
  if (ImGui::BeginCombo("grid ([ and ] halve, double)", gridLabel(params.grid).c_str())) {
    for (const uint32_t grid : kGridChoices) {
      if (ImGui::Selectable(gridLabel(grid).c_str(), grid == params.grid)) requestGrid(app, grid);
    }
    ImGui::EndCombo();
  }
  if (app.input.requests.rebuild)
    ImGui::TextColored(kHighlight, "rebuilding the shared buffer at the next frame boundary");
  else
    ImGui::TextDisabled("vertex buffer: %.1f MiB, %s",
                        double(app.grid.vertices.size) / (1024.0 * 1024.0), sharingText(app).buffer);

  ImGui::Checkbox("pause (Space)", &app.paused);
  ImGui::SameLine();
  ImGui::BeginDisabled(!app.paused);
  if (ImGui::Button("step (N)")) requestSingleStep(app);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("reset (Backspace)")) requestRebuild(app, params);
  ImGui::SameLine();
  ImGui::Text("step %llu", u64(simulationOf(app.grid) ? simulationOf(app.grid)->stepCount() : 0));

  float stepMilliseconds = params.timeStep * 1000.0f;
  if (ImGui::SliderFloat("time step (ms)", &stepMilliseconds, 1.0f, 50.0f, "%.2f")) {
    params.timeStep = stepMilliseconds / 1000.0f;
    changeParams(app, params);
  }
  if (params.model == ModelKind::ripple) {
    if (ImGui::SliderFloat("damping (1/s)", &params.damping, 0.0f, 5.0f, "%.2f")) changeParams(app, params);
    int interval = int(params.dropInterval);
    if (ImGui::SliderInt("steps per drop (0: none)", &interval, 0, 600)) {
      params.dropInterval = uint32_t(std::max(interval, 0));
      changeParams(app, params);
    }
    if (params.dropInterval > 0)
      ImGui::TextDisabled("%.2f drops per simulated second",
                          1.0 / (double(params.dropInterval) * params.timeStep));
    ImGui::Checkbox("drop mode (D): left click drops", &app.input.dropMode);
    ImGui::TextDisabled("right click drops a ripple at the cursor");
  } else {
    if (ImGui::SliderFloat("amplitude", &params.amplitude, 0.0f, 0.5f, "%.3f")) changeParams(app, params);
  }
  if (!app.input.lastDrop.empty()) ImGui::TextUnformatted(app.input.lastDrop.c_str());
}

// The mesh's level of detail (renderer/tile_lod.h) in a few words: what the
// last frame drew. Level l draws every 2^l-th vertex.
std::string levelOfDetailStatus(const App& app) {
  const MeshDrawReport& drawn = app.meshDraw;
  if (drawn.tiled) return fmt::format("LOD levels {}-{}", drawn.minLevel, drawn.maxLevel);
  return app.options.levelOfDetail ? "LOD level 0" : "LOD off";
}

// The switch, and the triangles the last frame drew with it.
void drawLevelOfDetail(App& app) {
  ImGui::Checkbox("level of detail", &app.options.levelOfDetail);
  const MeshDrawReport& drawn = app.meshDraw;
  if (drawn.tiled)
    ImGui::Text("  %.2f M of %.2f M triangles, %u/%u tiles", double(drawn.triangles) * 1e-6,
                double(drawn.gridTriangles) * 1e-6, drawn.tilesDrawn, drawn.tiles);
  else
    ImGui::Text("  every triangle, %.2f M", double(drawn.gridTriangles) * 1e-6);
}

void drawViewSection(App& app) {
  // The level in use stands in the header, so that it shows while the
  // section is closed (the default); "###" keeps the header's identity.
  const std::string header = "Camera and window, " + levelOfDetailStatus(app) + "###view";
  if (!ImGui::CollapsingHeader(header.c_str())) return;
  drawLevelOfDetail(app);
  const OrbitCamera& camera = app.camera;
  ImGui::Text("yaw %.2f  pitch %.2f  distance %.2f", double(camera.yaw), double(camera.pitch),
              double(camera.distance));
  if (ImGui::Button("reset camera (R)")) app.camera = app.options.camera;
  if (app.headless) {
    ImGui::Text("offscreen %u x %u (headless)", app.offscreen.extent.width, app.offscreen.extent.height);
    return;
  }
  bool vsync = app.options.vsync;
  if (ImGui::Checkbox("vsync (V)", &vsync)) requestVsync(app, vsync);
  ImGui::Text("swapchain %u x %u, %zu images, %s (%s)", app.swapchain.extent.width,
              app.swapchain.extent.height, app.swapchain.images.size(),
              presentModeName(app.swapchain.presentMode).c_str(), app.swapchain.vsync ? "vsync" : "no vsync");
}

void drawStatisticsSection(App& app) {
  if (!ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const std::vector<double>& frames = app.frameMilliseconds;
  // The graph's samples: the newest frames covering kGraphSeconds.
  std::vector<float>& plot = app.overlay.plotMilliseconds;
  plot.clear();
  double covered = 0.0, lastSecond = 0.0;
  size_t lastSecondFrames = 0;
  for (auto it = frames.rbegin();
       it != frames.rend() && covered < kGraphSeconds * 1000.0 && plot.size() < kMaxGraphSamples; ++it) {
    if (covered < 1000.0) {
      lastSecond += *it;
      ++lastSecondFrames;
    }
    covered += *it;
    plot.push_back(float(*it));
  }
  std::reverse(plot.begin(), plot.end());
  const double fps = lastSecond > 0.0 ? 1000.0 * double(lastSecondFrames) / lastSecond : 0.0;
  const double last = frames.empty() ? 0.0 : frames.back();
  ImGui::Text("%.1f FPS   frame %.2f ms last, %.2f ms mean (1 s)", fps, last,
              lastSecondFrames ? lastSecond / double(lastSecondFrames) : 0.0);
  const float peak = plot.empty() ? 1.0f : *std::max_element(plot.begin(), plot.end());
  const std::string caption = fmt::format("last {:.1f} s, peak {:.1f} ms", covered / 1000.0, double(peak));
  ImGui::PlotLines("##frametimes", plot.data(), int(plot.size()), 0, caption.c_str(), 0.0f,
                   std::max(peak * 1.2f, 1.0f), ImVec2(ImGui::GetContentRegionAvail().x, 60.0f));

  // GPU times arrive a frame or more late (timestamps and CUDA events are read
  // without waiting): the newest frame whose results are in.
  const std::optional<FrameTiming>& timing = app.capture.latest;
  const auto ms = [](const std::optional<TimeSpan>& span) { return span ? span->milliseconds() : -1.0; };
  if (timing) {
    ImGui::Text("GPU time (frame %llu): render %.3f ms", static_cast<unsigned long long>(timing->frame),
                ms(timing->renderGpu));
    ImGui::Text("  sim %.3f ms, sim's wait %.3f ms", ms(timing->simWork), ms(timing->simWait));
    if (!timing->simWork) ImGui::TextDisabled("(no sim GPU time on this path)");
  } else {
    ImGui::TextDisabled("GPU time: waiting for the first results");
  }
}

// The file layouts the Record section offers, as --capture-format and
// --capture-columns name them (docs/captures.md), in the combo's order.
struct RecordLayout {
  const char* label;
  CaptureFormat format;
  CaptureColumns columns;
};
constexpr RecordLayout kRecordLayouts[] = {
    {"PresentMon 1.x columns", CaptureFormat::presentmon, CaptureColumns::v1},
    {"PresentMon 2.x columns", CaptureFormat::presentmon, CaptureColumns::v2},
    {"MangoHud log", CaptureFormat::mangohud, CaptureColumns::v1},
};

// A capture from the overlay: the same calls as --capture (app/capture/capture_session.h),
// made here at the frame boundary.
void drawRecordSection(App& app) {
  if (!ImGui::CollapsingHeader("Record")) return;
  const CaptureProgress progress = captureProgress(app.capture);
  if (progress.recording) {
    const float done =
        progress.framesWanted ? float(progress.framesRecorded) / float(progress.framesWanted) : 0.0f;
    const std::string label = fmt::format("{} / {} frames", progress.framesRecorded, progress.framesWanted);
    ImGui::ProgressBar(done, ImVec2(-1.0f, 0.0f), label.c_str());
    ImGui::Text("recording to %s", recordedFile(progress.csvPath, progress.tracePath).c_str());
    if (!progress.stopping && ImGui::Button("Stop")) stopCapture(app.capture, app.schedule.totalFrames);
    return;
  }
  ImGui::InputInt("frames", &app.overlay.recordFrames);
  app.overlay.recordFrames = std::clamp(app.overlay.recordFrames, 1, 1'000'000);
  ImGui::InputText("file (.csv)", app.overlay.recordPath, sizeof app.overlay.recordPath);
  int& layout = app.overlay.recordLayout;
  layout = std::clamp(layout, 0, int(std::size(kRecordLayouts)) - 1);
  if (ImGui::BeginCombo("format", kRecordLayouts[layout].label)) {
    for (int k = 0; k < int(std::size(kRecordLayouts)); ++k)
      if (ImGui::Selectable(kRecordLayouts[k].label, k == layout)) layout = k;
    ImGui::EndCombo();
  }
  if (ImGui::Button("Start recording")) {  // not "Record": the header has that ID
    CaptureRequest request;
    request.format = kRecordLayouts[layout].format;
    request.columns = kRecordLayouts[layout].columns;
    request.csvPath = app.overlay.recordPath;
    if (request.csvPath.empty())
      request.csvPath = fmt::format("capture-{:%Y%m%d-%H%M%S}.csv", fmt::localtime(std::time(nullptr)));
    request.frames = uint64_t(app.overlay.recordFrames);
    if (const Result<> started = startCapture(app.capture, request, app.schedule.totalFrames,
                                              backendName(app.devices));
        !started)
      app.capture.lastResult = started.error().message;
  }
  if (!progress.lastResult.empty()) ImGui::TextWrapped("%s", progress.lastResult.c_str());
}

void drawDevicesSection(App& app) {
  if (!ImGui::CollapsingHeader("Devices")) return;
  const DeviceChoice& devices = app.devices;
  const PhysicalDeviceInfo& vulkan = devices.vulkan;
  ImGui::Text("Vulkan: %s (%s)", vulkan.name.c_str(), deviceTypeName(vulkan.type));
  ImGui::Text("  API %s, driver %s %s", formatVersion(vulkan.apiVersion).c_str(), vulkan.driverName.c_str(),
              formatDriverVersion(vulkan).c_str());
  if (!vulkan.driverInfo.empty()) ImGui::Text("  %s", vulkan.driverInfo.c_str());
  ImGui::Text("  UUID %s", formatUuid(vulkan.deviceUuid).c_str());
  if (devices.cuda) {
    const CudaDeviceInfo& cuda = *devices.cuda;
    ImGui::Text("CUDA: %s (compute %d.%d), ordinal %d", cuda.name.c_str(), cuda.computeMajor,
                cuda.computeMinor, cuda.ordinal);
    ImGui::Text("  UUID %s", formatUuid(cuda.uuid).c_str());
    const bool matched = cuda.uuid == vulkan.deviceUuid;  // the pairing's test (rule D1)
    ImGui::TextColored(matched ? ImVec4(0.5f, 1.0f, 0.5f, 1.0f) : ImVec4(1.0f, 0.4f, 0.4f, 1.0f),
                       "  UUIDs %s", matched ? "match: the same GPU" : "DIFFER");
  } else {
    ImGui::Text("CUDA: not in use");
  }
  const std::string driverVersion = formatCudaVersion(app.overlay.cudaDriverVersion);
  const std::string runtimeVersion = formatCudaVersion(app.overlay.cudaRuntimeVersion);
  ImGui::Text("  CUDA driver %s, runtime %s", driverVersion.empty() ? "unknown" : driverVersion.c_str(),
              runtimeVersion.empty() ? "unknown" : runtimeVersion.c_str());
  if (!app.overlay.cudaUnavailableReason.empty())
    ImGui::TextWrapped("%s", app.overlay.cudaUnavailableReason.c_str());
  if (simulationOf(app.grid))
    ImGui::Text("Backend: %s on %s", simulationOf(app.grid)->backendName().c_str(),
                simulationOf(app.grid)->deviceName().c_str());
  ImGui::TextWrapped("%s", devices.reason.c_str());
}

void saveCurrentScene(App& app) {
  Overlay& overlay = app.overlay;
  const std::vector<std::filesystem::path> directories = sceneDirectories();
  if (directories.empty()) {
    overlay.sceneStatus = "no scene directory: set VKSIM_SCENE_DIR";
    return;
  }
  Scene scene;
  scene.name = overlay.sceneName;
  scene.description = overlay.sceneDescription;
  scene.params = currentModelParams(app);
  scene.camera = app.camera;
  const Result<std::filesystem::path> saved = saveScene(scene, directories.front(), overlay.sceneOverwrite);
  overlay.sceneStatus = saved ? "saved " + saved->string() : saved.error().message;
  overlay.sceneNames = listScenes();
}

void loadNamedScene(App& app, const std::string& name) {
  const Result<Scene> loaded = loadScene(name);
  if (!loaded) {
    app.overlay.sceneStatus = loaded.error().message;
    return;
  }
  requestRebuild(app, loaded->params);
  app.camera = loaded->camera;
  app.options.camera = loaded->camera;  // R returns to the scene's view
  app.overlay.sceneStatus = "loaded " + loaded->name + ": " + loaded->description;
}

void drawScenesSection(App& app) {
  Overlay& overlay = app.overlay;
  if (!ImGui::CollapsingHeader("Scenes")) {
    overlay.sceneNames.clear();  // listed afresh when the section opens
    return;
  }
  if (overlay.sceneNames.empty()) overlay.sceneNames = listScenes();
  ImGui::InputText("name", overlay.sceneName, sizeof overlay.sceneName);
  ImGui::InputText("description", overlay.sceneDescription, sizeof overlay.sceneDescription);
  ImGui::Checkbox("overwrite", &overlay.sceneOverwrite);
  ImGui::SameLine();
  if (ImGui::Button("Save current parameters and camera")) saveCurrentScene(app);
  if (!overlay.sceneNames.empty()) {
    overlay.selectedScene = std::clamp(overlay.selectedScene, 0, int(overlay.sceneNames.size()) - 1);
    ImGui::SetNextItemWidth(200.0f);
    if (ImGui::BeginCombo("##scenes", overlay.sceneNames[size_t(overlay.selectedScene)].c_str())) {
      for (size_t i = 0; i < overlay.sceneNames.size(); ++i)
        if (ImGui::Selectable(overlay.sceneNames[i].c_str(), int(i) == overlay.selectedScene))
          overlay.selectedScene = int(i);
      ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::Button("Load")) loadNamedScene(app, overlay.sceneNames[size_t(overlay.selectedScene)]);
  }
  if (!overlay.sceneStatus.empty()) ImGui::TextWrapped("%s", overlay.sceneStatus.c_str());
}

void drawHelpSection() {
  if (!ImGui::CollapsingHeader("Help: keys and mouse")) return;
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_SizingFixedFit)) {
    for (const KeyBinding& binding : keyBindings()) {
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextColored(kHighlight, "%s", binding.input);
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(binding.action);
    }
    ImGui::EndTable();
  }
  ImGui::TextDisabled("docs/interactive.md has the details and the --input-script format");
}

void drawOverlayWindow(App& app, bool ahead) {
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowPos(ImVec2(kWindowMargin, kWindowMargin), ImGuiCond_FirstUseEver);
  // Fixed width, height fitted to the open sections but never past the
  // bottom of the display (then it scrolls).
  const float maxHeight = std::max(display.y - 2.0f * kWindowMargin, 50.0f);
  ImGui::SetNextWindowSizeConstraints(ImVec2(kWindowWidth, 0.0f), ImVec2(kWindowWidth, maxHeight));
  if (ImGui::Begin("vkcuda-sim (F1 hides)", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    drawSyncSection(app, scheduleOfDrawnFrame(app, ahead));
    drawSimulationSection(app);
    drawViewSection(app);
    drawStatisticsSection(app);
    drawRecordSection(app);
    drawDevicesSection(app);
    drawScenesSection(app);
    drawHelpSection();
  }
  ImGui::End();
}

}  // namespace

namespace {

void buildOverlayFrame(App& app, bool ahead) {
  app.overlay.lastBuildBeginNs = hostNowNs();
  const double lastFrame = app.frameMilliseconds.empty() ? -1.0 : app.frameMilliseconds.back();
  const uint32_t swapchainMinImages = app.headless ? 0 : app.swapchain.minImageCount;
  if (beginOverlayFrame(app.overlay, app.device, app.input, app.offscreen.extent, lastFrame,
                        swapchainMinImages))
    drawOverlayWindow(app, ahead);
  endOverlayFrame(app.overlay);
  app.overlay.lastBuildEndNs = hostNowNs();
}

}  // namespace

void buildOverlay(App& app) {
  app.whileRenderRuns = buildOverlayAhead;  // runFrame builds the next frame's during this one's render
  app.overlay.askedThisFrame = true;
  if (app.overlay.builtAhead) {
    app.overlay.builtAhead = false;  // this frame's was built while the last one rendered
    return;
  }
  buildOverlayFrame(app, /*ahead=*/false);
}

void buildOverlayAhead(App& app) {
  if (!app.overlay.vulkanBackend || !app.overlay.askedThisFrame) return;
  app.overlay.askedThisFrame = false;
  buildOverlayFrame(app, /*ahead=*/true);
  app.overlay.builtAhead = true;
}

}  // namespace vksim
