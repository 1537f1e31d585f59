// The one route of the exported fds between Vulkan and the simulation, and
// its one owner (ExportedHandles). The rule for opaque POSIX fds: an fd whose
// import succeeded belongs to the importer from then on (closing it is
// undefined); an fd that was not imported, because its import failed or never
// ran, is still the exporter's, which must close it. A path that shares
// memory (app/paths/) reads as the route runs: exportSharedHandles, then the
// importer (which sets each fd it took to -1), then importedSimulation, and
// `handles` closes what is left when it goes. Tests count /proc/self/fd
// around these calls (tests/integration/test_fd_handoff.cpp).
#pragma once
#include <memory>
#include <string>

#include "app/interop/interop_config.h"
#include "base/result.h"
#include "renderer/frame_sync.h"
#include "renderer/shared_resources.h"
#include "renderer/shared_texture.h"
#include "renderer/vulkan_context.h"
#include "sim/fault_plan.h"
#include "sim/simulation.h"

namespace vksim {

// The fds of one grid on their way between Vulkan and the
// simulation, and their one owner on that way: every fd still >= 0 when an
// ExportedHandles goes (an exception between two exports, an importer that
// took some of the fds or none) is closed then. An importer sets each fd it
// imported to -1: from then on it is the importer's. The semaphores always
// go from Vulkan to the simulation; the memory goes the same way, or, with
// --memory-owner cuda, from CUDA to Vulkan (bufferExporter says which; the
// rule for the fd is the same either way). Move-only.
struct ExportedHandles {
  ExternalBuffer buffer;
  ExternalSemaphores semaphores;
  MemoryOwner bufferExporter = MemoryOwner::vulkan;  // who exported buffer.fd (the other side imports it)
  ExternalTexture texture;  // fd -1 when no texture is exported

  ExportedHandles() = default;
  ExportedHandles(ExportedHandles&& other) noexcept;
  ExportedHandles& operator=(ExportedHandles&& other) noexcept;
  ExportedHandles(const ExportedHandles&) = delete;
  ExportedHandles& operator=(const ExportedHandles&) = delete;
  ~ExportedHandles();
};

// Exports the vertex buffer's memory (which must be exportable) and, when
// semaphores.exportable, the three semaphores: each a new opaque fd that the
// returned handles own. If an export fails, every fd exported before it is
// closed and the exception goes on (EnvironmentError or RuntimeFailure, its
// message led by `who` when given: "CUDA backend"): nothing stays open. With
// export-fails in `faults` (the test facility's, docs/testing.md), the export
// after the vertex memory's fails that way. With `texture` (an external one),
// its memory is exported last.
ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture = nullptr, const std::string& who = "");

// import-fails (the test facility's, docs/testing.md): the import that `what`
// names ("CUDA backend: could not import ...") fails before it runs, with
// EnvironmentError; every fd is still the exporter's. Nothing without it.
void injectImportFailure(const FaultPlan& faults, const std::string& what);

// What an importer returned, as the path keeps it: the simulation, or
// EnvironmentError (exit 3) "who: <the importer's sentence>". Either way the
// fds it did not take (still >= 0) are the caller's handles' to close.
std::unique_ptr<Simulation> importedSimulation(Result<std::unique_ptr<Simulation>> imported, const std::string& who);

}  // namespace vksim
