// The exported fds on their way from Vulkan to the simulation: the one place
// where they cross (app/app.cpp calls it for the CUDA backend). The rule for
// opaque POSIX fds: an fd whose import succeeded belongs to the importer from
// then on (closing it is undefined); an fd that was not imported, because its
// import failed or never ran, is still the exporter's, which must close it.
// Tests count /proc/self/fd around these calls (tests/integration/test_fd_handoff.cpp).
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "renderer/shared_resources.h"
#include "renderer/vulkan_context.h"
#include "sim/fault_plan.h"
#include "sim/simulation.h"

namespace vksim {

// The fds of one shared state, -1 where nothing was exported or the fd has
// been taken by an importer.
struct ExportedHandles {
  ExternalBuffer buffer;
  ExternalSemaphores semaphores;
};

// Exports the vertex buffer's memory (which must be exportable) and, when
// semaphores.exportable, the three semaphores: each a new opaque fd that the
// caller owns. If an export fails, every fd exported before it is closed and
// the exception goes on (EnvironmentError or RuntimeFailure): nothing stays
// open. With export-fails in `faults`, the export after the vertex memory's
// fails that way (EnvironmentError).
ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults);

// Closes every fd of `handles` that is still >= 0 and sets it to -1.
void closeHandles(ExportedHandles& handles);

// Imports the handles into a simulation. It sets each fd that it imported
// successfully to -1 in `handles` (the fd is the importer's now); whatever it
// leaves >= 0 is still the caller's. On failure returns nullptr and sets
// *error to one sentence.
using SimulationImporter = std::function<std::unique_ptr<Simulation>(ExportedHandles& handles, std::string* error)>;

// exportSharedHandles, then `importer`, then closes every fd the importer did
// not take, on success and failure alike. With import-fails in `faults`, the
// import of the vertex memory fails before the importer runs (its fd, still
// the caller's, is closed like the others). Throws EnvironmentError (exit 3)
// naming what failed; `who` begins the sentence ("CUDA backend").
std::unique_ptr<Simulation> handOverSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                                  const SyncSemaphores& semaphores, const FaultPlan& faults,
                                                  const std::string& who, const SimulationImporter& importer);

}  // namespace vksim
