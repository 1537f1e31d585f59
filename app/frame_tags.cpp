#include "app/frame_tags.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "app/app.h"
#include "renderer/vk_check.h"
#include "shaders/shared_layout.h"

namespace vksim {
namespace {

// Where the tag lives: the first vertex's normal.w (float index 7 of the
// 32-byte vertex). The shaders read normal.xyz only, so images are unchanged.
constexpr size_t kTagFloatIndex = size_t(kNormalOffset) / sizeof(float) + 3;
static_assert(sizeof(Vertex) == kVertexStride && kTagFloatIndex == 7);

// Bound of the waits that have no caller-given timeout here.
constexpr uint64_t kTagWaitTimeoutNs = kWaitTimeoutNs;

// The host semaphore operations the worker uses, around the renderer's own
// (VulkanHostSemaphores). The waits are the renderer's. The signals are not
// made from the host after the writes, for two reasons:
//  - a binary wait may only be submitted after its signal
//    (VUID-vkQueueSubmit-pWaitSemaphores-03238). A simDone signal submitted
//    after the writes would make the frame loop wait for the writes before it
//    submits render k+1, and the render's wait would decide nothing again;
//  - a timeline value signalled from the host (vkSignalSemaphore) while a
//    queue wait on it is pending stalls this Debian's validation layer
//    (1.3.239) for 10 s with a "state timeout" it reports as its own bug,
//    fixed upstream in Vulkan-ValidationLayers pull request 8519.
// So, as CUDA enqueues its signal on its stream behind its kernels, the
// worker submits the step's signal (timeline 2k+2 or simDone) as soon as its
// own wait has returned, in a batch whose command buffer first waits on a
// VkEvent; after the writes (and the tag) the host sets the event, and the
// batch signals. The signal is submitted early and happens after the writes.
class GatedHostOps final : public HostSemaphoreOps {
 public:
  GatedHostOps(const Device& device, const SyncSemaphores& semaphores, HostSemaphoreOps& real, float* tagSlot)
      : device_(device), semaphores_(semaphores), real_(real), tagSlot_(tagSlot) {
    VkEventCreateInfo eventInfo{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};  // unset
    VK_CHECK(vkCreateEvent(device_.device, &eventInfo, nullptr, &event_));
    VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fenceInfo.flags = VK_FENCE_CREATE_SIGNALED_BIT;  // no gated batch outstanding yet
    VK_CHECK(vkCreateFence(device_.device, &fenceInfo, nullptr, &fence_));
    // A pool of its own: command pools are externally synchronised, and the
    // frame loop's thread uses device.commandPool.
    VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    poolInfo.queueFamilyIndex = device_.queueFamily;
    VK_CHECK(vkCreateCommandPool(device_.device, &poolInfo, nullptr, &pool_));
    VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    allocate.commandPool = pool_;
    allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    allocate.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(device_.device, &allocate, &gate_));
    // Recorded once, submitted every step (never while pending: the fence).
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(gate_, &begin));
    // An event set by the host after the submission may be waited on outside
    // a render pass (VUID-vkCmdWaitEvents-pEvents-01163), with HOST in the
    // source stages (VUID-vkCmdWaitEvents-srcStageMask-01158). The barrier
    // makes the worker's host writes available to the device and visible to
    // what comes later in submission order, render k+1 included, which its
    // semaphore wait on this batch's signal then orders.
    VkMemoryBarrier hostWrites{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    hostWrites.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT;
    hostWrites.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT;
    vkCmdWaitEvents(gate_, 1, &event_, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 1,
                    &hostWrites, 0, nullptr, 0, nullptr);
    VK_CHECK(vkEndCommandBuffer(gate_));
  }

  ~GatedHostOps() override {
    // A batch still waiting for the event (a step that failed between its
    // wait and its signal) is let through, so that nothing is pending on
    // objects about to be destroyed (VUID-vkDestroyEvent-event-01145,
    // VUID-vkDestroyFence-fence-01120). Its signal then has no waiter; that
    // happens only on a failed run, which tears everything down.
    if (pending_) vkSetEvent(device_.device, event_);
    if (!waitForFence(device_, fence_, kTagWaitTimeoutNs)) {
      std::fprintf(stderr, "vkcuda-sim: the frame-tag signal batch never completed; its objects leak\n");
      return;
    }
    vkDestroyCommandPool(device_.device, pool_, nullptr);
    vkDestroyFence(device_.device, fence_, nullptr);
    vkDestroyEvent(device_.device, event_, nullptr);
  }

  void setTagSource(const Simulation* simulation) { tagSource_ = simulation; }
  void setSignalSubmitted(std::function<void()> callback) { signalSubmitted_ = std::move(callback); }

  // The step about to run: its signal is submitted once its wait returns.
  void beginStep(const StepSync& sync) { step_ = sync; }

  // The tag of the state in the vertex memory now: its step count.
  void writeTag() { *tagSlot_ = float(tagSource_->stepCount()); }

  bool waitTimeline(uint64_t value, uint64_t timeoutNs) override {
    if (!real_.waitTimeline(value, timeoutNs)) return false;
    submitGatedSignal();
    return true;
  }

  bool waitRenderDone(uint64_t timeoutNs) override {
    if (!real_.waitRenderDone(timeoutNs)) return false;
    submitGatedSignal();
    return true;
  }

  void signalTimeline(uint64_t value) override {
    if (!pending_ || step_.mode != SyncMode::timeline || value != step_.signalValue)
      throw RuntimeFailure("frame tags: a timeline signal of " + std::to_string(value) + " that was not submitted");
    release();
  }

  void signalSimDone() override {
    if (!pending_ || step_.mode != SyncMode::binary)
      throw RuntimeFailure("frame tags: a simDone signal that was not submitted");
    release();
  }

 private:
  void submitGatedSignal() {
    // One gated batch at a time. The previous one has signalled (render k
    // waited for it before it signalled what this step just waited for); the
    // fence makes that certain before the event is reset and the command
    // buffer submitted again.
    if (!waitForFence(device_, fence_, kTagWaitTimeoutNs))
      throw RuntimeFailure("timeout: the previous frame-tag signal batch did not complete");
    VK_CHECK(vkResetFences(device_.device, 1, &fence_));
    VK_CHECK(vkResetEvent(device_.device, event_));
    // The timeline value only rises: 2k+2 is above every value signalled or
    // submitted so far (render k signalled 2k+1), and render k+1, which
    // signals 2k+3, is submitted after this batch.
    const SemaphoreSignal signal = step_.mode == SyncMode::timeline
                                       ? SemaphoreSignal{semaphores_.timeline, step_.signalValue}
                                       : SemaphoreSignal{semaphores_.simDone, 0};
    VkCommandBuffer commandBuffer = gate_;
    submitToQueue(device_, commandBuffer, {}, {&signal, 1}, fence_);
    pending_ = true;
    if (signalSubmitted_) signalSubmitted_();
  }

  void release() {
    writeTag();
    VK_CHECK(vkSetEvent(device_.device, event_));
    pending_ = false;
  }

  const Device& device_;
  const SyncSemaphores& semaphores_;
  HostSemaphoreOps& real_;
  float* tagSlot_;
  const Simulation* tagSource_ = nullptr;
  std::function<void()> signalSubmitted_;
  StepSync step_;
  VkEvent event_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer gate_ = VK_NULL_HANDLE;
  bool pending_ = false;  // a signal batch submitted whose event is not set yet
};

// The CPU simulation, stepping on a worker thread. step() hands the step over
// and returns once the step's wait has returned and its signal has been
// submitted (as the CUDA backend's step() returns after enqueuing its
// signal); the writes and the release of the signal happen on the worker. One step at a time: step() first waits (bounded)
// for the previous one. Every call comes from the frame loop's thread.
class WorkerSimulation final : public Simulation {
 public:
  WorkerSimulation(std::unique_ptr<GatedHostOps> ops, std::unique_ptr<Simulation> inner)
      : ops_(std::move(ops)), inner_(std::move(inner)) {
    ops_->setTagSource(inner_.get());
    ops_->setSignalSubmitted([this] {
      std::lock_guard lock(mutex_);
      signalSubmitted_ = true;
      changed_.notify_all();
    });
    worker_ = std::thread([this] { work(); });
  }

  ~WorkerSimulation() override {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
      changed_.notify_all();
    }
    worker_.join();  // a step in progress ends within its own bounded waits
    inner_.reset();  // before the operations it calls
    ops_.reset();
  }

  void writeInitialState() override {
    if (!waitIdle(kTagWaitTimeoutNs)) throw RuntimeFailure("timeout: the simulation worker did not finish its step");
    inner_->writeInitialState();
    ops_->writeTag();
    stepCount_ = 0;
    lastStatus_ = StepStatus::ok;
  }

  StepStatus step(const StepSync& sync, bool advance, uint64_t timeoutNs) override {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, std::chrono::nanoseconds(timeoutNs), [&] { return !busy_; }))
      return StepStatus::timeout;
    if (lastStatus_ != StepStatus::ok) return lastStatus_;
    request_ = Request{sync, advance, timeoutNs};
    busy_ = true;
    signalSubmitted_ = false;
    changed_.notify_all();
    // The frame loop submits render k+1, which waits on this step's signal,
    // right after this returns: the signal's batch must come first (a binary
    // wait after its signal; a timeline wait ahead of its signal on the one
    // queue would stall an in-order queue).
    if (!changed_.wait_for(lock, std::chrono::nanoseconds(timeoutNs), [&] { return signalSubmitted_ || !busy_; }))
      return StepStatus::timeout;
    if (!busy_ && lastStatus_ != StepStatus::ok) return lastStatus_;
    return StepStatus::ok;
  }

  void setParams(const ModelParams& params) override {
    if (waitIdle(kTagWaitTimeoutNs))
      inner_->setParams(params);
    else
      std::fprintf(stderr, "vkcuda-sim: the simulation worker is busy; parameter change dropped\n");
  }
  const ModelParams& params() const override { return inner_->params(); }  // written on this thread only

  void addDrop(const Drop& drop) override {
    if (waitIdle(kTagWaitTimeoutNs)) inner_->addDrop(drop);
  }

  uint64_t stepCount() const override { return stepCount_.load(); }

  bool finish(uint64_t timeoutNs) override { return waitIdle(timeoutNs) && inner_->finish(timeoutNs); }

  std::string backendName() const override { return "cpu"; }
  std::string deviceName() const override { return "host (worker thread, frame tags)"; }

  bool isStepComplete() override {
    std::lock_guard lock(mutex_);
    return !busy_;
  }

  bool takeStepTiming(StepTiming* timing) override {
    // The worker appends timings while it steps; between steps nothing else
    // touches them, and only this thread starts the next step.
    std::lock_guard lock(mutex_);
    return !busy_ && inner_->takeStepTiming(timing);
  }

 private:
  struct Request {
    StepSync sync;
    bool advance = true;
    uint64_t timeoutNs = 0;
  };

  bool waitIdle(uint64_t timeoutNs) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::nanoseconds(timeoutNs), [&] { return !busy_; });
  }

  void work() {
    for (;;) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || request_.has_value(); });
      if (!request_) return;  // stopping, nothing left to do
      const Request request = *request_;
      request_.reset();
      lock.unlock();
      StepStatus status = StepStatus::failed;
      try {
        ops_->beginStep(request.sync);
        status = inner_->step(request.sync, request.advance, request.timeoutNs);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "vkcuda-sim: simulation worker: %s\n", error.what());
      }
      stepCount_ = inner_->stepCount();
      lock.lock();
      lastStatus_ = status;
      busy_ = false;
      changed_.notify_all();
    }
  }

  std::unique_ptr<GatedHostOps> ops_;
  std::unique_ptr<Simulation> inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Request> request_;  // handed over, not yet taken by the worker
  bool busy_ = false;               // a step handed over and not finished
  bool signalSubmitted_ = false;    // the current step's simDone signal is submitted
  bool stop_ = false;
  StepStatus lastStatus_ = StepStatus::ok;
  std::atomic<uint64_t> stepCount_{0};
  std::thread worker_;
};

}  // namespace

std::unique_ptr<Simulation> createFrameTagSimulation(App& app, const ModelParams& params) {
  SharedState& shared = app.shared;
  shared.hostOps = std::make_unique<VulkanHostSemaphores>(app.device, shared.semaphores);
  shared.frameTagResult = createGpuBuffer(app.device, sizeof(Vertex), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  float* tagSlot = static_cast<float*>(shared.vertices.mapped) + kTagFloatIndex;
  auto ops = std::make_unique<GatedHostOps>(app.device, shared.semaphores, *shared.hostOps, tagSlot);
  std::unique_ptr<Simulation> inner = createCpuSimulation(params, shared.vertices.mapped, *ops);
  if (!inner) return nullptr;
  return std::make_unique<WorkerSimulation>(std::move(ops), std::move(inner));
}

VkPipelineStageFlags frameTagWaitStages(const App& app) {
  return app.options.frameTags ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0;
}

void recordFrameTagCopy(App& app, VkCommandBuffer commandBuffer) {
  if (!app.options.frameTags) return;
  // The worker's writes reach this render through its signal batch (the
  // event wait's HOST_WRITE barrier) and the render's semaphore wait, which
  // covers TRANSFER for this copy. This barrier orders the copy after the
  // previous frame's copy into the same result bytes (write after write).
  VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  before.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  before.dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before,
                       0, nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, sizeof(Vertex)};
  vkCmdCopyBuffer(commandBuffer, app.shared.vertices.buffer, app.shared.frameTagResult.buffer, 1, &region);
  // The host reads the result after the fence: the fence alone does not make
  // device writes visible to the host.
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0,
                       nullptr, 0, nullptr);
  app.shared.frameTagRender = app.schedule.totalFrames;
}

void readFrameTag(App& app) {
  SharedState& shared = app.shared;
  if (!shared.frameTagRender) return;
  const uint64_t frame = *shared.frameTagRender;
  shared.frameTagRender.reset();
  const float tag = static_cast<const float*>(shared.frameTagResult.mapped)[kTagFloatIndex];
  for (auto event = app.scheduleLog.events.rbegin(); event != app.scheduleLog.events.rend(); ++event)
    if (event->side == ScheduleSide::render && event->frame == frame) {
      event->sawTag = uint64_t(tag);
      break;
    }
}

}  // namespace vksim
