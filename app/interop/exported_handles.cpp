#include "app/interop/exported_handles.h"

#include <unistd.h>

#include <utility>

#include "app/testing/fault_hooks.h"

namespace vksim {
namespace {

// Closes every fd of `handles` that is still >= 0 and sets it to -1: the
// fds that nobody imported are still the exporter's.
void closeRemainingFds(ExportedHandles& handles) {
  for (int* fd : {&handles.buffer.fd, &handles.semaphores.timelineFd, &handles.semaphores.renderDoneFd,
                  &handles.semaphores.simDoneFd, &handles.texture.fd}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

}  // namespace

ExportedHandles::ExportedHandles(ExportedHandles&& other) noexcept
    : buffer(std::exchange(other.buffer, ExternalBuffer{})),
      semaphores(std::exchange(other.semaphores, ExternalSemaphores{})),
      bufferExporter(other.bufferExporter),
      texture(std::exchange(other.texture, ExternalTexture{})) {}

ExportedHandles& ExportedHandles::operator=(ExportedHandles&& other) noexcept {
  if (this != &other) {
    closeRemainingFds(*this);
    buffer = std::exchange(other.buffer, ExternalBuffer{});
    semaphores = std::exchange(other.semaphores, ExternalSemaphores{});
    bufferExporter = other.bufferExporter;
    texture = std::exchange(other.texture, ExternalTexture{});
  }
  return *this;
}

// The one ownership guard of the route: whatever nobody imported is closed
// when the handles go, whichever way that happens.
ExportedHandles::~ExportedHandles() {
  closeRemainingFds(*this);
}

ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture) {
  ExportedHandles handles;
  handles.buffer.fd = exportMemoryFd(device, vertices);
  handles.buffer.allocationSize = vertices.allocationSize;  // the importer must use the allocation's size
  handles.buffer.size = vertices.size;
  handles.buffer.dedicated = vertices.dedicated;
  // A test's export-fails: `handles` closes the memory's fd on the way out.
  injectExportFailure(faults, semaphores.exportable ? "timeline semaphore" : "semaphores");
  if (semaphores.exportable) {
    handles.semaphores.timelineFd = exportSemaphoreFd(device, semaphores.timeline);
    handles.semaphores.renderDoneFd = exportSemaphoreFd(device, semaphores.renderDone);
    handles.semaphores.simDoneFd = exportSemaphoreFd(device, semaphores.simDone);
  }
  if (texture) {
    // What the importer must repeat to map it as a mipmapped array: the
    // allocation's size and dedicated flag (as for the buffer), and the
    // image's extent and level count (its format is fixed: RGBA8).
    handles.texture.fd = exportTextureMemoryFd(device, *texture);
    handles.texture.allocationSize = texture->allocationSize;
    handles.texture.width = texture->width;
    handles.texture.height = texture->height;
    handles.texture.levels = texture->levels;
    handles.texture.dedicated = texture->dedicated;
  }
  return handles;
}

std::unique_ptr<Simulation> handOverSharedHandles(const Handoff& handoff, const SimulationImporter& importer) {
  const std::string& who = handoff.who;
  ExportedHandles handles;
  try {
    handles = exportSharedHandles(handoff.device, handoff.vertices, handoff.semaphores, handoff.faults,
                                  handoff.texture);
  } catch (const EnvironmentError& error) {
    throw EnvironmentError(who + ": " + error.what());
  }
  // A test's import-fails: nothing was imported, so every fd is still ours,
  // and `handles` closes them.
  injectImportFailure(handoff.faults, who + ": could not import the vertex buffer's memory");
  Result<std::unique_ptr<Simulation>> simulation = importer(handles);
  // What the importer took is -1 now; `handles` closes the rest either way.
  if (!simulation) throw EnvironmentError(who + ": " + simulation.error().message);
  return std::move(*simulation);
}

}  // namespace vksim
