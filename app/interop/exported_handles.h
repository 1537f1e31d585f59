// The one route of the exported fds between Vulkan and the simulation, and
// its one owner (ExportedHandles). The rule for opaque POSIX fds: an fd whose
// import succeeded belongs to the importer from then on (closing it is
// undefined); an fd that was not imported, because its import failed or never
// ran, is still the exporter's, which must close it. Every path that shares
// memory (app/paths/) hands its fds over here and nowhere else; tests count
// /proc/self/fd around these calls (tests/integration/test_fd_handoff.cpp).
#pragma once
#include <functional>
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
// closed and the exception goes on (EnvironmentError or RuntimeFailure):
// nothing stays open. With export-fails in `faults`, the export after the
// vertex memory's fails that way (EnvironmentError). With `texture` (an
// external one), its memory is exported last.
ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture = nullptr);

// Imports the handles into a simulation: sets each fd that it imported
// successfully to -1 in `handles` (the importer's now); whatever it leaves
// >= 0 is still the caller's. On failure the Error's message is one sentence.
using SimulationImporter = std::function<Result<std::unique_ptr<Simulation>>(ExportedHandles& handles)>;

// The whole route of the fds: exportSharedHandles, then `importer`, then
// every fd the importer did not take is closed, on success and failure alike.
// With import-fails in `faults`, the import of the vertex memory fails before
// the importer runs (its fd, still ours, is closed like the others). Throws
// EnvironmentError (exit 3) naming what failed.
// What is handed over, by whom (`who` begins every sentence of an error:
// "CUDA backend"), and the test facility's faults.
struct Handoff {
  const Device& device;
  const SharedVertexBuffer& vertices;
  const SyncSemaphores& semaphores;
  const FaultPlan& faults;
  std::string who;
  const SharedTexture* texture = nullptr;  // an external texture, exported last; null: none
};
std::unique_ptr<Simulation> handOverSharedHandles(const Handoff& handoff, const SimulationImporter& importer);

}  // namespace vksim
