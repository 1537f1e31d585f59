// The CUDA backend and the CUDA device list, behind types that carry no CUDA.
// These are always declared; on a machine without a CUDA device they report
// that in words instead of failing.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "sim/simulation.h"

namespace vksim {

struct CudaVertexMemory;  // sim/cuda/cuda_owned_memory.h

using DeviceUuid = std::array<uint8_t, 16>;
std::string formatUuid(const DeviceUuid& uuid);  // 8-4-4-4-12 lower-case hex

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  DeviceUuid uuid{};
  int computeMajor = 0, computeMinor = 0;
  bool timelineSemaphoreInterop = false;  // cudaDevAttrTimelineSemaphoreInteropSupported
  // cudaDevAttrComputeMode is cudaComputeModeProhibited: no process may
  // create a context on it, so it cannot run the simulation.
  bool computeProhibited = false;
  std::string computeModeName = "default";  // default, exclusive-process, prohibited, ...
  // cudaDevAttrVulkanCigSupported: a CUDA context could be created in the
  // Vulkan device's own context (CUDA in Graphics) instead of its own.
  bool vulkanCig = false;
};

struct CudaDeviceList {
  std::vector<CudaDeviceInfo> devices;
  std::string unavailableReason;  // why the list is empty (no driver, no device)
  int driverVersion = 0;          // e.g. 13000; 0 when unknown
  int runtimeVersion = 0;
};

// A CUDA version number as people write it: 13000 -> "13.0"; "" for 0 (unknown).
std::string formatCudaVersion(int version);

// Every CUDA device, never throws. Loads the driver on first use.
CudaDeviceList listCudaDevices();

// CUDA backend on device `ordinal`: imports the vertex buffer and the
// semaphores, loads every kernel before any external wait is enqueued, and
// runs one stream. Each fd that it imported it sets to -1 in `vertices` /
// `semaphores`: from then on it is CUDA's (simulation.h). Every fd left >= 0,
// on failure and success alike, is still the caller's, who closes it; this
// function closes none. On failure the Error is one sentence with exit code
// 3 (kExitEnvironment).
//
// Details the interface leaves open:
// - A timeline fd on a device without cudaDevAttrTimelineSemaphoreInteropSupported
//   is a failure. The simDone fd is required (the initial state's signal);
//   a step in a mode whose semaphores were not given returns StepStatus::failed.
// - step() only enqueues (wait, kernels, signal) and returns; timeoutNs is not
//   used, since the host never blocks there. After a failed stall, launch or
//   signal enqueue every later step returns StepStatus::failed (a failed
//   wait enqueue fails that step alone) (the signal is still enqueued when only a
//   kernel launch failed, so the renderer is not left waiting). The result's
//   waitEnqueued and signalEnqueued are set right after the enqueue succeeded.
// - writeInitialState() enqueues the kernels and then a signal of simDone
//   (render 0 waits on it), and waits (at most 5 s) for the stream to finish,
//   which the timer's anchor needs; a failure there makes the next step
//   return StepStatus::failed.
// - The destructor finishes the stream (at most 5 s) and then releases, CUDA
//   first (design.md): mapped pointer, external memory, external semaphores,
//   own memory, stream. If the stream does not finish, the imported objects are
//   left in place (freeing them with work outstanding is undefined) and a
//   sentence goes to stderr. Call finish() first.
// - Every entry point makes device `ordinal` current on the calling thread.
// - Parameters are clamped as clampModelParams (sim/models.h) says.
// - Timing: events around each step's external wait and its kernels, read
//   without blocking by takeStepTiming a frame or more later, on the host's
//   clock through an anchor event (docs/captures.md). isStepComplete() asks
//   (cudaEventQuery) whether the last step's signal has executed, or the
//   stream (cudaStreamQuery) when no event of that step was recorded (the
//   initial write, a failed record).
// - With `texture` (fd >= 0; grid x grid, sim/surface_texture.h), its memory
//   is imported too and mapped as a mipmapped array (format, extent, level
//   count and flags as the Vulkan image was created); every write of the
//   vertices then writes every level of the texture behind them on the stream,
//   before the step's signal. Its fd follows the same rule as the others.
//   Teardown frees its surface objects and the mipmapped array before the
//   external memory.
Result<std::unique_ptr<Simulation>> createCudaSimulation(const ModelParams& params, int ordinal,
                                                         ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                                                         ExternalTexture* texture = nullptr);

// The CUDA backend on memory that CUDA owns (--memory-owner cuda,
// sim/cuda/cuda_owned_memory.h): the kernels write through `vertices`'
// mapping (memory.address) instead of an imported buffer; the semaphores
// (and the texture, below) are imported, with the fd rule of createCudaSimulation. `vertices` is
// borrowed: the simulation never unmaps or releases it, and it must outlive
// the simulation (the caller destroys it after Vulkan has freed its import).
// With `texture` (fd >= 0), the surface texture is a Vulkan image imported
// and written exactly as createCudaSimulation's (the same import, the same
// kernels, the same fd rule): only the vertex memory changes owner.
// Otherwise as createCudaSimulation (schedule, initial state, teardown of the
// stream, semaphores and texture, timing, the Error on failure).
Result<std::unique_ptr<Simulation>> createCudaSimulationOnCudaMemory(const ModelParams& params, int ordinal,
                                                                     const CudaVertexMemory& vertices,
                                                                     ExternalSemaphores& semaphores,
                                                                     ExternalTexture* texture = nullptr);

// The copy path's CUDA backend (transfer "copy": what a program without
// interop does): the kernels write device memory of its own (cudaMalloc), and
// each step ends with cudaMemcpyAsync into pinned host memory
// (cudaMallocHost), which hostVertices() returns. No semaphores: step()
// ignores `sync` and only enqueues; isStepComplete() says when hostVertices()
// holds the step's result. The host must have finished reading
// hostVertices() before it calls step() again (the next copy overwrites it).
// writeInitialState() blocks until the initial state is in host memory.
// Otherwise as createCudaSimulation (device, teardown, timing, clamping,
// the Error on failure).
Result<std::unique_ptr<Simulation>> createCudaCopySimulation(const ModelParams& params, int ordinal);

// Bytes of device memory that a CUDA simulation allocated for itself, beyond
// the imported vertex buffer: 3 * grid^2 floats for ripple (the previous,
// current and next height fields of the one-pass step), 0 for sinewave. 0 for
// a simulation of another backend.
uint64_t cudaOwnedDeviceBytes(const Simulation& simulation);

// Copies the first `bytes` of the shared vertex buffer to host memory through
// CUDA's mapping of it (the pointer that cudaExternalMemoryGetMappedBuffer
// returned), after all enqueued steps, through a pinned bounce buffer so that
// the host waits at most timeoutNs. False for another backend, a failed
// simulation or a timeout. For tests that compare it with Vulkan's read-back
// of the same memory; call it while the buffer is released to
// VK_QUEUE_FAMILY_EXTERNAL (before the drain acquires it for Vulkan).
bool copyCudaVerticesToHost(Simulation& simulation, void* destination, uint64_t bytes, uint64_t timeoutNs);

}  // namespace vksim
