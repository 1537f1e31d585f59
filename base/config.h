// The program's tunables, each with the reason for its value, in one place.
// A value that the user may change says how (an option or an environment
// variable); the rest are fixed by the design. Header-only, plain C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace vksim {

// --- Waits -----------------------------------------------------------------

// Every wait in a run is bounded (docs/testing.md): a frame takes
// milliseconds, so five seconds without progress means a stall (exit 4), not
// a slow frame. Uploads and read-backs (renderer/frame_sync.cpp) use the same
// bound.
inline constexpr uint64_t kDefaultWaitTimeoutNs = 5'000'000'000ull;
// Test facility: the environment variable that replaces that bound, in whole
// milliseconds from 1 to kMaxWaitTimeoutMs, so that fault tests end quickly.
// Read once per process (app/interop/value_schedule.h, kWaitTimeoutNs); the command line refuses
// a bad value with exit 2 before anything runs.
inline constexpr const char* kWaitTimeoutVariable = "VKSIM_WAIT_TIMEOUT_MS";
// An hour: longer is no bound at all, and seven digits cannot overflow.
inline constexpr uint64_t kMaxWaitTimeoutMs = 3'600'000;

// --- Frames ----------------------------------------------------------------

// One frame in flight when the simulation runs in another API (CUDA, the CPU,
// OpenCL) or the copy path moves the vertices through the host: the single
// vertex buffer makes the two sides take turns, and the host takes part in
// every handover, so a second frame's command buffer would only wait.
inline constexpr uint32_t kFramesInFlight = 1;
// Two when the simulation rides in the render's own submission (--backend
// vulkan, cuda-nvx): the queue orders render k, sim k, render k+1 by itself,
// and with one frame in flight the GPU idled while the host woke from the
// fence, recorded and submitted the next frame (0.18 ms a frame at 512² on
// the H200, docs/queue-backends.md). The resources each frame records into
// (command buffers, fences, timestamp slots, the step's command buffer) exist
// this many times; everything else is shared and ordered by the queue.
inline constexpr uint32_t kMaxFramesInFlight = 2;

// Frames run without --frames in a headless run (a window runs until it is
// closed): ten seconds' worth at 60 Hz, and a run short enough for CI.
inline constexpr int64_t kDefaultHeadlessFrames = 600;

// The largest --frames, --switch-sync-every and --warmup: about 190 days at
// 60 frames per second, and far inside every counter's range (the timeline
// value reaches 2 * frames).
inline constexpr uint64_t kMaxFrames = 1'000'000'000;
// The largest `bench --frames` and `bench --warmup`, per configuration.
inline constexpr uint64_t kMaxBenchFrames = 1'000'000;

// Frames left out of a capture's or a benchmark's statistics by default
// (--warmup; their rows are still in a capture's CSV): the first frames pay
// for first-use costs (module loading, page faults in fresh buffers, clocks
// ramping up).
inline constexpr uint32_t kDefaultWarmupFrames = 30;

// The least time a benchmark configuration warms up, ms (`bench --warmup-ms`),
// on top of its warm-up frames. After a rebuild the GPU has idled for the
// rebuild's host work and its clocks fall; on the H200 they took 0.19-0.27 s
// to return to 1980 MHz at 8192² (2026-12-03, captures beside nvidia-smi at
// 20 ms), which is 40-64 frames there: 30 frames left the slow ones inside
// the measurement and P99 at 2-2.5 x the mean
// (docs/results/2026-12-03-steady-large-grids.md). Twice the longest ramp
// seen.
inline constexpr uint32_t kDefaultWarmupMs = 500;
inline constexpr uint32_t kMaxWarmupMs = 60'000;

// A frame's timing record waits at most this many frames for its GPU results
// (the render's timestamps, the simulation's step timing) before it leaves the
// queue with them missing (app/capture/frame_timing.h): they normally arrive
// at the start of the next frame, so a record this old will not be completed.
inline constexpr uint64_t kMaxPendingFrames = 4;

// --- Progress on a terminal ----------------------------------------------

// A progress bar (app/capture/progress.h) is redrawn at most this often: ten
// times a second reads as live, and a redraw (a line of text and a flush,
// tens of microseconds) stays too rare to show in a frame-time statistic.
inline constexpr int64_t kProgressRedrawIntervalNs = 100'000'000;

// --- Environment switches ----------------------------------------------------

// "1" turns the Vulkan validation layer on (synchronization validation
// included); unset, empty or "0" leaves it off; anything else is refused
// with exit 2, so a misspelt switch cannot quietly run without the layer.
inline constexpr const char* kValidationVariable = "VKSIM_VALIDATION";
// "1" (with validation on) makes two deliberate validation errors at start-up,
// showing that the layer is really listening (docs/testing.md).
inline constexpr const char* kValidationCanaryVariable = "VKSIM_VALIDATION_CANARY";
// "1" leaves VK_KHR_maintenance8 off on a device that offers it, so that the
// ownership transfers to and from EXTERNAL take their all-commands form: the
// A/B of its cost with one binary (docs/results/2026-12-03-maintenance8.md,
// docs/testing.md).
// Unset, empty or "0": on wherever offered; anything else is refused with exit 2.
inline constexpr const char* kDisableMaintenance8Variable = "VKSIM_DISABLE_MAINTENANCE8";
// "1" skips the X server check before a window on NVIDIA's device (app/ui/
// present_check.h): the check refuses an X server that lists neither NV-GLX
// nor XWAYLAND, and a set-up it has not seen (README, "Laptops with two
// GPUs") may still serve NVIDIA's driver. Then the driver itself is asked,
// which on a server it cannot present to ends the process inside the driver.
// Unset, empty or "0": the check runs; anything else is refused with exit 2.
inline constexpr const char* kSkipDisplayCheckVariable = "VKSIM_SKIP_DISPLAY_CHECK";
// "1" runs the Vulkan backend's ripple step as tiles (sim/vulkan/
// ripple_step.comp) on a device where it would run as subgroup rows
// (ripple_step_rows.comp, sim/vulkan/subgroup_rows.h): the A/B of the two
// shapes with one binary, and the tile step's tests on a device that has
// subgroups. Unset, empty or "0": rows wherever the device offers them.
inline constexpr const char* kVulkanTileStepVariable = "VKSIM_VULKAN_TILE_STEP";
// "1" (a test facility): a workgroup of the rows step whose subgroups are not
// whole writes nothing, instead of computing its cells one by one, so that
// vertices identical to the tile step's show that the strips wrote every
// cell (tests/integration/test_vulkan_step_shapes.cpp).
inline constexpr const char* kStrictSubgroupRowsVariable = "VKSIM_STRICT_SUBGROUP_ROWS";
// Whether the on/off switch `name` (those above, and the test facility
// VKSIM_DENY_PRESENT, app/testing/present_denial.h) is on: "1". Unset,
// empty or "0" is off; checkEnvironmentSwitches (app/main.cpp) refused
// anything else before any of them is read.
inline bool environmentSwitch(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::strcmp(value, "1") == 0;
}
// A directory of NAME.json scene files that replaces the search path.
inline constexpr const char* kSceneDirEnvironment = "VKSIM_SCENE_DIR";

// --- Level of detail (renderer/tile_lod.h) ----------------------------------

// At most this many tiles per side: the level is chosen and a draw recorded
// per tile every frame, so the count bounds the host's work and the draws
// (32^2 = 1024 at most, each a few hundred triangles or more).
inline constexpr uint32_t kLodTilesPerSide = 32;
// Tiles are at least this many cells per side (a power of two): smaller
// grids get fewer, larger tiles rather than many draws of a few triangles.
inline constexpr uint32_t kLodMinTileCells = 32;
// A drawn cell spans at most this many pixels at its tile's nearest point
// (--lod on): the picture stays within the PSNR that the LOD test asserts
// against --lod off (docs/benchmarks.md gives the figures).
// --lod-pixels changes it, within these bounds: at 1 every level is as fine
// as the screen shows; at 64 a tile's one quad may span a sixth of the view.
inline constexpr uint32_t kLodCellPixels = 2;
inline constexpr uint32_t kMinLodCellPixels = 1, kMaxLodCellPixels = 64;
// The level choice and the culling take every vertex to lie within a height
// of y = 0: the sinewave's amplitude, or for the ripple this many drops'
// amplitudes (drops spread and damp; overlapping crests of a few reach
// higher than one). A bound too high only draws a little more than needed;
// one too low could cull a crest that pokes into the view's edge.
inline constexpr float kLodRippleHeightDrops = 4.0f;

// --- Overlay -----------------------------------------------------------------

// ImGui's per-frame vertex and index buffers are reserved at this size at the
// start (app/ui/overlay.cpp says why): the overlay's draw data stays below
// the reserve with its sections as they start and with every section open
// (docs/interactive.md, "What the overlay costs a frame", has the counts and
// how they were taken). 768 KiB of host-visible memory per buffer set.
inline constexpr uint64_t kOverlayReservedVertices = 32768;
inline constexpr uint64_t kOverlayReservedIndices = 2 * kOverlayReservedVertices;

// --- OpenCL ------------------------------------------------------------------

// The OpenCL ICD loader, opened at run time by its soname so that the program
// starts without it (sim/opencl/opencl_api.h): the dynamic linker's search
// (LD_LIBRARY_PATH first) finds a loader carried beside the program as well
// as the system's. The loader then reads the vendor ICDs (OCL_ICD_VENDORS).
inline constexpr const char* kOpenClLibraryName = "libOpenCL.so.1";
// Replaces that name (a soname or a path). A test facility: a name that does
// not resolve shows what a machine without OpenCL does (exit 3, one line).
inline constexpr const char* kOpenClLibraryVariable = "VKSIM_OPENCL_LIBRARY";

}  // namespace vksim
