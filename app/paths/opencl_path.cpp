#include "app/paths/opencl_path.h"

#include "app/interop/device_pairing.h"
#include "app/interop/grid_resources.h"
#include "shaders/shared_layout.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim {

void createOpenClGrid(GridResources& grid, const GridSetup& setup, const ModelParams& params,
                      ScheduleState& schedule) {
  const Device& device = setup.device;
  const VkDeviceSize bytes = VkDeviceSize(params.grid) * params.grid * sizeof(Vertex);
  grid.vertices = createSharedVertexBuffer(device, bytes, VertexMemory::deviceLocal, /*exportable=*/true);
  grid.semaphores = createSyncSemaphores(device, /*exportable=*/true);
  // The OpenCL backend imports the buffer alone: the mesh takes its colour
  // from the height. Importing the image is not defined for a mip chain,
  // and the buffer route is not built (docs/design.md, "The surface texture
  // on OpenCL"); kOpenClTextureNote says so at start.
  grid.texture = createPlaceholderTexture(device, params);
  // The fds cross from Vulkan to OpenCL here, with the same rule as for
  // CUDA. OpenCL imports the vertex memory and the two binary semaphores and
  // sets each of those fds to -1; the timeline fd, which it never imports
  // (cl_khr_semaphore has no timeline type), stays in `handles` and is
  // closed with whatever else was not taken.
  ExportedHandles handles =
      exportSharedHandles(device, grid.vertices, grid.semaphores, setup.config.faults, nullptr, "OpenCL backend");
  injectImportFailure(setup.config.faults, "OpenCL backend: could not import the vertex buffer's memory");
  Result<std::unique_ptr<Simulation>> imported =
      createOpenClSimulation(params, *setup.devices.opencl, handles.buffer, handles.semaphores);
  grid.simulation = importedSimulation(std::move(imported), "OpenCL backend");
  // OpenCL writes the initial state: Vulkan's first use acquires it from EXTERNAL.
  grid.externalWriter = true;
  grid.vertexOwner = VertexOwner::external;
  writeInitialState(*grid.simulation, schedule, setup.hooks);
}

}  // namespace vksim
