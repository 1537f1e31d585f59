// Internal to sim/cuda/cuda_simulation.cu: CUDA events around each step's external
// wait and its work, read a frame or more later without ever blocking
// (cudaEventQuery, then cudaEventElapsedTime), and placed on the host's
// steady_clock through an anchor event recorded on an idle stream at a known
// host time. Also the "is the last step complete" query behind
// Simulation::isStepComplete.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <string>

#include "base/host_clock.h"
#include "sim/cuda/cuda_check.h"
#include "sim/sim_types.h"

namespace vksim {

class CudaStepTimer {
 public:
  // Steps whose timings are kept until taken: the frame loop takes each a
  // frame or two after it was enqueued, so four leave room for a slow frame.
  static constexpr uint32_t kSlots = 4;

  // Creates the events (on the current device). Returns "" or the failed call.
  std::string create() {
    for (Slot& slot : slots_)
      for (cudaEvent_t* event : {&slot.waitBegin, &slot.waitEnd, &slot.workEnd})
        if (CUDA_CHECK(cudaEventCreate(event)) != cudaSuccess) return "create a timing event";
    // The completion marker needs no timestamp: cheaper to record and query.
    for (Slot& slot : slots_)
      if (CUDA_CHECK(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming)) != cudaSuccess)
        return "create a completion event";
    for (cudaEvent_t& anchor : anchors_)
      if (CUDA_CHECK(cudaEventCreate(&anchor)) != cudaSuccess) return "create an anchor event";
    return "";
  }

  // After the stream has finished (no record outstanding on any event).
  void destroy() {
    for (Slot& slot : slots_)
      for (cudaEvent_t event : {slot.waitBegin, slot.waitEnd, slot.workEnd, slot.done})
        if (event) CUDA_CHECK(cudaEventDestroy(event));
    for (cudaEvent_t anchor : anchors_)
      if (anchor) CUDA_CHECK(cudaEventDestroy(anchor));
    *this = CudaStepTimer{};
  }

  // Forgets every step and anchors afresh: after writeInitialState, whose
  // synchronise left `stream` idle.
  void restart(cudaStream_t stream) {
    nextSequence_ = nextToTake_ = 0;
    for (Slot& slot : slots_) slot = Slot{slot.waitBegin, slot.waitEnd, slot.workEnd, slot.done};
    lastAnchorAttemptNs_ = hostNowNs();
    currentAnchor_ = 0;
    // The stream has just finished everything: the anchor completes at once.
    // Should it not within the budget, its record time is the best there is.
    if (!recordAnchor(0, stream, kInitialAnchorBudgetNs, kInitialAnchorBudgetNs))
      anchorHostNs_[0] = lastAnchorAttemptNs_;
  }

  // Before the step's first enqueue: a fresh anchor when the current one is
  // old (cudaEventElapsedTime returns float milliseconds, so precision falls
  // with distance: 0.25 us at 2 s) and the stream is idle. Tried at most once
  // a second, whatever the outcome.
  void reanchorIfDue(cudaStream_t stream) {
    const int64_t now = hostNowNs();
    if (now - lastAnchorAttemptNs_ < kReanchorAfterNs) return;
    lastAnchorAttemptNs_ = now;
    const uint32_t other = 1 - currentAnchor_;
    for (const Slot& slot : slots_)
      if (slot.recorded && slot.sequence >= nextToTake_ && slot.anchor == other) return;  // still needed
    const cudaError_t idle = cudaStreamQuery(stream);
    if (idle == cudaErrorNotReady) return;  // busy: try again next step
    if (CUDA_CHECK(idle) != cudaSuccess) return;
    recordAnchor(other, stream, kReanchorBudgetNs, kReanchorAcceptNs);
  }

  // Event records of one step, in stream order: begin of the wait, end of
  // the wait (= begin of the work), end of the work, done (after the signal).
  // A failed record leaves the step without a timing; the step itself goes on.
  uint64_t beginStep(cudaStream_t stream) {
    const uint64_t sequence = nextSequence_++;
    Slot& slot = slotFor(sequence);
    slot.sequence = sequence;
    slot.anchor = currentAnchor_;
    slot.recorded = false;
    slot.ok = CUDA_CHECK(cudaEventRecord(slot.waitBegin, stream)) == cudaSuccess;
    return sequence;
  }
  void endWait(cudaStream_t stream) { record(slotFor(nextSequence_ - 1).waitEnd, stream); }
  void endWork(cudaStream_t stream) { record(slotFor(nextSequence_ - 1).workEnd, stream); }
  void endStep(cudaStream_t stream) {
    Slot& slot = slotFor(nextSequence_ - 1);
    record(slot.done, stream);
    slot.recorded = slot.ok;
  }

  // Whether everything the last step enqueued on `stream` has completed;
  // never blocks. Normally its done event says so. Before any step (the
  // initial write, whose simDone signal render 0 waits on) and when a record
  // of the step failed, there is no event to trust, and an unrecorded event
  // would report complete at once while the step's copy or signal may still
  // be queued: the stream itself is asked instead (idle means done). An error
  // from either query means the context can run nothing more: complete.
  bool lastStepComplete(cudaStream_t stream) const {
    if (nextSequence_ > 0) {
      const Slot& slot = slotFor(nextSequence_ - 1);
      if (slot.recorded) return isComplete(cudaEventQuery(slot.done));
    }
    return isComplete(cudaStreamQuery(stream));
  }

  // The oldest untaken step whose events have all completed; never blocks.
  bool take(StepTiming* timing) {
    if (nextSequence_ - nextToTake_ > kSlots) nextToTake_ = nextSequence_ - kSlots;  // overwritten: dropped
    while (nextToTake_ < nextSequence_) {
      const Slot& slot = slotFor(nextToTake_);
      if (!slot.recorded || slot.sequence != nextToTake_) {
        ++nextToTake_;  // a step without a timing: skip it
        continue;
      }
      const cudaError_t result = cudaEventQuery(slot.done);
      if (result == cudaErrorNotReady) return false;  // in order: later steps wait too
      ++nextToTake_;
      if (CUDA_CHECK(result) != cudaSuccess) continue;
      int64_t waitBegin = 0, waitEnd = 0, workEnd = 0;
      if (!toHost(slot, slot.waitBegin, &waitBegin) || !toHost(slot, slot.waitEnd, &waitEnd) ||
          !toHost(slot, slot.workEnd, &workEnd))
        continue;
      *timing = StepTiming{slot.sequence, waitBegin, waitEnd, waitEnd, workEnd};
      return true;
    }
    return false;
  }

 private:
  static constexpr int64_t kReanchorAfterNs = 1'000'000'000;
  // How long the host spins to see an anchor complete, and the widest window
  // (record to seen complete) that a re-anchor accepts. An idle stream's
  // event completes within microseconds; one that took longer may have
  // waited behind other work on the GPU (Vulkan's, in another context), and
  // its timestamp is then no longer near the host's.
  static constexpr int64_t kInitialAnchorBudgetNs = 5'000'000;
  static constexpr int64_t kReanchorBudgetNs = 100'000;
  static constexpr int64_t kReanchorAcceptNs = 30'000;

  struct Slot {
    cudaEvent_t waitBegin = nullptr, waitEnd = nullptr, workEnd = nullptr, done = nullptr;
    uint64_t sequence = 0;
    uint32_t anchor = 0;
    bool ok = false;        // every record so far succeeded
    bool recorded = false;  // the step's four records were all enqueued
  };

  // cudaErrorNotReady is the expected "still running", not a failure.
  static bool isComplete(cudaError_t query) {
    if (query == cudaErrorNotReady) return false;
    CUDA_CHECK(query);
    return true;
  }

  Slot& slotFor(uint64_t sequence) { return slots_[sequence % kSlots]; }
  const Slot& slotFor(uint64_t sequence) const { return slots_[sequence % kSlots]; }

  void record(cudaEvent_t event, cudaStream_t stream) {
    Slot& slot = slotFor(nextSequence_ - 1);
    if (slot.ok) slot.ok = CUDA_CHECK(cudaEventRecord(event, stream)) == cudaSuccess;
  }

  // The GPU timestamps the anchor somewhere between the host's record call
  // and the moment the host sees it complete: the host spins (at most
  // budgetNs) to bound that window, and takes its middle, so the placement's
  // uncertainty is half the window (docs/captures.md). A window wider than
  // acceptNs, or an anchor not seen complete, leaves the current anchor in use.
  bool recordAnchor(uint32_t index, cudaStream_t stream, int64_t budgetNs, int64_t acceptNs) {
    const int64_t recorded = hostNowNs();
    if (CUDA_CHECK(cudaEventRecord(anchors_[index], stream)) != cudaSuccess) return false;
    for (;;) {
      const cudaError_t result = cudaEventQuery(anchors_[index]);
      const int64_t now = hostNowNs();
      if (result == cudaSuccess) {
        if (now - recorded > acceptNs) return false;
        anchorHostNs_[index] = recorded + (now - recorded) / 2;
        currentAnchor_ = index;
        return true;
      }
      if (result != cudaErrorNotReady) {
        CUDA_CHECK(result);
        return false;
      }
      if (now - recorded > budgetNs) return false;
    }
  }

  bool toHost(const Slot& slot, cudaEvent_t event, int64_t* hostNs) const {
    float milliseconds = 0.0f;
    if (CUDA_CHECK(cudaEventElapsedTime(&milliseconds, anchors_[slot.anchor], event)) != cudaSuccess)
      return false;
    *hostNs = anchorHostNs_[slot.anchor] + int64_t(double(milliseconds) * 1.0e6);
    return true;
  }

  std::array<Slot, kSlots> slots_{};
  std::array<cudaEvent_t, 2> anchors_{};
  std::array<int64_t, 2> anchorHostNs_{};  // host time of each anchor's timestamp (the window's middle)
  int64_t lastAnchorAttemptNs_ = 0;
  uint32_t currentAnchor_ = 0;
  uint64_t nextSequence_ = 0;  // sequence of the next beginStep
  uint64_t nextToTake_ = 0;    // oldest sequence not yet taken
};

}  // namespace vksim
