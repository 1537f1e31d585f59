#include "sim/vulkan/queue_simulation_base.h"

#include <algorithm>

#include "base/config.h"

namespace vksim {
namespace {

uint32_t findMemoryType(const VkPhysicalDeviceMemoryProperties& memory, uint32_t typeBits,
                        VkMemoryPropertyFlags required) {
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
    if ((typeBits & (1u << i)) && (memory.memoryTypes[i].propertyFlags & required) == required) return i;
  return UINT32_MAX;
}

}  // namespace

Result<QueueBuffer> createQueueBuffer(const RenderQueueContext& context, VkDeviceSize size, VkBufferUsageFlags usage,
                                      VkMemoryPropertyFlags properties, bool deviceAddress) {
  QueueBuffer result;
  result.size = size;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.size = size;
  bufferInfo.usage = usage | (deviceAddress ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (vkCreateBuffer(context.device, &bufferInfo, nullptr, &result.buffer) != VK_SUCCESS)
    return fail("could not create a buffer of " + std::to_string(size) + " bytes", kExitEnvironment);
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(context.device, result.buffer, &requirements);
  const uint32_t type = findMemoryType(context.memoryProperties, requirements.memoryTypeBits, properties);
  if (type == UINT32_MAX) {
    destroyQueueBuffer(context.device, result);
    return fail("no memory type fits the simulation's buffers", kExitEnvironment);
  }
  // A buffer whose address a shader or kernel uses must be bound to memory
  // allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
  // (VUID-vkBindBufferMemory-bufferDeviceAddress-03339).
  VkMemoryAllocateFlagsInfo flagsInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flagsInfo.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.pNext = deviceAddress ? &flagsInfo : nullptr;
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = type;
  if (vkAllocateMemory(context.device, &allocateInfo, nullptr, &result.memory) != VK_SUCCESS ||
      vkBindBufferMemory(context.device, result.buffer, result.memory, 0) != VK_SUCCESS) {
    destroyQueueBuffer(context.device, result);
    return fail("could not allocate " + std::to_string(requirements.size) + " bytes for the simulation",
                kExitEnvironment);
  }
  if ((properties & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
      vkMapMemory(context.device, result.memory, 0, VK_WHOLE_SIZE, 0, &result.mapped) != VK_SUCCESS) {
    destroyQueueBuffer(context.device, result);
    return fail("could not map the simulation's host-visible buffer", kExitEnvironment);
  }
  if (deviceAddress) {
    VkBufferDeviceAddressInfo addressInfo{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    addressInfo.buffer = result.buffer;
    result.address = vkGetBufferDeviceAddress(context.device, &addressInfo);
  }
  return result;
}

void destroyQueueBuffer(VkDevice device, QueueBuffer& buffer) {
  if (buffer.buffer) vkDestroyBuffer(device, buffer.buffer, nullptr);
  if (buffer.memory) vkFreeMemory(device, buffer.memory, nullptr);  // unmaps too
  buffer = QueueBuffer{};
}

QueueSimulationBase::QueueSimulationBase(const ModelParams& params, const RenderQueueContext& context,
                                         bool deviceAddress)
    : context_(context), params_(clampModelParams(params)), deviceName_(context.deviceName) {
  if (params_.grid < kMinGrid || params_.grid > kMaxGrid) {
    setError("grid " + std::to_string(params_.grid) + " is outside the supported range");
    return;
  }
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  poolInfo.queueFamilyIndex = context.queueFamily;  // recorded for the render's own queue
  VkCommandBufferAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocateInfo.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocateInfo.commandBufferCount = uint32_t(commandBuffers_.size());
  if (vkCreateCommandPool(context.device, &poolInfo, nullptr, &pool_) != VK_SUCCESS ||
      (allocateInfo.commandPool = pool_,
       vkAllocateCommandBuffers(context.device, &allocateInfo, commandBuffers_.data()) != VK_SUCCESS)) {
    setError("could not create the simulation's command buffer");
    return;
  }
  if (context.timestamps) {
    VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
    queryInfo.queryCount = 2 * kMaxFramesInFlight;
    if (vkCreateQueryPool(context.device, &queryInfo, nullptr, &queries_) != VK_SUCCESS) queries_ = VK_NULL_HANDLE;
  }
  if (params_.model == ModelKind::ripple) {
    fieldBytes_ = VkDeviceSize(params_.grid) * params_.grid * sizeof(float);
    Result<QueueBuffer> heights =
        createQueueBuffer(context, 3 * fieldBytes_, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, deviceAddress);
    if (!heights) {
      setError(heights.error().message);
      return;
    }
    heights_ = *heights;
  }
  if (context.textureImage) {
    Result<SurfaceTextureWriter> texture = createSurfaceTextureWriter(
        context.device, context.vertexBuffer, context.vertexBytes,
        QueueTextureTarget{context.textureImage, params_.grid, context.textureLevels});
    if (!texture) {
      setError(texture.error().message);
      return;
    }
    texture_ = *texture;
  }
}

QueueSimulationBase::~QueueSimulationBase() {
  // The owner waited for the queue first (finish, then the device idle in
  // teardown): nothing recorded here is still pending.
  destroyQueueBuffer(context_.device, heights_);
  destroySurfaceTextureWriter(context_.device, texture_);
  if (queries_) vkDestroyQueryPool(context_.device, queries_, nullptr);
  if (pool_) vkDestroyCommandPool(context_.device, pool_, nullptr);  // frees commandBuffers_
}

void QueueSimulationBase::computeBarrier(VkCommandBuffer commandBuffer) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                       1, &barrier, 0, nullptr, 0, nullptr);
}

StepResult QueueSimulationBase::writeInitialState() {
  StepResult result;
  result.status = StepStatus::failed;
  stepCount_ = 0;
  sequence_ = 0;
  timedSequences_.clear();
  queued_.clear();
  current_ = 0, previous_ = 1, next_ = 2;
  // Slot 0's command buffer; the wait below leaves both slots free for frame 0.
  VkCommandBuffer commandBuffer = commandBuffers_[0];
  VkCommandBufferBeginInfo beginInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  if (vkResetCommandBuffer(commandBuffer, 0) != VK_SUCCESS ||
      vkBeginCommandBuffer(commandBuffer, &beginInfo) != VK_SUCCESS)
    return result;
  if (params_.model == ModelKind::ripple) {
    // Flat fields, then the initial drop (at rest: added to both), then the
    // vertices: the order of RippleModel::reset and of the CUDA backend.
    vkCmdFillBuffer(commandBuffer, heights_.buffer, 0, VK_WHOLE_SIZE, 0);
    VkMemoryBarrier filled{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    filled.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    filled.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                         &filled, 0, nullptr, 0, nullptr);
    recordDrops(commandBuffer, {makeDropShape(initialDrop(params_), params_.grid)}, current_, previous_);
    computeBarrier(commandBuffer);
    recordRippleVertices(commandBuffer, current_);
  } else {
    recordSinewave(commandBuffer, sinewaveFrame(params_, 0));
  }
  recordTexture(commandBuffer);  // render 0 samples the initial state's texture
  // No barrier towards the render here: render 0's wait on simDone is at
  // VERTEX_INPUT, and a semaphore signal makes every write of its batch
  // available and the wait visible to the stages it waits at (the
  // synchronization chapter's semaphore signal and wait operations).
  if (vkEndCommandBuffer(commandBuffer) != VK_SUCCESS) return result;
  context_.submitInitialWrite(commandBuffer);
  result.signalEnqueued = true;
  // The command buffer is recorded again for frame 0: it must have completed.
  // Bounded: only compute work and a signal are queued, no wait.
  if (!context_.waitForQueue(kDefaultWaitTimeoutNs)) return result;
  result.status = StepStatus::ok;
  return result;
}

void QueueSimulationBase::recordModelStep(VkCommandBuffer commandBuffer) {
  ++stepCount_;
  if (params_.model == ModelKind::sinewave) {
    recordSinewave(commandBuffer, sinewaveFrame(params_, stepCount_));
    return;
  }
  const std::vector<Drop> drops = stepDrops(params_, stepCount_, queued_);
  queued_.clear();
  if (!drops.empty()) {
    std::vector<DropShape> shapes;
    for (const Drop& drop : drops) shapes.push_back(makeDropShape(drop, params_.grid));
    recordDrops(commandBuffer, shapes, current_, previous_);
    computeBarrier(commandBuffer);
  }
  recordRippleStep(commandBuffer, current_, previous_, next_, rippleCoefficients(params_));
  // previous <- current <- next: which field is which is host bookkeeping,
  // ordered with the commands by the queue.
  const uint32_t oldPrevious = previous_;
  previous_ = current_;
  current_ = next_;
  next_ = oldPrevious;
}

// The texels are part of the step, as the CUDA backend's are: after the
// vertices, in the same command buffer, inside the step's timestamps.
void QueueSimulationBase::recordTexture(VkCommandBuffer commandBuffer) {
  if (texture_.target.image) recordSurfaceTextureWrite(commandBuffer, texture_);
}

void QueueSimulationBase::recordLevelsBelowStep(VkCommandBuffer commandBuffer, uint32_t firstLevel) {
  recordSurfaceTextureLevels(commandBuffer, texture_, firstLevel);
}

RecordedStep QueueSimulationBase::recordStep(const StepSync& sync, bool advance) {
  RecordedStep recorded;
  VkCommandBufferBeginInfo beginInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  beginInfo.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  // The slot's last submission was frame k - kMaxFramesInFlight's (or an
  // earlier one), whose fence the frame loop has waited for (the fence covers
  // both batches of one vkQueueSubmit): it is not pending and may be reset.
  const uint32_t slot = recordingSlot();
  VkCommandBuffer commandBuffer = commandBuffers_[slot];
  if (vkResetCommandBuffer(commandBuffer, 0) != VK_SUCCESS ||
      vkBeginCommandBuffer(commandBuffer, &beginInfo) != VK_SUCCESS)
    return recorded;
  if (queries_) {
    vkCmdResetQueryPool(commandBuffer, queries_, 2 * slot, 2);
    vkCmdWriteTimestamp(commandBuffer, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 2 * slot);
  }
  // Write after read: the vertices and the fields may be overwritten only
  // once the render's vertex input and the previous step's shaders are done
  // with them. The semaphore wait of this batch already orders that; the
  // barrier states it inside the command buffer, where synchronization
  // validation checks it (a barrier's first scope reaches earlier
  // submissions on the same queue).
  VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  before.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &before, 0, nullptr, 0, nullptr);
  // As the CUDA backend: a paused step (advance = false) writes nothing.
  if (advance) {
    // A ripple step that writes the first levels itself needs the image
    // writable before it runs; the levels below follow it.
    const uint32_t stepLevels = texture_.target.image && params_.model == ModelKind::ripple
                                    ? std::min(rippleStepTexelLevels(), texture_.target.levels)
                                    : 0;
    if (stepLevels > 0) recordSurfaceTextureBegin(commandBuffer, texture_);
    recordModelStep(commandBuffer);
    if (stepLevels > 0) {
      recordLevelsBelowStep(commandBuffer, stepLevels);
      recordSurfaceTextureEnd(commandBuffer, texture_);
    } else {
      recordTexture(commandBuffer);
    }
  }
  // Read after write: the next render's vertex input reads what the shaders
  // or kernels wrote.
  VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT;
  vkCmdPipelineBarrier(commandBuffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0,
                       1, &after, 0, nullptr, 0, nullptr);
  if (queries_) vkCmdWriteTimestamp(commandBuffer, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 2 * slot + 1);
  if (vkEndCommandBuffer(commandBuffer) != VK_SUCCESS) return recorded;
  if (queries_) {
    // A slot's results not taken before it is recorded again are lost
    // (its queries were just reset): that step simply has no timing.
    while (!timedSequences_.empty() && sequence_ - timedSequences_.front() >= kMaxFramesInFlight)
      timedSequences_.pop_front();
    timedSequences_.push_back(sequence_);
  }
  ++sequence_;
  recorded.commandBuffer = commandBuffer;
  recorded.signals = sync.fault != StepFault::skipSignal;
  return recorded;
}

bool QueueSimulationBase::finish(uint64_t timeoutNs) { return context_.waitForQueue(timeoutNs); }

bool QueueSimulationBase::takeStepTiming(StepTiming* timing) {
  if (timedSequences_.empty() || !queries_) return false;
  // Steps complete in queue order: the oldest untaken one first.
  const uint64_t sequence = timedSequences_.front();
  const uint32_t slot = uint32_t(sequence % kMaxFramesInFlight);
  std::array<uint64_t, 4> values{};  // begin, its availability, end, its availability
  const VkResult result =
      vkGetQueryPoolResults(context_.device, queries_, 2 * slot, 2, sizeof(values), values.data(),
                            2 * sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  if ((result != VK_SUCCESS && result != VK_NOT_READY) || values[1] == 0 || values[3] == 0) return false;
  timedSequences_.pop_front();
  const std::optional<int64_t> begin = context_.ticksToHostNs(values[0]);
  const std::optional<int64_t> end = context_.ticksToHostNs(values[2]);
  if (!begin || !end) return false;
  timing->sequence = sequence;
  // The batch's wait on the render is inside the queue, not measured apart.
  timing->waitBeginNs = timing->waitEndNs = timing->workBeginNs = *begin;
  timing->workEndNs = *end;
  return true;
}

}  // namespace vksim
