#include "app/interop/fd_handoff.h"

#include <unistd.h>

#include "renderer/vk_check.h"

namespace vksim {
namespace {

// Closes what it still holds when it goes out of scope, whichever way that
// happens: an exception between two exports, or an importer that took only
// some of the fds. release() gives the handles to the caller untouched.
class PendingHandles {
 public:
  ExportedHandles handles;
  ~PendingHandles() { closeHandles(handles); }
  ExportedHandles release() {
    ExportedHandles released = handles;
    handles = ExportedHandles{};
    return released;
  }
};

}  // namespace

void closeHandles(ExportedHandles& handles) {
  for (int* fd : {&handles.buffer.fd, &handles.semaphores.timelineFd, &handles.semaphores.renderDoneFd,
                  &handles.semaphores.simDoneFd}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

ExportedHandles exportSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                    const SyncSemaphores& semaphores, const FaultPlan& faults) {
  PendingHandles pending;
  ExportedHandles& handles = pending.handles;
  handles.buffer.fd = exportMemoryFd(device, vertices);
  handles.buffer.allocationSize = vertices.allocationSize;  // the importer must use the allocation's size
  handles.buffer.size = vertices.size;
  handles.buffer.dedicated = vertices.dedicated;
  // FAULT HOOK (--inject-fault export-fails): the next export fails after the
  // vertex memory's succeeded; `pending` closes that fd on the way out.
  if (hasFault(faults, FaultKind::exportFails))
    throw EnvironmentError(std::string("could not export the ") +
                           (semaphores.exportable ? "timeline semaphore" : "semaphores") +
                           " after the vertex memory (injected fault export-fails)");
  if (semaphores.exportable) {
    handles.semaphores.timelineFd = exportSemaphoreFd(device, semaphores.timeline);
    handles.semaphores.renderDoneFd = exportSemaphoreFd(device, semaphores.renderDone);
    handles.semaphores.simDoneFd = exportSemaphoreFd(device, semaphores.simDone);
  }
  return pending.release();
}

std::unique_ptr<Simulation> handOverSharedHandles(const Device& device, const SharedVertexBuffer& vertices,
                                                  const SyncSemaphores& semaphores, const FaultPlan& faults,
                                                  const std::string& who, const SimulationImporter& importer) {
  PendingHandles pending;
  try {
    pending.handles = exportSharedHandles(device, vertices, semaphores, faults);
  } catch (const EnvironmentError& error) {
    throw EnvironmentError(who + ": " + error.what());
  }
  // FAULT HOOK (--inject-fault import-fails): the vertex memory's import
  // fails. Nothing was imported, so every fd is still ours: `pending` closes
  // them.
  if (hasFault(faults, FaultKind::importFails))
    throw EnvironmentError(who + ": could not import the vertex buffer's memory (injected fault import-fails)");
  std::string error;
  std::unique_ptr<Simulation> simulation = importer(pending.handles, &error);
  // What the importer took is -1 now; `pending` closes the rest either way.
  if (!simulation) throw EnvironmentError(who + ": " + error);
  return simulation;
}

}  // namespace vksim
