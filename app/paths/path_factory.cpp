#include "app/paths/path_factory.h"

#include "app/paths/copy_path.h"
#include "app/paths/cpu_host_path.h"
#include "app/paths/cuda_owned_memory_path.h"
#include "app/paths/opencl_path.h"
#include "app/paths/render_queue_path.h"
#include "app/paths/zero_copy_path.h"
#include "base/config.h"

namespace vksim {

InteropPath choosePath(Backend backend, const InteropConfig& config) {
  if (inRenderQueue(backend)) return InteropPath::renderQueue;
  if (config.transfer == TransferMode::copy) return InteropPath::copy;
  switch (backend) {
    case Backend::cuda:
      return config.memoryOwner == MemoryOwner::cuda ? InteropPath::cudaOwnedMemory : InteropPath::zeroCopy;
    case Backend::opencl: return InteropPath::openCl;
    case Backend::cpu:
    case Backend::vulkan:
    case Backend::cudaNvx: break;
  }
  return InteropPath::cpuHost;
}

void createGridResources(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                         ScheduleState& schedule) {
  switch (choosePath(setup.devices.backend, setup.config)) {
    case InteropPath::zeroCopy: return createZeroCopyGrid(grid, setup, params, schedule);
    case InteropPath::cudaOwnedMemory: return createCudaOwnedMemoryGrid(grid, setup, params, schedule);
    case InteropPath::openCl: return createOpenClGrid(grid, setup, params, schedule);
    case InteropPath::cpuHost: return createCpuHostGrid(grid, setup, params, schedule);
    case InteropPath::copy: return createCopyGrid(grid, setup, params, schedule);
    case InteropPath::renderQueue: return createRenderQueueGrid(grid, setup, params, schedule);
  }
}

void runPathFrame(FrameContext& frame) {
  switch (frame.grid.path) {
    case InteropPath::copy: return runCopyFrame(frame);
    case InteropPath::renderQueue: return runRenderQueueFrame(frame);
    case InteropPath::zeroCopy:
    case InteropPath::cudaOwnedMemory:
    case InteropPath::openCl:
    case InteropPath::cpuHost: return runZeroCopyFrame(frame);
  }
}

uint32_t framesInFlight(InteropPath path) {
  return path == InteropPath::renderQueue ? kMaxFramesInFlight : kFramesInFlight;
}

}  // namespace vksim
