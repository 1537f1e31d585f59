#include "app/testing/frame_tags.h"

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

#include "app/interop/value_schedule.h"
#include "renderer/vk_check.h"
#include "shaders/shared_layout.h"

namespace vksim {
namespace {

// Where the tag lives: the first vertex's normal.w (float index 7 of the
// 32-byte vertex). The shaders read normal.xyz only, so images are unchanged.
constexpr size_t kTagFloatIndex = size_t(kNormalOffset) / sizeof(float) + 3;
static_assert(sizeof(Vertex) == kVertexStride && kTagFloatIndex == 7);

// How long a timeline step's worker lets render k+1 run before it writes
// (WorkerSimulation::waitUntilNextSubmission): long enough for lavapipe to
// start a render that has nothing to wait for, short enough to cost a
// 200-frame run about half a second.
constexpr std::chrono::milliseconds kWrongWaitHeadStart{5};

// The host semaphore operations the worker uses: the renderer's own
// (VulkanHostSemaphores), with the tag of the state just written put into
// the first vertex before each signal (the writes are complete, the signal
// not yet made).
//
// Timeline: the worker signals 2k+2 from the host (vkSignalSemaphore) after
// its writes, while render k+1, submitted meanwhile, waits for it on the
// queue: that wait is what keeps the render after the writes.
// Binary: a binary wait may only be submitted after its signal
// (VUID-vkQueueSubmit-pWaitSemaphores-03238), and the host can only signal
// simDone by a submission after its writes, so the frame loop must wait for
// that submission before it submits render k+1; the render's wait then
// decides nothing. (A signal submitted earlier in a batch held back on the
// queue, by an event or a host-signalled timeline value, changes nothing on
// an in-order queue such as lavapipe's single one: the render queued behind
// that batch waits for it anyway.)
class TaggingHostOps final : public HostSemaphoreOps {
 public:
  TaggingHostOps(HostSemaphoreOps& real, float* tagSlot) : real_(real), tagSlot_(tagSlot) {}

  void setTagSource(const Simulation* simulation) { tagSource_ = simulation; }
  void setSignalSubmitted(std::function<void()> callback) { signalSubmitted_ = std::move(callback); }
  void setBeforeWrites(std::function<void()> callback) { beforeWrites_ = std::move(callback); }

  // The tag of the state in the vertex memory now: its step count.
  void writeTag() { *tagSlot_ = float(tagSource_->stepCount()); }

  // The CPU step writes right after its wait returns.
  bool waitTimeline(uint64_t value, uint64_t timeoutNs) override {
    if (!real_.waitTimeline(value, timeoutNs)) return false;
    if (beforeWrites_) beforeWrites_();
    return true;
  }
  bool waitRenderDone(uint64_t timeoutNs) override { return real_.waitRenderDone(timeoutNs); }

  void signalTimeline(uint64_t value) override {
    writeTag();
    // Render k+1 may have been submitted before these writes, so the host
    // write ordering of vkQueueSubmit does not cover them: its command
    // buffer starts with a HOST_WRITE barrier (recordFrameTagCopy), which
    // its wait on this value puts after them.
    real_.signalTimeline(value);
  }

  void signalSimDone() override {
    writeTag();
    real_.signalSimDone();  // a submission: it makes the writes before it visible
    if (signalSubmitted_) signalSubmitted_();
  }

 private:
  HostSemaphoreOps& real_;
  float* tagSlot_;
  const Simulation* tagSource_ = nullptr;
  std::function<void()> signalSubmitted_;
  std::function<void()> beforeWrites_;
};

// The CPU simulation, stepping on a worker thread. step() hands the step over
// and returns: at once in timeline mode, as the CUDA backend's step() returns
// once its work is enqueued; in binary mode once simDone's signal has been
// submitted (after the writes, see above). One step at a time: step() first
// waits (bounded) for the previous one. Every call comes from the frame
// loop's thread.
class WorkerSimulation final : public Simulation {
 public:
  // waitForNextSubmission: a timeline step writes only once render k+1, which
  // waits for its signal, has been submitted (waitUntilNextSubmission).
  // timeoutNs bounds the waits that have no caller-given timeout.
  WorkerSimulation(std::unique_ptr<TaggingHostOps> ops, std::unique_ptr<Simulation> inner,
                   bool waitForNextSubmission, uint64_t timeoutNs)
      : ops_(std::move(ops)),
        inner_(std::move(inner)),
        waitForNextSubmission_(waitForNextSubmission),
        timeoutNs_(timeoutNs) {
    ops_->setBeforeWrites([this] { waitUntilNextSubmission(); });
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

  // On this thread: the tag (0) goes in before the write's simDone signal.
  StepResult writeInitialState() override {
    if (!waitIdle(timeoutNs_)) throw RuntimeFailure("timeout: the simulation worker did not finish its step");
    const StepResult result = inner_->writeInitialState();
    stepCount_ = 0;
    std::lock_guard lock(mutex_);
    lastResult_ = StepResult{};
    stepsHandedOver_ = 0;
    waitsSubmitted_ = 0;
    draining_ = false;
    return result;
  }

  // The frame loop has submitted a render, which waits on the last step's
  // signal. Called on the frame loop's thread.
  void noteWaitSubmitted() {
    std::lock_guard lock(mutex_);
    ++waitsSubmitted_;
    changed_.notify_all();
  }

  // No render follows (the drain is next): the last step goes on at once.
  // True once it has finished, within timeoutNs.
  bool finishLastStep() {
    {
      std::lock_guard lock(mutex_);
      draining_ = true;
      changed_.notify_all();
    }
    return waitIdle(timeoutNs_);
  }

  // What is reported enqueued: a timeline step handed over will wait and
  // signal (as a CUDA step enqueued on its stream will); a binary step is
  // reported once its signal has been submitted, or as the worker ended it.
  // A step that failed on the worker fails the next call, with nothing of
  // that call enqueued.
  StepResult step(const StepSync& sync, bool advance, uint64_t timeoutNs) override {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, std::chrono::nanoseconds(timeoutNs), [&] { return !busy_; }))
      return StepResult{StepStatus::timeout, false, false};
    if (lastResult_.status != StepStatus::ok) return StepResult{lastResult_.status, false, false};
    request_ = Request{sync, advance, timeoutNs, stepsHandedOver_++};
    busy_ = true;
    signalSubmitted_ = false;
    changed_.notify_all();
    if (sync.mode == SyncMode::binary) {
      // The frame loop submits render k+1's wait on simDone right after this
      // returns: its signal must have been submitted first.
      if (!changed_.wait_for(lock, std::chrono::nanoseconds(timeoutNs), [&] { return signalSubmitted_ || !busy_; }))
        return StepResult{StepStatus::timeout, true, false};
      if (!busy_) return lastResult_;
    }
    return StepResult{StepStatus::ok, true, true};
  }

  void setParams(const ModelParams& params) override {
    if (waitIdle(timeoutNs_))
      inner_->setParams(params);
    else
      std::fprintf(stderr, "vkcuda-sim: the simulation worker is busy; parameter change dropped\n");
  }
  const ModelParams& params() const override { return inner_->params(); }  // written on this thread only

  void addDrop(const Drop& drop) override {
    if (waitIdle(timeoutNs_)) inner_->addDrop(drop);
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
    uint64_t sequence = 0;  // k: the step() calls before this one since writeInitialState
  };

  // Sim k's writes wait (bounded) until render k+1 has been submitted, and
  // then kWrongWaitHeadStart more, so that a render whose wait does not hold
  // it back has started, and read the older state, before the worker writes:
  // whether a wrong wait shows is then not left to which thread the
  // scheduler happens to wake first. A render that waits correctly cannot
  // start before the signal, whatever the delay: the delay can make a wrong
  // wait show, never a right one fail. Only timeline steps with the enqueue
  // strategy: in binary mode the frame loop waits for the step's signal
  // before it submits render k+1, and with poll it waits for the timeline
  // value first; either would never come.
  void waitUntilNextSubmission() {
    std::unique_lock lock(mutex_);
    if (!waitForNextSubmission_ || current_.sync.mode != SyncMode::timeline) return;
    // Renders 0..k were submitted before step k was handed over; render k+1
    // is the next submission (or, after the last frame, finishLastStep).
    const uint64_t wanted = current_.sequence + 2;
    const bool submitted = changed_.wait_for(lock, std::chrono::nanoseconds(current_.timeoutNs),
                                             [&] { return waitsSubmitted_ >= wanted || draining_ || stop_; });
    const bool headStart = submitted && waitsSubmitted_ >= wanted;
    lock.unlock();
    // On timeout the step goes on: a frame loop that submits nothing more
    // (a failed run) must still see the signal.
    if (headStart) std::this_thread::sleep_for(kWrongWaitHeadStart);
  }

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
      current_ = request;
      request_.reset();
      lock.unlock();
      StepResult result{StepStatus::failed, false, false};
      try {
        result = inner_->step(request.sync, request.advance, request.timeoutNs);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "vkcuda-sim: simulation worker: %s\n", error.what());
      }
      stepCount_ = inner_->stepCount();
      lock.lock();
      lastResult_ = result;
      busy_ = false;
      changed_.notify_all();
    }
  }

  std::unique_ptr<TaggingHostOps> ops_;
  std::unique_ptr<Simulation> inner_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<Request> request_;  // handed over, not yet taken by the worker
  Request current_;                 // the step the worker runs (or ran last)
  const bool waitForNextSubmission_;
  const uint64_t timeoutNs_;
  uint64_t stepsHandedOver_ = 0;    // step() calls since writeInitialState
  uint64_t waitsSubmitted_ = 0;     // renders submitted since writeInitialState
  bool draining_ = false;           // finishLastStep was called: no render follows
  bool busy_ = false;               // a step handed over and not finished
  bool signalSubmitted_ = false;    // the current step's simDone signal is submitted
  bool stop_ = false;
  StepResult lastResult_;  // of the step the worker finished last
  std::atomic<uint64_t> stepCount_{0};
  std::thread worker_;
};

}  // namespace

std::unique_ptr<Simulation> createFrameTagSimulation(const Device& device, FrameTags& tags, void* mappedVertices,
                                                     HostSemaphoreOps& hostOps, const ModelParams& params,
                                                     bool enqueueStrategy) {
  const uint64_t timeoutNs = kWaitTimeoutNs;
  tags.enabled = true;
  tags.result = createGpuBuffer(device, sizeof(Vertex), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  float* tagSlot = static_cast<float*>(mappedVertices) + kTagFloatIndex;
  auto ops = std::make_unique<TaggingHostOps>(hostOps, tagSlot);
  std::unique_ptr<Simulation> inner = createCpuSimulation(params, mappedVertices, *ops);
  if (!inner) return nullptr;
  return std::make_unique<WorkerSimulation>(std::move(ops), std::move(inner), enqueueStrategy, timeoutNs);
}

void destroyFrameTags(const Device& device, FrameTags& tags) {
  destroyGpuBuffer(device, tags.result);
  tags = FrameTags{};
}

void noteWaitSubmitted(const FrameTags& tags, Simulation& simulation) {
  if (!tags.enabled) return;
  static_cast<WorkerSimulation&>(simulation).noteWaitSubmitted();
}

void finishFrameTagStep(const FrameTags& tags, Simulation& simulation) {
  if (!tags.enabled) return;
  // The drain's wait on the last host-signalled timeline value is submitted
  // only once that value is reached. Submitted still pending, it meets a
  // bug of Debian 12's validation layer (1.3.239): a host signal of a value
  // that a queue wait already waits for, followed by a fence wait on that
  // queue, can stall the layer's queue tracking for 10 s and report
  // UNASSIGNED-VkFence-state-timeout / -VkSemaphore-state-timeout ("most
  // likely a validation bug"; fixed upstream by Vulkan-ValidationLayers pull
  // request 8519). The drain is no part of what the frame tags check.
  if (!static_cast<WorkerSimulation&>(simulation).finishLastStep())
    throw RuntimeFailure("timeout: the simulation worker did not finish its last step");
}

VkPipelineStageFlags frameTagWaitStages(const FrameTags& tags) {
  return tags.enabled ? VK_PIPELINE_STAGE_TRANSFER_BIT : 0;
}

void recordFrameTagCopy(FrameTags& tags, VkBuffer vertices, uint64_t frame, VkCommandBuffer commandBuffer) {
  if (!tags.enabled) return;
  // The worker may write the vertices after this submission, then signal
  // the value the render waits for (at TRANSFER and VERTEX_INPUT): HOST in
  // the source stages with HOST_WRITE makes those writes visible to the copy
  // and the vertex fetch. The barrier also orders the copy after the previous
  // frame's copy into the same result bytes (write after write).
  VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  before.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  before.dstAccessMask =
      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0, 1, &before, 0,
                       nullptr, 0, nullptr);
  const VkBufferCopy region{0, 0, sizeof(Vertex)};
  vkCmdCopyBuffer(commandBuffer, vertices, tags.result.buffer, 1, &region);
  // The host reads the result after the fence: the fence alone does not make
  // device writes visible to the host.
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0,
                       nullptr, 0, nullptr);
  tags.pendingRender = frame;
}

std::optional<SeenFrameTag> readFrameTag(FrameTags& tags) {
  if (!tags.pendingRender) return std::nullopt;
  const uint64_t frame = *tags.pendingRender;
  tags.pendingRender.reset();
  const float tag = static_cast<const float*>(tags.result.mapped)[kTagFloatIndex];
  return SeenFrameTag{frame, uint64_t(tag)};
}

void reportFrameTag(FrameTags& tags, const std::function<void(const SeenFrameTag& seen)>& seen) {
  if (const std::optional<SeenFrameTag> tag = readFrameTag(tags); tag && seen) seen(*tag);
}

}  // namespace vksim
