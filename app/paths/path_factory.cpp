#include "app/paths/path_factory.h"

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
void createOpenCl(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                  ScheduleState& schedule) {
  createOpenClGrid(grid, own.openCl, setup, params, schedule);
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
void openClFrame(FrameContext& frame, PathResources& own) { runOpenClFrame(frame, own.openCl); }
void cpuHostFrame(FrameContext& frame, PathResources& own) { runCpuHostFrame(frame, own.cpuHost); }
void copyFrame(FrameContext& frame, PathResources& own) { runCopyFrame(frame, own.copy); }
void renderQueueFrame(FrameContext& frame, PathResources& own) { runRenderQueueFrame(frame, *own.renderQueue); }

void drainZeroCopy(const GridTeardown& teardown, GridResources& grid, PathResources&) {
  drainZeroCopyGrid(teardown, grid);
}
void drainCpuHost(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  drainCpuHostGrid(teardown, grid, own.cpuHost, own.frameTagSeen);
}
void drainCopy(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  drainCopyGrid(teardown, grid, own.copy);
}
void drainRenderQueue(const GridTeardown& teardown, GridResources& grid, PathResources&) {
  drainRenderQueueGrid(teardown, grid);
}

void destroyZeroCopy(const GridTeardown& teardown, GridResources& grid, PathResources&) {
  destroyZeroCopyGrid(teardown, grid);
}
void destroyCudaOwned(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  destroyCudaOwnedMemoryGrid(teardown, grid, own.cudaOwned);
}
void destroyOpenCl(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  destroyOpenClGrid(teardown, grid, own.openCl);
}
void destroyCpuHost(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  destroyCpuHostGrid(teardown, grid, own.cpuHost);
}
void destroyCopy(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  destroyCopyGrid(teardown, grid, own.copy);
}
void destroyRenderQueue(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  destroyRenderQueueGrid(teardown, grid, own.renderQueue);
}

const char* const kExportedToCuda = "exported to CUDA as opaque fds";
const char* const kHostSemaphores = "CPU backend: the host waits and signals through Vulkan";

// The table: one row per InteropPath, in its order.
const PathDescriptor kPaths[] = {
    {InteropPath::zeroCopy, "zero-copy", TransferMode::zeroCopy, true, false, kFramesInFlight, kExportedToCuda,
     "exported to CUDA", createZeroCopy, zeroCopyFrame, drainZeroCopy, destroyZeroCopy},
    {InteropPath::cudaOwnedMemory, "cuda-owned memory", TransferMode::zeroCopy, true, false, kFramesInFlight,
     kExportedToCuda, "CUDA's memory, imported by Vulkan", createCudaOwned, zeroCopyFrame, drainZeroCopy,
     destroyCudaOwned},
    {InteropPath::openCl, "opencl", TransferMode::zeroCopy, false, false, kFramesInFlight,
     "exported to OpenCL as opaque fds", "exported to OpenCL", createOpenCl, openClFrame, drainZeroCopy,
     destroyOpenCl},
    {InteropPath::cpuHost, "cpu host", TransferMode::zeroCopy, true, false, kFramesInFlight, kHostSemaphores,
     "host-visible", createCpuHost, cpuHostFrame, drainCpuHost, destroyCpuHost},
    {InteropPath::copy, "copy", TransferMode::copy, true, true, kFramesInFlight,
     "none: the host orders the upload and the render", "device-local, not shared: filled by a copy",
     createCopy, copyFrame, drainCopy, destroyCopy},
    {InteropPath::renderQueue, "render queue", TransferMode::zeroCopy, true, false, kMaxFramesInFlight,
     "render queue only (one vkQueueSubmit): not exported", "device-local", createRenderQueue, renderQueueFrame,
     drainRenderQueue, destroyRenderQueue},
};

}  // namespace

InteropPath choosePath(Backend backend, const InteropConfig& config) {
  if (inRenderQueue(backend)) return InteropPath::renderQueue;
  if (config.transfer == TransferMode::copy) return InteropPath::copy;
  if (backend == Backend::cuda)
    return config.memoryOwner == MemoryOwner::cuda ? InteropPath::cudaOwnedMemory : InteropPath::zeroCopy;
  if (backend == Backend::opencl) return InteropPath::openCl;
  // Every backend whose step runs on the host (traitsOf(backend).stepsOnHost).
  return InteropPath::cpuHost;
}

const PathDescriptor& describePath(InteropPath path) { return kPaths[static_cast<int>(path)]; }

const char* toString(InteropPath path) { return describePath(path).name; }

uint32_t framesInFlight(InteropPath path) { return describePath(path).framesInFlight; }

void createPathGrid(GridResources& grid, PathResources& own, const GridSetup& setup, const ModelParams& params,
                    ScheduleState& schedule) {
  const PathDescriptor& path = describePath(choosePath(setup.devices.backend, setup.config));
  own.descriptor = &path;
  own.drained = false;
  // The mesh's index buffer is the same on every path, and no part of the
  // interop: it is made here, before the path's own resources.
  own.indices = createGridIndexBuffer(setup.device, params.grid);
  path.create(grid, own, setup, params, schedule);
}

void noteSlotDone(PathResources& own) { reportCpuHostFrameTag(own.cpuHost, own.frameTagSeen); }

void drainPathGrid(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  if (!own.descriptor || own.drained) return;
  own.descriptor->drain(teardown, grid, own);
  own.drained = true;
}

void destroyPathGrid(const GridTeardown& teardown, GridResources& grid, PathResources& own) {
  if (own.descriptor) own.descriptor->destroy(teardown, grid, own);
  // The mesh's index buffer was made before the path's resources: it goes
  // after them (the device is idle by now).
  destroyGridIndexBuffer(teardown.device, own.indices);
  own.descriptor = nullptr;
  own.drained = false;
}

}  // namespace vksim
