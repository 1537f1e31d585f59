// What the interop core needs to know of a run: which backend and device,
// how the vertices travel, who owns their memory, how waits are handed over,
// and the test facilities that reach the handoff. app/ fills it from the
// command line (interopConfig in app/cli.h); nothing in app/interop/ reads
// the command line itself.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "app/interop/wait_strategy.h"
#include "base/result.h"
#include "sim/fault_plan.h"
#include "sim/sim_types.h"

namespace vksim {

// automatic: cuda where a CUDA device pairs with a Vulkan device, else cpu
// (never one of the render-queue backends, nor opencl: they are asked for by
// name). vulkan and cudaNvx run the simulation in the render's own Vulkan
// queue (docs/queue-backends.md); opencl runs in binary mode only
// (cl_khr_semaphore has no timeline semaphore).
// The chosen backend is one of these too (DeviceChoice::backend), never
// automatic. A new backend is a value here and a row of kBackends
// (interop_config.cpp); DEVELOPERS.md, "Adding a backend", has the recipe.
enum class BackendChoice { automatic, cuda, cpu, vulkan, cudaNvx, opencl };
const char* toString(BackendChoice backend);  // its row's name

// What app/ asks of a backend, one row each, so that the command line, the
// device choice, the path choice and the captures consult this table
// instead of switching on the enum.
struct BackendTraits {
  BackendChoice backend;
  const char* name;  // --backend's value; the summary line, captures and the bench name it so
  const char* help;  // its entry in --backend's help
  bool inRenderQueue = false;         // records its step into the render's own queue (vulkan, cuda-nvx)
  bool sharesWithAnotherApi = false;  // another API writes the vertex buffer: export memory and semaphores
  // The step runs on the host: the backend renders on one Vulkan device
  // alone, runs the CPU host path (which creates its simulation,
  // app/paths/cpu_host_path.cpp) and has no GPU work in captures.
  bool stepsOnHost = false;
};

// Every row, in BackendChoice's order.
std::span<const BackendTraits> backendTable();
const BackendTraits& traitsOf(BackendChoice backend);
// The row whose name this is ("cpu", "cuda-nvx", ...); nullptr for none.
const BackendTraits* findBackend(std::string_view name);

// How the vertices reach the renderer (docs/benchmarks.md):
//   zeroCopy: the simulation writes the renderer's exported buffer in place,
//             ordered by the value schedule's semaphores;
//   copy:     what a program without interop does: the simulation writes
//             memory of its own, the host copies it into a staging buffer and
//             the frame's command buffer copies that into the vertex buffer.
enum class TransferMode { zeroCopy, copy };
const char* toString(TransferMode transfer);  // "zero-copy", "copy"
// The sync mode that the summary line, the capture and the bench name: "none"
// on the copy transfer, whose simulation takes no semaphore turns; else
// toString(mode).
const char* shownSyncMode(TransferMode transfer, SyncMode mode);
// Likewise the wait strategy: "none" on the copy transfer, which hands no
// semaphore wait over.
const char* shownWaitStrategy(TransferMode transfer, WaitStrategy wait);

// Who allocates the shared vertex memory (docs/interop-walkthrough.md):
//   vulkan: the renderer allocates and exports it, CUDA imports it;
//   cuda:   the CUDA simulation allocates it (cuMemCreate) and exports it,
//           the renderer imports it ("the reverse direction"). Needs the
//           CUDA backend and the zero-copy transfer.
enum class MemoryOwner { vulkan, cuda };
const char* toString(MemoryOwner owner);  // "vulkan", "cuda"
// The owner that the summary line and the capture name: "none" on the copy
// transfer, whose vertex buffer is the renderer's own and shared with no one.
const char* shownMemoryOwner(TransferMode transfer, MemoryOwner owner);

struct InteropConfig {
  BackendChoice backend = BackendChoice::automatic;
  std::string device;  // a Vulkan device's index or UUID; empty: choose
  TransferMode transfer = TransferMode::zeroCopy;
  WaitStrategy waitStrategy = WaitStrategy::poll;
  MemoryOwner memoryOwner = MemoryOwner::vulkan;
  bool texture = true;     // the surface texture (renderer/shared_texture.h)
  bool frameTags = false;  // a test facility (app/testing/frame_tags.h): headless, CPU, zero-copy
  FaultPlan faults;        // a test facility (docs/testing.md)
};

// Parses a VKSIM_WAIT_TIMEOUT_MS value (base/config.h) into nanoseconds;
// refuses, with one sentence, anything but a whole number of milliseconds in
// [1, kMaxWaitTimeoutMs].
Result<uint64_t> parseWaitTimeoutMs(const std::string& text);

// The wait timeout of this process: VKSIM_WAIT_TIMEOUT_MS when set and valid
// (parseCommandLine refuses an invalid one with exit 2), else the default.
uint64_t waitTimeoutFromEnvironment();

}  // namespace vksim
