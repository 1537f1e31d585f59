// The simulation seen from app/: SimulationBackend for every backend;
// Simulation for those that submit their own step (cpu, cuda, opencl);
// RenderQueueSimulation (sim/vulkan/render_queue_simulation.h) for those whose
// step rides in the render's submission (vulkan, cuda-nvx).
// Each backend owns its model state and writes the shared vertex buffer
// (n*n vksim::Vertex, row-major, z rows of x) once per step, taking part in
// the value schedule through the StepSync it is given.
#pragma once
#include <memory>
#include <string>

#include "sim/host_sync.h"
#include "sim/sim_types.h"

namespace vksim {

// The vertex buffer as exported by the renderer (an opaque POSIX fd). An
// importer (createCudaSimulation) sets the fd to -1 once its import
// succeeded: from then on it belongs to the importer and is never closed (the
// opaque-fd rule). An fd left >= 0, because its import failed or was never
// tried, is still the caller's, who closes it (app/interop/grid_resources.h).
struct ExternalBuffer {
  int fd = -1;
  uint64_t allocationSize = 0;  // VkMemoryRequirements::size: import with this
  uint64_t size = 0;            // bytes used: of vertices (or of packed texels, ExportedHandles::texels)
  bool dedicated = false;       // a dedicated allocation: import as dedicated
};

// The surface texture as exported by the renderer (sim/surface_texture.h):
// an optimally tiled 2D image of 8-bit RGBA texels, width x height, `levels`
// mip levels, in a dedicated allocation exported as an opaque fd. Ownership
// of the fd as for ExternalBuffer. fd -1: no texture to write.
struct ExternalTexture {
  int fd = -1;
  uint64_t allocationSize = 0;  // VkMemoryRequirements::size of the image: import with this
  uint32_t width = 0, height = 0, levels = 0;
  bool dedicated = false;  // a dedicated allocation: import as dedicated
};

// The three exported semaphores (opaque POSIX fds; -1 when not exported).
// Ownership as for ExternalBuffer, each fd on its own.
struct ExternalSemaphores {
  int timelineFd = -1;
  int renderDoneFd = -1;  // binary, Vulkan signals, simulation waits
  int simDoneFd = -1;     // binary, simulation signals, Vulkan waits
};

// What app/ asks of every backend, whichever way its step is submitted: the
// initial write, the model's parameters, completion and timings. A backend
// that submits its own step is a Simulation (below); one whose step rides in
// the render's own submission is a RenderQueueSimulation
// (sim/vulkan/render_queue_simulation.h). Neither has a call that fails
// because it belongs to the other.
class SimulationBackend {
 public:
  virtual ~SimulationBackend() = default;

  // Writes the initial state into the vertex buffer (before frame 0's render
  // is submitted) and, on a path that shares the vertex buffer, ends it with a
  // signal of the binary semaphore simDone, which render 0 waits on: the
  // initial writes reach Vulkan through a dependency it can see
  // (app/interop/value_schedule.h). signalEnqueued says whether that signal was
  // handed over; waitEnqueued is always false. The copy path signals nothing
  // (its output is ready for hostVertices() when this returns). Also resets
  // the step count to 0.
  virtual StepResult writeInitialState() = 0;


  // Non-structural parameter changes (time step, damping, drop interval, ...)
  // take effect from the next step. A different model or grid needs a new
  // Simulation (and new shared resources).
  virtual void setParams(const ModelParams& params) = 0;
  virtual const ModelParams& params() const = 0;

  // Adds a drop at the next step (ripple only; ignored by sinewave).
  virtual void addDrop(const Drop& drop) = 0;

  // Steps taken since writeInitialState.
  virtual uint64_t stepCount() const = 0;

  // Blocks until all enqueued work is done (at most timeoutNs); false on
  // timeout. Called before teardown and before the vertex buffer is read back.
  virtual bool finish(uint64_t timeoutNs) = 0;

  // "cpu" or "cuda", and the device it runs on, for reports.
  virtual std::string backendName() const = 0;
  virtual std::string deviceName() const = 0;

  // Whether everything the last step() (or writeInitialState) enqueued has
  // completed, its semaphore signal included; never blocks. Never true while
  // work that the last call enqueued may still run (the copy path reads
  // hostVertices() once this is true). The frame loop
  // polls it before submitting a render that waits on simDone, so that the
  // wait is already satisfied when Vulkan sees it. The CPU backends finish
  // inside step(): always true.
  virtual bool isStepComplete() { return true; }

  // The timing of the oldest finished step not yet taken; never blocks.
  // False when there is none (yet). Steps come out in order; a backend keeps
  // a few steps' timings (CUDA: kStepTimingSlots) and drops the oldest that
  // nobody took. Backends without timers always return false.
  virtual bool takeStepTiming(StepTiming* timing) {
    (void)timing;
    return false;
  }

  // Test facility (StepSync::fault == StepFault::stall): ends an injected
  // stall so that the stalled step, and everything enqueued after it, can
  // complete; teardown calls it first. Never blocks; a no-op without a stall
  // (and on the CPU backend, whose stall ends inside step()).
  virtual void releaseInjectedStall() {}
};

// A backend that submits its own step, in its own API (cpu, cuda, opencl):
// the frame loop calls step() once a frame, between the render that the step
// waits for and the one that waits for it.
class Simulation : public SimulationBackend {
 public:
  // One frame's turn: waits as sync says (bounded by timeoutNs), advances the
  // model by one step unless paused (advance = false), writes the vertices and
  // signals as sync says. CPU: all of it on the host before returning. CUDA:
  // enqueued on the backend's stream; the host does not block. The result
  // says what was really handed over (StepResult), also when it failed.
  virtual StepResult step(const StepSync& sync, bool advance, uint64_t timeoutNs) = 0;

  // The copy path (transfer "copy", no shared memory): the backend writes
  // grid*grid vertices into host memory that it owns, and this is that memory.
  // Valid to read once isStepComplete() is true, until the next step() or
  // writeInitialState(). nullptr for a backend that writes shared memory.
  virtual const void* hostVertices() const { return nullptr; }
};

// CPU backend: writes through mappedVertices (host-visible, coherent memory of
// at least grid*grid vertices, owned by the caller, outliving the simulation),
// and waits/signals through hostOps (also outliving it). Nothing is written
// before writeInitialState. Returns nullptr when mappedVertices is null or
// params.grid is outside [kMinGrid, kMaxGrid]. Parameters are clamped as
// clampModelParams (sim/models.h) says; params() returns the clamped values.
// With mappedTexels (host memory of surfaceTextureBytes(grid) bytes, owned by
// the caller, outliving the simulation), every write of the vertices also
// writes the surface texture there, all levels packed (sim/surface_texture.h),
// in the same turn of the schedule: the render that reads the vertices
// uploads those texels.
std::unique_ptr<Simulation> createCpuSimulation(const ModelParams& params, void* mappedVertices,
                                                HostSemaphoreOps& hostOps, void* mappedTexels = nullptr);

// CPU backend for the copy path: writes into a host array of its own
// (hostVertices()) instead of shared memory, and takes no part in the value
// schedule: step() ignores `sync`, since the host orders everything (the frame
// loop copies hostVertices() into a staging buffer before each render). Same
// results, step for step, as createCpuSimulation. nullptr for a grid outside
// [kMinGrid, kMaxGrid].
std::unique_ptr<Simulation> createCpuCopySimulation(const ModelParams& params);

}  // namespace vksim
