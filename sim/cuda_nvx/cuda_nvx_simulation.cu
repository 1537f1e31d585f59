// The cuda-nvx backend: the CUDA kernels of sim/cuda/cuda_kernels.cuh,
// launched from the step's Vulkan command buffer with vkCmdCuLaunchKernelNVX
// (VK_NVX_binary_import). No CUDA runtime or driver call happens on this path:
// the Vulkan driver loads the module and runs the kernels in the Vulkan
// device's own context. The header is included here for the launch geometry
// and the parameter types, so that they are the CUDA backend's.
#include <vulkan/vk_enum_string_helper.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "sim/cuda/cuda_kernels.cuh"
#include "sim/cuda/cuda_texture_kernels.cuh"
#include "sim/cuda_nvx/nvx_fatbin.h"
#include "sim/vulkan/queue_simulation_base.h"

namespace vksim {
namespace {

// The entry points of cuda_kernels.cuh that the CUDA backend runs too; the
// step kernels' configuration is chosen there (BackendRippleConfig,
// BackendSinewaveConfig), with their launch geometry.
constexpr const char* kKernelNames[] = {"addDropsKernel",     "heightFieldVerticesKernel", "sinewaveStepKernel",
                                        "rippleStepKernel",   "rippleStepTexelsKernel",    "downsampleLevelsKernel"};
enum Kernel {
  kAddDrops,
  kHeightFieldVertices,
  kSinewaveStep,
  kRippleStep,
  kRippleStepTexels,
  kDownsampleLevels,
  kKernelCount
};

class CudaNvxSimulation final : public QueueSimulationBase {
 public:
  CudaNvxSimulation(const ModelParams& params, const RenderQueueContext& context)
      : QueueSimulationBase(params, context, /*deviceAddress=*/true) {
    if (ready()) create();
  }
  // The module and its functions outlive every command buffer that launches
  // them: the owner has drained the schedule and waited for the queue
  // (finish: a fence after every step's submission) before destroying this;
  // the device is idle too at the run's end, not on a grid change.
  // Functions first, then the module they come from.
  ~CudaNvxSimulation() override {
    for (VkCuFunctionNVX function : functions_)
      if (function) vkDestroyCuFunctionNVX(context_.device, function, nullptr);
    if (module_) vkDestroyCuModuleNVX(context_.device, module_, nullptr);
  }

  std::string failure() const { return error(); }
  std::string backendName() const override { return "cuda-nvx"; }
  std::string pathDescription() const override {
    return "CUDA kernels through VK_NVX_binary_import, second batch of the render's vkQueueSubmit";
  }

 protected:
  void recordSinewave(VkCommandBuffer commandBuffer, const SinewaveFrame& frame) override {
    const VkDeviceAddress vertices = vertexAddress_;
    const std::array<const void*, 2> arguments{&vertices, &frame};
    launch(commandBuffer, kSinewaveStep, sinewaveStepBlocks(params_.grid), sinewaveStepThreads(), arguments);
  }

  void recordDrops(VkCommandBuffer commandBuffer, const std::vector<DropShape>& drops, uint32_t current,
                   uint32_t previous) override {
    // As the CUDA backend: batches of kMaxDropsPerLaunch, applied in order,
    // each launched over the union of its footprints (dropBatches).
    const VkDeviceAddress currentField = field(current), previousField = field(previous);
    const uint32_t grid = params_.grid;
    bool first = true;
    for (const DropBatch& batch : dropBatches(drops)) {
      if (!first) computeBarrier(commandBuffer);
      first = false;
      const std::array<const void*, 4> arguments{&currentField, &previousField, &grid, &batch};
      launch(commandBuffer, kAddDrops, rectBlocks(batch.cells), dim3(kBlockX, kBlockY), arguments);
    }
  }

  void recordRippleStep(VkCommandBuffer commandBuffer, uint32_t current, uint32_t previous, uint32_t next,
                        const RippleCoefficients& coefficients) override {
    // One pass: the next field and its vertices (rippleStepKernel), and with
    // the texture on its first levels too (rippleStepTexelsKernel), as the
    // CUDA backend's step.
    const VkDeviceAddress currentField = field(current), previousField = field(previous), nextField = field(next);
    const VkDeviceAddress vertices = vertexAddress_;
    const uint32_t grid = params_.grid;
    if (levelSurfaces_.empty()) {
      const std::array<const void*, 6> arguments{&currentField, &previousField, &nextField,
                                                 &grid,         &coefficients,  &vertices};
      launch(commandBuffer, kRippleStep, rippleStepBlocks(grid), rippleStepThreads(), arguments);
      return;
    }
    const TexelLevels texels = firstTexelLevels(levelSurfaces_);
    const std::array<const void*, 7> arguments{&currentField, &previousField, &nextField, &grid,
                                               &coefficients, &vertices,      &texels};
    launch(commandBuffer, kRippleStepTexels, rippleStepBlocks(grid), rippleStepThreads(), arguments);
  }

  uint32_t rippleStepTexelLevels() const override { return firstTexelLevels(levelSurfaces_).count; }

  // The levels below the step's, as the CUDA backend makes them
  // (downsampleLevelsKernel, planned once in createLevelSurfaces), each
  // launch after a barrier on the levels above it. firstLevel is always
  // rippleStepTexelLevels(), the plan's first level.
  void recordLevelsBelowStep(VkCommandBuffer commandBuffer, uint32_t /*firstLevel*/) override {
    for (const DownsampleLaunch& step : levelsBelowStep_) {
      computeBarrier(commandBuffer);
      const std::array<const void*, 1> arguments{&step.levels};
      launch(commandBuffer, kDownsampleLevels, step.blocks, dim3(kDownsampleThreads), arguments);
    }
  }

  void recordRippleVertices(VkCommandBuffer commandBuffer, uint32_t fieldIndex) override {
    const VkDeviceAddress heights = field(fieldIndex), vertices = vertexAddress_;
    const uint32_t grid = params_.grid;
    const std::array<const void*, 3> arguments{&heights, &grid, &vertices};
    launch(commandBuffer, kHeightFieldVertices, gridBlocks(grid), dim3(kBlockX, kBlockY), arguments);
  }

 private:
  VkDeviceAddress field(uint32_t index) const { return heights_.address + index * fieldBytes_; }

  // Parameters as cuLaunchKernel takes them: an array of pointers, one to each
  // argument's value; a pointer argument's value is a buffer device address
  // (the kernels see plain global memory). The values are copied when the
  // launch is recorded, so locals may go afterwards.
  template <size_t N>
  void launch(VkCommandBuffer commandBuffer, Kernel kernel, dim3 grid, dim3 block,
              const std::array<const void*, N>& arguments) {
    VkCuLaunchInfoNVX launchInfo{};
    launchInfo.sType = VK_STRUCTURE_TYPE_CU_LAUNCH_INFO_NVX;
    launchInfo.function = functions_[kernel];
    launchInfo.gridDimX = grid.x;
    launchInfo.gridDimY = grid.y;
    launchInfo.gridDimZ = grid.z;
    launchInfo.blockDimX = block.x;
    launchInfo.blockDimY = block.y;
    launchInfo.blockDimZ = block.z;
    // The kernels' shared memory is static (the ripple step's staging array
    // is asserted to fit 48 KiB: cuda_ripple_warp_rows.cuh).
    launchInfo.sharedMemBytes = 0;
    launchInfo.paramCount = N;
    launchInfo.pParams = arguments.data();
    vkCmdCuLaunchKernelNVX(commandBuffer, &launchInfo);
  }

  // A surface on each level of the texture for the kernels: the handle of
  // the level's R32_UINT storage view (VK_NVX_image_view_handle), which a
  // kernel launched with vkCmdCuLaunchKernelNVX takes as its
  // cudaSurfaceObject_t (the Vulkan specification's "Resource Sharing from
  // Vulkan to the CUDA Kernel"). The kernels store 32 bits a texel, the
  // view's texel size, so the bytes land as on the CUDA backend's RGBA8 array.
  void createLevelSurfaces() {
    for (uint32_t level = 0; level < textureLevelCount(); ++level) {
      VkImageViewHandleInfoNVX handleInfo{};
      handleInfo.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_HANDLE_INFO_NVX;
      handleInfo.imageView = textureLevelView(level);
      handleInfo.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
      levelSurfaces_.push_back(cudaSurfaceObject_t(vkGetImageViewHandleNVX(context_.device, &handleInfo)));
    }
    levelsBelowStep_ = downsampleLaunches(levelSurfaces_, uint32_t(levelSurfaces_.size()), params_.grid,
                                          rippleStepTexelLevels());
  }

  void create() {
    createLevelSurfaces();
    VkBufferDeviceAddressInfo addressInfo{};
    addressInfo.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    addressInfo.buffer = context_.vertexBuffer;
    vertexAddress_ = vkGetBufferDeviceAddress(context_.device, &addressInfo);
    // The fatbin is copied into 8-byte-aligned storage: the driver parses it
    // as an ELF container of 64-bit fields.
    std::vector<uint64_t> image((sizeof(kNvxFatbin) + 7) / 8);
    std::memcpy(image.data(), kNvxFatbin, sizeof(kNvxFatbin));
    VkCuModuleCreateInfoNVX moduleInfo{};
    moduleInfo.sType = VK_STRUCTURE_TYPE_CU_MODULE_CREATE_INFO_NVX;
    moduleInfo.dataSize = sizeof(kNvxFatbin);
    moduleInfo.pData = image.data();
    VkResult result = vkCreateCuModuleNVX(context_.device, &moduleInfo, nullptr, &module_);
    if (result != VK_SUCCESS) {
      module_ = VK_NULL_HANDLE;
      return setError(std::string("vkCreateCuModuleNVX refused the embedded fatbin (sm_90 + compute_90 PTX): ") +
                      string_VkResult(result));
    }
    for (uint32_t k = 0; k < kKernelCount; ++k) {
      VkCuFunctionCreateInfoNVX functionInfo{};
      functionInfo.sType = VK_STRUCTURE_TYPE_CU_FUNCTION_CREATE_INFO_NVX;
      functionInfo.module = module_;
      functionInfo.pName = kKernelNames[k];
      result = vkCreateCuFunctionNVX(context_.device, &functionInfo, nullptr, &functions_[k]);
      if (result != VK_SUCCESS) {
        functions_[k] = VK_NULL_HANDLE;
        return setError(std::string("vkCreateCuFunctionNVX found no kernel ") + kKernelNames[k] + ": " +
                        string_VkResult(result));
      }
    }
  }

  VkCuModuleNVX module_ = VK_NULL_HANDLE;
  std::array<VkCuFunctionNVX, kKernelCount> functions_{};
  VkDeviceAddress vertexAddress_ = 0;
  std::vector<cudaSurfaceObject_t> levelSurfaces_;  // one a level, level 0 first; empty with the texture off
  std::vector<DownsampleLaunch> levelsBelowStep_;    // the launches below the step's levels
};

}  // namespace

Result<std::unique_ptr<RenderQueueSimulation>> createCudaNvxSimulation(const ModelParams& params,
                                                                       const RenderQueueContext& context) {
  auto simulation = std::make_unique<CudaNvxSimulation>(params, context);
  if (!simulation->failure().empty()) return fail("cuda-nvx backend: " + simulation->failure(), kExitEnvironment);
  return std::unique_ptr<RenderQueueSimulation>(std::move(simulation));
}

}  // namespace vksim
