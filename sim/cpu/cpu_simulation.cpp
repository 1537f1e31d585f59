// The CPU backend: the reference models (models.h) run on the calling thread
// and write straight into the renderer's host-visible, coherent vertex memory.
// Its turn in the value schedule goes through HostSemaphoreOps, so it follows
// the same waits and signals as the CUDA backend without any CUDA. On the copy
// path it writes into a host array of its own and takes no part in the
// schedule: the frame loop copies that array to Vulkan itself.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "base/host_clock.h"
#include "sim/models.h"
#include "sim/nvtx_ranges.h"
#include "sim/simulation.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

// Timings kept for takeStepTiming: the frame loop takes each within a frame.
constexpr size_t kKeptTimings = 4;

class CpuSimulation final : public Simulation {
 public:
  // hostOps null: the copy path, writing into ownVertices_ with no waits or signals.
  CpuSimulation(const ModelParams& params, Vertex* vertices, HostSemaphoreOps* hostOps, uint8_t* texels)
      : params_(clampModelParams(params)), vertices_(vertices), hostOps_(hostOps), texels_(texels) {
    if (!vertices_) {
      ownVertices_.resize(size_t(params_.grid) * params_.grid);
      vertices_ = ownVertices_.data();
    }
    if (params_.model == ModelKind::ripple) ripple_.emplace(params_);
  }

  StepResult writeInitialState() override {
    stepCount_ = 0;
    sequence_ = 0;
    timings_.clear();
    if (ripple_) ripple_->reset();
    writeVertices();
    StepResult result;
    // Render 0 waits on simDone (app/interop/value_schedule.h): a queue submission
    // that Vulkan can see, ordered after these host writes by the host write
    // ordering guarantee of vkQueueSubmit. The copy path has no semaphores:
    // the frame loop copies hostVertices() itself.
    if (hostOps_) {
      hostOps_->signalSimDone();
      result.signalEnqueued = true;
    }
    return result;
  }

  StepResult step(const StepSync& sync, bool advance, uint64_t timeoutNs) override {
    // NVTX: "sim step: wait 2k+1, signal 2k+2"; the copy path has no semaphores.
    const ProfileRange stepRange([&] { return hostOps_ ? stepRangeName(sync) : std::string("sim step"); });
    StepResult result;
    StepTiming timing;
    timing.sequence = sequence_++;
    timing.waitBeginNs = hostNowNs();
    // The schedule: the vertices may only be written once the render that
    // reads them has finished (timeline value 2k+1, or renderDone's signal),
    // and the signal may only come once every write is done, since the render
    // that waits for it reads the buffer. A paused frame still takes its turn,
    // or the next render would wait for ever. The copy path writes memory of
    // its own, which no render reads: nothing to wait for or signal.
    // FAULT HOOK (--inject-fault sim-stalls, sim/fault_plan.h): the step
    // never completes. On the host that is a wait that blocks for the whole
    // bound and reports the timeout; it submits nothing (waitEnqueued stays
    // false), so a binary renderDone stays signalled for the drain to consume.
    if (sync.fault == StepFault::stall) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(timeoutNs));
      result.status = StepStatus::timeout;
      return result;
    }
    if (hostOps_) {
      // Binary: waitRenderDone submits the consuming wait before it blocks,
      // so renderDone counts as consumed even when the fence wait times out.
      // A timeline wait on the host consumes nothing.
      result.waitEnqueued = true;
      const bool waited = sync.mode == SyncMode::timeline ? hostOps_->waitTimeline(sync.waitValue, timeoutNs)
                                                          : hostOps_->waitRenderDone(timeoutNs);
      if (!waited) {
        result.status = StepStatus::timeout;
        return result;
      }
    }
    timing.waitEndNs = timing.workBeginNs = hostNowNs();
    if (advance) {
      const ProfileRange writeRange("write vertices");
      ++stepCount_;
      if (ripple_) ripple_->step();
      writeVertices();
    }
    timing.workEndNs = hostNowNs();
    // FAULT HOOK (--inject-fault sim-skips-signal): the writes are done, the
    // signal that would hand them to the render is left out.
    if (hostOps_ && sync.fault != StepFault::skipSignal) {
      if (sync.mode == SyncMode::timeline)
        hostOps_->signalTimeline(sync.signalValue);
      else
        hostOps_->signalSimDone();
      result.signalEnqueued = true;
    }
    if (timings_.size() == kKeptTimings) timings_.pop_front();
    timings_.push_back(timing);
    return result;
  }

  bool takeStepTiming(StepTiming* timing) override {
    if (timings_.empty()) return false;
    *timing = timings_.front();
    timings_.pop_front();
    return true;
  }

  const void* hostVertices() const override { return hostOps_ ? nullptr : vertices_; }

  void setParams(const ModelParams& params) override {
    params_ = changeParams(params_, params);
    if (ripple_) ripple_->setParams(params_);
  }
  const ModelParams& params() const override { return params_; }

  void addDrop(const Drop& drop) override {
    if (ripple_) ripple_->addDrop(drop);
  }

  uint64_t stepCount() const override { return stepCount_; }

  // Every write happened inside step() or writeInitialState() on this thread.
  bool finish(uint64_t /*timeoutNs*/) override { return true; }

  std::string backendName() const override { return "cpu"; }
  std::string deviceName() const override { return "host (single thread)"; }

 private:
  void writeVertices() {
    if (!texels_) {
      writeModelVertices(vertices_);
      return;
    }
    if (ripple_) {
      writeRowsWithTexels([this](uint32_t j, Vertex* row) { ripple_->writeVertexRow(j, row); });
    } else {
      const SinewaveRows rows(params_, stepCount_);
      writeRowsWithTexels([&rows](uint32_t j, Vertex* row) { rows.write(j, row); });
    }
  }

  // With the texture, the texels are computed from the vertices, which must
  // then be read back. Reading the shared memory itself can be very slow (on
  // a discrete GPU it is device memory mapped uncached or write-combined; on
  // the H200 a 512² step that read it back took seconds, as commit 242b565
  // records), so each row of vertices is written into a row of
  // host memory first, its texels computed from there, and the row then
  // copied into the shared memory, which is only ever written. A row, not the
  // grid: it stays in the cache, so the step touches the grid's vertices
  // once (docs/results/2026-12-03-cpu-backend.md). The texels follow the same
  // turn of the schedule as the vertices (after the wait, before the signal).
  template <typename WriteRow>
  void writeRowsWithTexels(const WriteRow& writeRow) {
    const uint32_t n = params_.grid;
    rowScratch_.resize(n);
    for (uint32_t j = 0; j < n; ++j) {
      writeRow(j, rowScratch_.data());
      writeSurfaceTexelRow(rowScratch_.data(), n, j, texels_);
      streamRow(vertices_ + size_t(j) * n, rowScratch_.data(), n);
    }
    fenceStreamedRows();  // ordered before the signal (streamRow)
    writeSurfaceTextureMips(n, texels_);
  }

  // The row into the shared memory with non-temporal stores: nothing reads
  // it back on the host, so it need not be fetched into the cache first nor
  // push the height fields out of it. Streaming stores are weakly ordered,
  // and the host write ordering guarantee of vkQueueSubmit and
  // vkSignalSemaphore (the render's read is ordered after the host's writes)
  // only covers stores that are globally visible when the call is made:
  // writeRowsWithTexels fences them before anything can signal the render.
  // A mapping is aligned far beyond 16 bytes (minMemoryMapAlignment), and a
  // vertex is 32; anything else falls back to memcpy.
  static void streamRow(Vertex* target, const Vertex* source, uint32_t count) {
    static_assert(sizeof(Vertex) == 32, "two 16-byte stores a vertex");
#if defined(__SSE2__)
    if (reinterpret_cast<uintptr_t>(target) % 16 == 0) {
      auto* out = reinterpret_cast<float*>(target);
      const auto* in = reinterpret_cast<const float*>(source);
      for (size_t k = 0; k < size_t(count) * 8; k += 4) _mm_stream_ps(out + k, _mm_loadu_ps(in + k));
      return;
    }
#endif
    std::memcpy(static_cast<void*>(target), source, size_t(count) * sizeof(Vertex));
  }

  static void fenceStreamedRows() {
#if defined(__SSE2__)
    _mm_sfence();
#endif
  }

  void writeModelVertices(Vertex* vertices) {
    if (ripple_)
      ripple_->writeVertices(vertices);
    else
      writeSinewaveVertices(params_, stepCount_, vertices);
  }

  ModelParams params_;
  Vertex* vertices_;
  HostSemaphoreOps* hostOps_;          // null on the copy path
  uint8_t* texels_;                    // the surface texture's packed levels, or null (no texture)
  std::vector<Vertex> rowScratch_;     // with the texture: one row of this step's vertices on the host
  std::vector<Vertex> ownVertices_;    // the copy path's vertices
  std::optional<RippleModel> ripple_;  // ripple only
  uint64_t stepCount_ = 0;
  uint64_t sequence_ = 0;           // step() calls since writeInitialState
  std::deque<StepTiming> timings_;  // not yet taken, oldest first
};

}  // namespace

std::unique_ptr<Simulation> createCpuSimulation(const ModelParams& params, void* mappedVertices,
                                                HostSemaphoreOps& hostOps, void* mappedTexels) {
  if (!mappedVertices || params.grid < kMinGrid || params.grid > kMaxGrid) return nullptr;
  return std::make_unique<CpuSimulation>(params, static_cast<Vertex*>(mappedVertices), &hostOps,
                                         static_cast<uint8_t*>(mappedTexels));
}

std::unique_ptr<Simulation> createCpuCopySimulation(const ModelParams& params) {
  if (params.grid < kMinGrid || params.grid > kMaxGrid) return nullptr;
  return std::make_unique<CpuSimulation>(params, nullptr, nullptr, nullptr);
}

}  // namespace vksim
