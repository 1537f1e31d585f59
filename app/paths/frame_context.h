// What one frame of any path gets from the loop around it (app/frame_loop.cpp):
// the device and the frame slot, the grid resources and the schedule, what
// to draw and where, and the seams through which the parts that are not the
// lesson reach the frame, declared here and filled by the loop: the capture
// room's observer (app/capture/frame_observer.h implements it), the test
// facility's faults for this frame (decided by app/testing/fault_hooks.h),
// and the window's present.
#pragma once
#include <volk.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <span>

#include "app/interop/grid_resources.h"
#include "app/interop/value_schedule.h"
#include "app/interop/wait_strategy.h"
#include "renderer/frame_sync.h"
#include "renderer/vulkan_context.h"
#include "sim/fault_plan.h"

namespace vksim {

struct OrbitCamera;  // app/ui/camera.h
struct Overlay;      // app/ui/overlay.h
struct GpuTimer;     // renderer/gpu_timer.h
struct MeshPipeline;     // renderer/mesh_renderer.h
struct GridIndexBuffer;  // renderer/mesh_renderer.h
struct MeshDrawReport;   // renderer/mesh_renderer.h

// What a frame tells whoever measures it (the capture room's
// CaptureFrameObserver): what it submitted and what the simulation
// reported. The frame itself knows nothing of captures, traces or clocks.
class FrameObserver {
 public:
  virtual ~FrameObserver() = default;
  // Render k's submission, as submitted (the schedule already noted it).
  virtual void renderSubmitted(uint64_t scheduleFrame, std::span<const SemaphoreWait> waits,
                               std::span<const SemaphoreSignal> signals) = 0;
  // The host has just seen render k's signal (a host wait before the step).
  virtual void renderSignalSeen() = 0;
  // Sim k's turn as the simulation reported it (the schedule already noted it).
  virtual void simulationStepped(uint64_t scheduleFrame, const StepSync& sync, const StepResult& step) = 0;
};

// What the test facility asks of this frame (--inject-fault, docs/testing.md),
// decided by the loop before the frame runs (app/testing/fault_hooks.h);
// nothing when no fault is planned.
struct FrameFaults {
  bool renderLeavesOutSignal = false;  // render-skips-signal: the schedule's signal is left out
  StepFault step = StepFault::none;    // sim-skips-signal / sim-stalls: what the step does wrong
};

// Where the frame draws: the offscreen target (headless) or a swapchain
// image, whose acquire semaphore the render waits on and whose present
// semaphore it signals.
struct FrameTarget {
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  VkExtent2D extent{};
  std::optional<SemaphoreWait> imageAvailable;   // window only
  std::optional<SemaphoreSignal> readyToPresent;  // window only
};

// What the mesh pass draws with (the vertices and the texture come from
// GridResources).
struct SceneDraw {
  VkRenderPass renderPass = VK_NULL_HANDLE;
  const MeshPipeline* pipeline = nullptr;
  const OrbitCamera* camera = nullptr;
  Overlay* overlay = nullptr;  // drawn over the mesh in the same pass (empty: nothing)
  // --lod: each tile at the level its distance needs (renderer/tile_lod.h),
  // every vertex within heightBound of y = 0; off: every triangle.
  bool levelOfDetail = true;
  float cellPixels = 0.0f;  // --lod-pixels
  float heightBound = 0.0f;
  MeshDrawReport* report = nullptr;  // what the pass drew (null: not kept)
  const GridIndexBuffer* indices = nullptr;  // the path's (PathResources::indices)
};

struct FrameContext {
  const Device& device;
  FrameResources& slot;  // this frame's command buffer, fence and acquire semaphore
  uint32_t slotIndex = 0;
  GpuTimer& gpuTimer;    // the render's timestamps, in the slot's own timer slot
  GridResources& grid;
  ScheduleState& schedule;
  FrameTarget target;
  SceneDraw scene;
  WaitStrategy waitStrategy = WaitStrategy::poll;
  bool advance = true;       // false while paused: the step writes nothing, only waits and signals
  FrameFaults faults;        // the test facility's, for this frame
  FrameObserver& observer;   // the capture room's (app/capture/frame_observer.h)
  // The loop's part once the render is submitted and before the simulation
  // steps: the screenshot and the present, as a frame of a program without
  // interop would do them.
  std::function<void()> afterRenderSubmitted;
  // The command-buffer label of this render for RenderDoc and Nsight
  // Graphics ("render k: wait 2k, signal 2k+1"); empty without
  // VK_EXT_debug_utils, and then no region is opened.
  std::string renderLabel;
};

}  // namespace vksim
