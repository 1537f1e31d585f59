// The Vulkan compute backend: the models as GLSL compute shaders (sinewave.comp,
// ripple_drops.comp, ripple_step.comp, ripple_vertices.comp), recorded into
// the step's command buffer (QueueSimulationBase); the ripple step is
// ripple_step_rows.comp where the device's subgroups allow, else
// ripple_step.comp (subgroup_rows.h).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <span>
#include <string>

#include "sim/vulkan/compute_layout.h"
#include "sim/vulkan/compute_pipeline.h"
#include "sim/vulkan/compute_shaders.h"
#include "sim/vulkan/queue_simulation_base.h"
#include "sim/vulkan/subgroup_rows.h"

namespace vksim {
namespace {

constexpr uint32_t kInitialDropCapacity = 16;
// compute_common.glsl's DropEntry: a vec4 and a uvec4 (std430).
constexpr size_t kDropEntryBytes = 32;

// The ripple step's specialization constants: ripple_step_rows.comp's (ids
// 0 and 1) and, with the texture on, how many levels the step writes (id
// kComputeStepLevelsConstant). A map entry whose id a shader does not
// declare does nothing (the specialization rules), so both step shaders take
// all three.
struct StepConstants {
  SubgroupRowsConstants rows;
  uint32_t levels = 1;
};

// How many levels, from level 0, a ripple step workgroup covering `tile`
// cells writes itself (step_texel_levels.glsl): at most
// kComputeStepTexelLevels and the texture's `textureLevels`, and level L+1
// only where level L's tile halves evenly, so that every level's corner is
// even and each texel's four texels above are the workgroup's own. The rows
// step's tiles (8, 16 or 32 columns by 96, 48 or 24 rows) and the tile
// step's (32 x 32) give all four.
uint32_t stepTexelLevels(VkExtent2D tile, uint32_t textureLevels) {
  const uint32_t most = std::min(kComputeStepTexelLevels, textureLevels);
  uint32_t levels = 1;
  while (levels < most && tile.width % 2 == 0 && tile.height % 2 == 0) {
    tile = {tile.width / 2, tile.height / 2};
    ++levels;
  }
  return levels;
}

class VulkanComputeSimulation final : public QueueSimulationBase {
 public:
  VulkanComputeSimulation(const ModelParams& params, const RenderQueueContext& context)
      : QueueSimulationBase(params, context, /*deviceAddress=*/false) {
    if (ready()) create();
  }
  ~VulkanComputeSimulation() override {
    const VkDevice device = context_.device;
    for (VkPipeline pipeline : pipelines_)
      if (pipeline) vkDestroyPipeline(device, pipeline, nullptr);
    if (texelStep_) vkDestroyPipeline(device, texelStep_, nullptr);
    if (texelLayout_) vkDestroyPipelineLayout(device, texelLayout_, nullptr);
    if (texelPool_) vkDestroyDescriptorPool(device, texelPool_, nullptr);  // frees texelSet_
    if (texelSetLayout_) vkDestroyDescriptorSetLayout(device, texelSetLayout_, nullptr);
    if (layout_) vkDestroyPipelineLayout(device, layout_, nullptr);
    for (StepInputs& inputs : inputs_) {
      if (inputs.pool) vkDestroyDescriptorPool(device, inputs.pool, nullptr);  // frees the set
      destroyQueueBuffer(device, inputs.table);
      destroyQueueBuffer(device, inputs.drops);
    }
    if (setLayout_) vkDestroyDescriptorSetLayout(device, setLayout_, nullptr);
  }

  std::string failure() const { return error(); }
  std::string backendName() const override { return "vulkan"; }
  std::string pathDescription() const override {
    return "GLSL compute shaders, second batch of the render's vkQueueSubmit";
  }
  std::string startLine() const override { return startLine_; }

 protected:
  void recordSinewave(VkCommandBuffer commandBuffer, const SinewaveFrame& frame) override {
    // The factors with the reference's own sinf/cosf (sinewave.comp says why),
    // into this slot's table: the other slot's step may still be queued and
    // reads its own, and this slot's last step has completed (recordStep).
    // Host writes before vkQueueSubmit are visible to the submission.
    float* table = static_cast<float*>(inputs_[recordingSlot()].table.mapped);
    const uint32_t n = params_.grid;
    for (uint32_t i = 0; i < n; ++i) {
      table[n + i] = sinewaveFactorX(frame, i);
      table[2 * n + i] = sinewaveFactorZ(frame, i);
    }
    ComputePushConstants push = basePush();
    push.amplitude = frame.amplitude;
    dispatch(commandBuffer, kSinewave, push);
  }

  void recordDrops(VkCommandBuffer commandBuffer, const std::vector<DropShape>& drops, uint32_t current,
                   uint32_t previous) override {
    // One step's drops all go in one dispatch over the union of their
    // footprints, each cell adding them in order (RippleModel::applyDrop),
    // listed in this slot's buffer (as the sinewave's table); the buffer
    // grows when a step brings more.
    const CellRect cells = footprintUnion(drops.data(), drops.size());
    if (isEmpty(cells)) return;  // no cell changes
    const uint32_t slot = recordingSlot();
    if (drops.size() > inputs_[slot].dropCapacity) growDrops(slot, uint32_t(drops.size()));
    auto* out = static_cast<unsigned char*>(inputs_[slot].drops.mapped);
    for (size_t d = 0; d < drops.size(); ++d) {
      const float shape[4] = {drops[d].x, drops[d].z, drops[d].amplitude, drops[d].inverseTwoSigmaSquared};
      const uint32_t footprint[4] = {drops[d].cells.firstI, drops[d].cells.endI, drops[d].cells.firstJ,
                                     drops[d].cells.endJ};
      std::memcpy(out + kDropEntryBytes * d, shape, sizeof(shape));
      std::memcpy(out + kDropEntryBytes * d + sizeof(shape), footprint, sizeof(footprint));
    }
    ComputePushConstants push = basePush();
    push.dropCount = uint32_t(drops.size());
    push.currentField = current;
    push.previousField = previous;
    push.cellsFirstI = cells.firstI, push.cellsEndI = cells.endI;
    push.cellsFirstJ = cells.firstJ, push.cellsEndJ = cells.endJ;
    dispatch(commandBuffer, kRippleDrops, push, cells.endI - cells.firstI, cells.endJ - cells.firstJ);
  }

  void recordRippleStep(VkCommandBuffer commandBuffer, uint32_t current, uint32_t previous, uint32_t next,
                        const RippleCoefficients& coefficients) override {
    ComputePushConstants push = basePush();
    push.currentField = current;
    push.previousField = previous;
    push.nextField = next;
    push.courantSquared = coefficients.courantSquared;
    push.keepPrevious = coefficients.keepPrevious;
    push.inverseDenominator = coefficients.inverseDenominator;
    if (texelStep_) {
      // The same pass writing the texture's first levels too: sets 0 and 1.
      const std::array<VkDescriptorSet, 2> sets{inputs_[recordingSlot()].set, texelSet_};
      dispatchWith(commandBuffer, Bound{kRippleStep, texelStep_, texelLayout_, sets}, push);
      return;
    }
    dispatch(commandBuffer, kRippleStep, push);  // the next heights and their vertices, one pass
  }

  uint32_t rippleStepTexelLevels() const override { return texelStep_ != VK_NULL_HANDLE ? stepLevels_ : 0; }

  void recordRippleVertices(VkCommandBuffer commandBuffer, uint32_t field) override {
    ComputePushConstants push = basePush();
    push.currentField = field;
    dispatch(commandBuffer, kRippleVertices, push);
  }

 private:
  enum Shader { kSinewave, kRippleDrops, kRippleStep, kRippleVertices, kShaderCount };

  ComputePushConstants basePush() const {
    ComputePushConstants push{};
    push.grid = params_.grid;
    push.spacing = gridSpacing(params_.grid);
    return push;
  }

  // What a dispatch binds: the pipeline, its layout and the sets from set 0.
  struct Bound {
    Shader shader;  // which tile shape the dispatch covers
    VkPipeline pipeline;
    VkPipelineLayout layout;
    std::span<const VkDescriptorSet> sets;
  };

  // One invocation per cell of a width x height region (the whole grid unless
  // given).
  void dispatch(VkCommandBuffer commandBuffer, Shader shader, const ComputePushConstants& push, uint32_t width = 0,
                uint32_t height = 0) {
    const std::span<const VkDescriptorSet> sets(&inputs_[recordingSlot()].set, 1);
    dispatchWith(commandBuffer, Bound{shader, pipelines_[shader], layout_, sets}, push, width, height);
  }

  void dispatchWith(VkCommandBuffer commandBuffer, const Bound& bound, const ComputePushConstants& push,
                    uint32_t width = 0, uint32_t height = 0) {
    vkCmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, bound.pipeline);
    vkCmdBindDescriptorSets(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, bound.layout, 0,
                            uint32_t(bound.sets.size()), bound.sets.data(), 0, nullptr);
    vkCmdPushConstants(commandBuffer, bound.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    const uint32_t x = width ? width : params_.grid, y = height ? height : params_.grid;
    // The ripple step's workgroup covers stepTile_; the others one cell an
    // invocation, 16 x 16.
    const VkExtent2D tile =
        bound.shader == kRippleStep ? stepTile_ : VkExtent2D{kComputeGroupSize, kComputeGroupSize};
    vkCmdDispatch(commandBuffer, (x + tile.width - 1) / tile.width, (y + tile.height - 1) / tile.height, 1);
  }

  bool check(VkResult result, const char* what) {
    if (result != VK_SUCCESS && ready()) setError(std::string("could not create the ") + what);
    return result == VK_SUCCESS;
  }

  void create() {
    const VkDevice device = context_.device;
    const uint32_t n = params_.grid;
    for (StepInputs& inputs : inputs_) {
      Result<QueueBuffer> table = createQueueBuffer(
          context_, 3 * VkDeviceSize(n) * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, false);
      if (!table) return setError(table.error().message);
      inputs.table = *table;
      // gridCoordinate on the host: a division in the shader may be 2.5 ULP off.
      for (uint32_t i = 0; i < n; ++i) static_cast<float*>(inputs.table.mapped)[i] = gridCoordinate(i, n);
    }
    // Sinewave has no fields: a small stand-in keeps the set complete.
    if (!heights_.buffer) {
      Result<QueueBuffer> stand = createQueueBuffer(context_, 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                                    VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, false);
      if (!stand) return setError(stand.error().message);
      heights_ = *stand;
    }

    std::array<VkDescriptorSetLayoutBinding, 4> bindings{};
    for (uint32_t b = 0; b < bindings.size(); ++b) {
      bindings[b].binding = b;
      bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[b].descriptorCount = 1;
      bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    if (!check(createComputeSetLayout(device, bindings, &setLayout_), "descriptor set layout")) return;
    const std::span<const VkDescriptorSetLayout> setLayouts(&setLayout_, 1);
    if (!check(createComputeLayout(device, setLayouts, kComputePushConstantsSize, &layout_), "pipeline layout")) return;
    const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4};
    for (StepInputs& inputs : inputs_)
      if (!check(createOneSet(device, poolSize, setLayout_, &inputs.pool, &inputs.set), "descriptor set")) return;

    chooseRippleStep();
    const std::span<const uint32_t> step =
        rows_.width ? std::span<const uint32_t>(kRippleStepRowsCompSpirv) : kRippleStepCompSpirv;
    const std::array<std::span<const uint32_t>, kShaderCount> code{kSinewaveCompSpirv, kRippleDropsCompSpirv, step,
                                                                   kRippleVerticesCompSpirv};
    for (uint32_t s = 0; s < kShaderCount; ++s)
      if (!createPipeline(code[s], layout_, &pipelines_[s], s == kRippleStep)) return;
    for (uint32_t slot = 0; slot < kMaxFramesInFlight; ++slot) growDrops(slot, kInitialDropCapacity);
    if (params_.model == ModelKind::ripple && textureLevel0()) createTexelStep();
  }

  // The ripple step's shape (subgroup_rows.h) and the cells its workgroup
  // covers; startLine says which, for app/ to print on stdout beside the
  // backend's own line (stderr is for failures, which the fault tests count
  // in lines).
  void chooseRippleStep() {
    if (params_.model != ModelKind::ripple) return;
    std::string why;
    rows_ = chooseSubgroupRows(context_.physical, &why);
    if (rows_.width) {
      // ripple_step_rows.comp: a strip of rows_.width columns a subgroup.
      stepTile_ = {rows_.width, (kRippleRowsInvocations / rows_.width) * kRippleRowsPerSubgroup};
      startLine_ = "vulkan ripple step: subgroup rows, " + std::to_string(rows_.width) + " lanes x " +
                   std::to_string(kRippleRowsPerSubgroup) + " rows a subgroup" +
                   (rows_.cellsAlone ? ""
                                     : " (VKSIM_STRICT_SUBGROUP_ROWS=1: a workgroup of partial subgroups writes nothing)");
    } else {
      startLine_ = "vulkan ripple step: tiles (" + why + ")";
    }
  }

  // `rippleStep`: the ripple step's pipeline, which takes StepConstants
  // (the rows step's, and the levels it writes).
  bool createPipeline(std::span<const uint32_t> code, VkPipelineLayout layout, VkPipeline* pipeline,
                      bool rippleStep = false) {
    if (!rippleStep)
      return check(createComputePipeline(context_.device, layout, code, pipeline), "compute pipeline");
    static constexpr size_t kRows = offsetof(StepConstants, rows);
    static constexpr std::array<VkSpecializationMapEntry, 3> kEntries{
        VkSpecializationMapEntry{0, kRows + offsetof(SubgroupRowsConstants, width), sizeof(uint32_t)},
        VkSpecializationMapEntry{1, kRows + offsetof(SubgroupRowsConstants, cellsAlone), sizeof(VkBool32)},
        VkSpecializationMapEntry{kComputeStepLevelsConstant, offsetof(StepConstants, levels), sizeof(uint32_t)}};
    const StepConstants values{rows_, stepLevels_};
    const VkSpecializationInfo constants{uint32_t(kEntries.size()), kEntries.data(), sizeof(values), &values};
    return check(createComputePipeline(context_.device, layout, code, pipeline, &constants), "compute pipeline");
  }

  // The ripple step that writes the texture's first levels too (the texture
  // on): set 1 holds their R32_UINT views (compute_layout.h); set 0 is the
  // other shaders' (the two pipeline layouts agree on it, so one binding of
  // set 0 serves both).
  void createTexelStep() {
    const VkDevice device = context_.device;
    stepLevels_ = stepTexelLevels(stepTile_, textureLevelCount());
    VkDescriptorSetLayoutBinding binding{0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kComputeStepTexelLevels,
                                         VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    if (!check(createComputeSetLayout(device, std::span(&binding, 1), &texelSetLayout_), "descriptor set layout"))
      return;
    const std::array<VkDescriptorSetLayout, 2> setLayouts{setLayout_, texelSetLayout_};
    if (!check(createComputeLayout(device, setLayouts, kComputePushConstantsSize, &texelLayout_), "pipeline layout"))
      return;
    const VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kComputeStepTexelLevels};
    if (!check(createOneSet(device, poolSize, texelSetLayout_, &texelPool_, &texelSet_), "descriptor set")) return;
    // The image is in GENERAL while the step writes it (recordSurfaceTextureBegin).
    // Every slot must hold a valid view: those past stepLevels_ repeat the
    // last level written, and the shader never writes them.
    std::array<VkDescriptorImageInfo, kComputeStepTexelLevels> levels{};
    for (uint32_t slot = 0; slot < levels.size(); ++slot)
      levels[slot] = {VK_NULL_HANDLE, textureLevelView(std::min(slot, stepLevels_ - 1)), VK_IMAGE_LAYOUT_GENERAL};
    VkWriteDescriptorSet write{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    write.dstSet = texelSet_;
    write.dstBinding = 0;
    write.descriptorCount = kComputeStepTexelLevels;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    write.pImageInfo = levels.data();
    vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);
    const std::span<const uint32_t> code =
        rows_.width ? std::span<const uint32_t>(kRippleStepRowsTexelsCompSpirv) : kRippleStepTexelsCompSpirv;
    createPipeline(code, texelLayout_, &texelStep_, true);
  }

  // Slot `slot`'s drop buffer for `count` drops, and its set pointing at
  // every buffer. Called while no submission uses that set: at creation, or
  // while recording the slot's next step, whose last one has completed
  // (recordStep). Updating a set, or freeing a buffer, that a pending
  // command buffer uses would be invalid.
  void growDrops(uint32_t slot, uint32_t count) {
    StepInputs& inputs = inputs_[slot];
    destroyQueueBuffer(context_.device, inputs.drops);
    Result<QueueBuffer> drops = createQueueBuffer(
        context_, VkDeviceSize(count) * kDropEntryBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, false);
    if (!drops) return setError(drops.error().message);
    inputs.drops = *drops;
    inputs.dropCapacity = count;
    const std::array<VkDescriptorBufferInfo, 4> infos{
        VkDescriptorBufferInfo{context_.vertexBuffer, 0, context_.vertexBytes},
        VkDescriptorBufferInfo{heights_.buffer, 0, VK_WHOLE_SIZE},
        VkDescriptorBufferInfo{inputs.table.buffer, 0, VK_WHOLE_SIZE},
        VkDescriptorBufferInfo{inputs.drops.buffer, 0, VK_WHOLE_SIZE}};
    std::array<VkWriteDescriptorSet, 4> writes{};
    for (uint32_t b = 0; b < writes.size(); ++b) {
      writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[b].dstSet = inputs.set;
      writes[b].dstBinding = b;
      writes[b].descriptorCount = 1;
      writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[b].pBufferInfo = &infos[b];
    }
    vkUpdateDescriptorSets(context_.device, uint32_t(writes.size()), writes.data(), 0, nullptr);
  }

  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  // What the host writes for a step, and the set that binds it with the
  // vertices and fields: one per frame-in-flight slot (recordingSlot).
  struct StepInputs {
    QueueBuffer table, drops;  // the sinewave's coordinates and factors; the ripple's drop list
    uint32_t dropCapacity = 0;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
  };
  std::array<StepInputs, kMaxFramesInFlight> inputs_{};
  std::array<VkPipeline, kShaderCount> pipelines_{};
  // The ripple step writing the first stepLevels_ levels (createTexelStep);
  // null when the texture is off.
  VkDescriptorSetLayout texelSetLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout texelLayout_ = VK_NULL_HANDLE;
  VkDescriptorPool texelPool_ = VK_NULL_HANDLE;
  VkDescriptorSet texelSet_ = VK_NULL_HANDLE;
  VkPipeline texelStep_ = VK_NULL_HANDLE;
  uint32_t stepLevels_ = 1;
  // ripple_step_rows.comp's constants (chooseRippleStep); width 0 when
  // ripple_step.comp runs.
  SubgroupRowsConstants rows_;
  // The cells a ripple step workgroup covers: ripple_step.comp's tile
  // (compute_layout.h) unless chooseRippleStep picks the rows.
  VkExtent2D stepTile_{kRippleStepColumns, kRippleStepThreadRows * kRippleStepRowsPerThread};
  std::string startLine_;  // chooseRippleStep's line; empty for the sinewave
};

}  // namespace

Result<std::unique_ptr<RenderQueueSimulation>> createVulkanComputeSimulation(const ModelParams& params,
                                                                             const RenderQueueContext& context) {
  auto simulation = std::make_unique<VulkanComputeSimulation>(params, context);
  if (!simulation->failure().empty()) return fail("vulkan backend: " + simulation->failure(), kExitEnvironment);
  return std::unique_ptr<RenderQueueSimulation>(std::move(simulation));
}

}  // namespace vksim
