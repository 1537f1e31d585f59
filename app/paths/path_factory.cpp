#include "app/paths/path_factory.h"

#include "app/interop/teardown.h"
#include "app/paths/opencl_path.h"
#include "app/paths/render_queue_path.h"
#include "app/paths/zero_copy_path.h"
#include "base/config.h"

namespace vksim {
namespace {

// Each path's functions in the table's one shape: a path that keeps nothing
// of its own ignores `own`.
void createZeroCopy(GridResources& grid, PathResources&, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule) {
  createZeroCopyGrid(grid, setup, params, schedule);
}
void createCudaOwned(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                     ScheduleState& schedule) {
  createCudaOwnedMemoryGrid(grid, own.cudaOwned, setup, params, schedule);
}
void createOpenCl(GridResources& grid, PathResources&, const GridSetup& setup, const ModelParams& params,
                  ScheduleState& schedule) {
  createOpenClGrid(grid, setup, params, schedule);
}
void createCpuHost(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                   ScheduleState& schedule) {
  createCpuHostGrid(grid, own.cpuHost, setup, params, schedule);
}
void createCopy(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                ScheduleState& schedule) {
  createCopyGrid(grid, own.copy, setup, params, schedule);
}
void createRenderQueue(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                       ScheduleState& schedule) {
  createRenderQueueGrid(grid, own.renderQueue, setup, params, schedule);
}

void zeroCopyFrame(FrameContext& frame, PathResources&) { runZeroCopyFrame(frame); }
void cpuHostFrame(FrameContext& frame, PathResources& own) { runCpuHostFrame(frame, own.cpuHost); }
void copyFrame(FrameContext& frame, PathResources& own) { runCopyFrame(frame, own.copy); }
void renderQueueFrame(FrameContext& frame, PathResources& own) { runRenderQueueFrame(frame, *own.renderQueue); }

void drainSemaphores(const PathTeardown& teardown, GridResources& grid, PathResources&) {
  drainSchedule(teardown.device, teardown.frame, grid, teardown.schedule, teardown.loss, teardown.hooks);
}
// The CPU host path reads the last render's frame tag and ends the tagging
// worker's step once the drain has waited for that render (--frame-tags).
void drainCpuHost(const PathTeardown& teardown, GridResources& grid, PathResources& own) {
  GridResourceHooks hooks = teardown.hooks;
  hooks.beforeDrainSubmitted = [&] {
    if (grid.simulation) finishCpuHostFrameTags(own.cpuHost, *grid.simulation, own.frameTagSeen);
  };
  drainSchedule(teardown.device, teardown.frame, grid, teardown.schedule, teardown.loss, hooks);
}
void drainCopy(const PathTeardown& teardown, GridResources& grid, PathResources& own) {
  drainCopyPath(teardown.device, teardown.frame, grid, own.copy, teardown.schedule, teardown.loss);
}

const char* const kExportedToCuda = "exported to CUDA as opaque fds";
const char* const kHostSemaphores = "CPU backend: the host waits and signals through Vulkan";

// The table: one row per InteropPath, in its order.
const PathDescriptor kPaths[] = {
    {InteropPath::zeroCopy, "zero-copy", TransferMode::zeroCopy, true, false, kFramesInFlight, kExportedToCuda,
     "exported to CUDA", createZeroCopy, zeroCopyFrame, drainSemaphores},
    {InteropPath::cudaOwnedMemory, "cuda-owned memory", TransferMode::zeroCopy, true, false, kFramesInFlight,
     kExportedToCuda, "CUDA's memory, imported by Vulkan", createCudaOwned, zeroCopyFrame, drainSemaphores},
    {InteropPath::openCl, "opencl", TransferMode::zeroCopy, false, false, kFramesInFlight,
     "exported to OpenCL as opaque fds", "exported to OpenCL", createOpenCl, zeroCopyFrame, drainSemaphores},
    {InteropPath::cpuHost, "cpu host", TransferMode::zeroCopy, true, false, kFramesInFlight, kHostSemaphores,
     "host-visible", createCpuHost, cpuHostFrame, drainCpuHost},
    {InteropPath::copy, "copy", TransferMode::copy, true, true, kFramesInFlight, kHostSemaphores, "host-visible",
     createCopy, copyFrame, drainCopy},
    {InteropPath::renderQueue, "render queue", TransferMode::zeroCopy, true, false, kMaxFramesInFlight,
     "render queue only (one vkQueueSubmit): not exported", "device-local", createRenderQueue, renderQueueFrame,
     drainSemaphores},
};

}  // namespace

InteropPath choosePath(Backend backend, const InteropConfig& config) {
  if (inRenderQueue(backend)) return InteropPath::renderQueue;
  if (config.transfer == TransferMode::copy) return InteropPath::copy;
  if (backend == Backend::cuda)
    return config.memoryOwner == MemoryOwner::cuda ? InteropPath::cudaOwnedMemory : InteropPath::zeroCopy;
  if (backend == Backend::opencl) return InteropPath::openCl;
  // Every backend whose step runs on the host (traitsOf(backend).hostSimulation).
  return InteropPath::cpuHost;
}

const PathDescriptor& describePath(InteropPath path) { return kPaths[static_cast<int>(path)]; }

const char* toString(InteropPath path) { return describePath(path).name; }

uint32_t framesInFlight(InteropPath path) { return describePath(path).framesInFlight; }

void createPathGrid(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule) {
  const PathDescriptor& path = describePath(choosePath(setup.devices.backend, setup.config));
  own.descriptor = &path;
  // The mesh's index buffer is the same on every path, and no part of the
  // interop: it is made here, before the path's own resources.
  own.indices = createGridIndexBuffer(setup.device, params.grid);
  path.create(grid, own, setup, params, schedule);
}

void noteSlotDone(PathResources& own) { reportCpuHostFrameTag(own.cpuHost, own.frameTagSeen); }

void destroyPathGrid(const PathTeardown& teardown, GridResources& grid, PathResources& own) {
  // FAULT HOOK (--inject-fault sim-stalls): let a stalled step finish, so
  // that the drain and the simulation's finish see the work end.
  if (SimulationBackend* simulation = simulationOf(grid)) {
    simulation->releaseInjectedStall();
    if (own.descriptor) own.descriptor->drain(teardown, grid, own);
  }
  const bool finished =
      finishSimulation(teardown.device, teardown.frame, grid, teardown.schedule, teardown.loss, teardown.hooks);
  // The render-queue simulation where finishSimulation destroys the others:
  // finished, and before the vertex buffer and semaphores it records into.
  own.renderQueue.reset();
  destroySharedObjects(teardown.device, grid, teardown.loss);
  destroyGridIndexBuffer(teardown.device, own.indices);  // the device is idle by now
  // The path's own last: CUDA's allocation after Vulkan's import of it.
  destroyCpuHostState(teardown.device, own.cpuHost);
  destroyCopyState(teardown.device, own.copy);
  destroyCudaOwnedState(own.cudaOwned, finished);
  own.descriptor = nullptr;
}

}  // namespace vksim
