// The CPU backend: the reference models (models.h) run on the calling thread
// and write straight into the renderer's host-visible, coherent vertex memory.
// Its turn in the value schedule goes through HostSemaphoreOps, so it follows
// the same waits and signals as the CUDA backend without any CUDA.
#include <memory>
#include <optional>
#include <string>

#include "sim/models.h"
#include "sim/simulation.h"

namespace vksim {
namespace {

class CpuSimulation final : public Simulation {
 public:
  CpuSimulation(const ModelParams& params, Vertex* vertices, HostSemaphoreOps& hostOps)
      : params_(clampModelParams(params)), vertices_(vertices), hostOps_(hostOps) {
    if (params_.model == ModelKind::ripple) ripple_.emplace(params_);
  }

  void writeInitialState() override {
    stepCount_ = 0;
    if (ripple_) ripple_->reset();
    writeVertices();
  }

  StepStatus step(const StepSync& sync, bool advance, uint64_t timeoutNs) override {
    // The schedule: the vertices may only be written once the render that
    // reads them has finished (timeline value 2k+1, or renderDone's signal),
    // and the signal may only come once every write is done, since the render
    // that waits for it reads the buffer. A paused frame still takes its turn,
    // or the next render would wait for ever.
    const bool waited = sync.mode == SyncMode::timeline ? hostOps_.waitTimeline(sync.waitValue, timeoutNs)
                                                        : hostOps_.waitRenderDone(timeoutNs);
    if (!waited) return StepStatus::timeout;
    if (advance) {
      ++stepCount_;
      if (ripple_) ripple_->step();
      writeVertices();
    }
    if (sync.mode == SyncMode::timeline)
      hostOps_.signalTimeline(sync.signalValue);
    else
      hostOps_.signalSimDone();
    return StepStatus::ok;
  }

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
    if (ripple_)
      ripple_->writeVertices(vertices_);
    else
      writeSinewaveVertices(params_, stepCount_, vertices_);
  }

  ModelParams params_;
  Vertex* vertices_;
  HostSemaphoreOps& hostOps_;
  std::optional<RippleModel> ripple_;  // ripple only
  uint64_t stepCount_ = 0;
};

}  // namespace

std::unique_ptr<Simulation> createCpuSimulation(const ModelParams& params, void* mappedVertices,
                                                HostSemaphoreOps& hostOps) {
  if (!mappedVertices || params.grid < kMinGrid || params.grid > kMaxGrid) return nullptr;
  return std::make_unique<CpuSimulation>(params, static_cast<Vertex*>(mappedVertices), hostOps);
}

}  // namespace vksim
