#include "app/interop/exported_handles.h"

#include <unistd.h>

#include <string>
#include <utility>


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

namespace {

// The exports, in the order the walkthrough reads them: the memory, the
// semaphores, the texture.
ExportedHandles exportEach(const Device& device, const SharedVertexBuffer& vertices, const SyncSemaphores& semaphores,
                           const FaultPlan& faults, const SharedTexture* texture) {
  ExportedHandles handles;
  handles.buffer.fd = exportMemoryFd(device, vertices);
  handles.buffer.allocationSize = vertices.allocationSize;  // the importer must use the allocation's size
  handles.buffer.size = vertices.size;
  handles.buffer.dedicated = vertices.dedicated;
  // A test's export-fails: `handles` closes the memory's fd on the way out.
  if (hasFault(faults, FaultKind::exportFails))
    throw EnvironmentError(std::string("could not export the ") +
                           (semaphores.exportable ? "timeline semaphore" : "semaphores") +
                           " after the vertex memory (injected fault export-fails)");
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

}  // namespace

ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults,
                                    const SharedTexture* texture, const std::string& who) {
  try {
    return exportEach(device, vertices, semaphores, faults, texture);
  } catch (const EnvironmentError& error) {
    if (who.empty()) throw;
    throw EnvironmentError(who + ": " + error.what());
  }
}

void injectImportFailure(const FaultPlan& faults, const std::string& what) {
  if (hasFault(faults, FaultKind::importFails)) throw EnvironmentError(what + " (injected fault import-fails)");
}

std::unique_ptr<Simulation> importedSimulation(Result<std::unique_ptr<Simulation>> imported, const std::string& who) {
  if (!imported) throw EnvironmentError(who + ": " + imported.error().message);
  return std::move(*imported);
}

}  // namespace vksim
