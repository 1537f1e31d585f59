// Step 7: an image crosses, mip chain and all. Vulkan creates and exports an RGBA8 image with a full mip
// chain; CUDA maps it as a mipmapped array and writes every level through surface objects; Vulkan samples
// every level in a draw (one quad per level, side by side) and the CPU checks every texel of every level in
// the copied-out target; the last round's target is saved as a PNG.
//
// New against step 6:
//   - the exported object is a VkImage: asked with the image's exact format, tiling and usage (M19),
//     created with VkExternalMemoryImageCreateInfo (M20), given a dedicated allocation; CUDA imports it
//     with the allocation's size and cudaExternalMemoryDedicated (M1, M4, M5);
//   - cudaExternalMemoryGetMappedMipmappedArray with a description that repeats how Vulkan made the
//     image: offset, format, extent, flags and the number of levels (P5, P6, G5); a surface object per level;
//   - layouts: UNDEFINED -> GENERAL once, on Vulkan's side, before CUDA's first write (a transition may
//     rewrite the memory); from then on the image stays GENERAL, the one layout both sides agree on, and
//     every release and acquire is an image barrier GENERAL -> GENERAL (M21);
//   - the acquire's second scope is the fragment shader (SHADER_READ), and the release's first scope too:
//     the draw samples the image there;
//   - teardown: surface objects, the mipmapped array, the external memory (P7, P9), and only then
//     Vulkan's image and memory (M14).
// Unchanged: the +2 timeline schedule (learn/common/earlier.h), the offscreen target and its checks.
// Usage: learn_07_texture [--break levels | --break list] [out.png]   (default step07.png)
#include <string>

#define LEARN_STEP 7

#include "common/offscreen.h"  // plain Vulkan drawing: target, pipeline, PNG

constexpr uint32_t kRounds = 16;
constexpr uint32_t kSize = 64;   // level 0 is kSize x kSize texels
constexpr uint32_t kLevels = 7;  // 64, 32, ..., 1: the full chain; 07_texture.vert says the same
constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
constexpr VkImageUsageFlags kUsage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT;
constexpr uint32_t kQuad = kSize;  // each level is shown as a kQuad x kQuad square

// Texel (x, y) of `level` in `round`: the level's colour, darker on every other texel of a checkerboard
// whose phase flips each round (so each round's write is told apart from the one before). RGBA8, r low.
__host__ __device__ inline uint32_t texelColor(uint32_t level, uint32_t x, uint32_t y, uint32_t round) {
  const uint32_t colors[kLevels] = {0xff3030ffu, 0xff30ff30u, 0xffff3030u, 0xff30ffffu,
                                    0xffff30ffu, 0xffffff30u, 0xffffffffu};
  const uint32_t color = colors[level];
  return ((x + y + round) & 1) != 0 ? 0xff000000u | (color >> 1 & 0x7f7f7fu) : color;
}

__global__ void writeLevelKernel(cudaSurfaceObject_t surface, uint32_t size, uint32_t level, uint32_t round) {
  const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= size || y >= size) return;
  const uint32_t c = texelColor(level, x, y, round);
  // Surface x coordinates are in bytes: texel x is at byte 4x.
  surf2Dwrite(make_uchar4(c & 0xff, c >> 8 & 0xff, c >> 16 & 0xff, c >> 24), surface, x * 4, y);
}

static const uint32_t kVertexSpirv[] = {
#include "07_texture.vert.inc"
};
static const uint32_t kFragmentSpirv[] = {
#include "07_texture.frag.inc"
};

// A barrier on all of `image`'s levels: the release, the acquire and the first transition differ here.
VkImageMemoryBarrier imageBarrier(VkImage image, VkImageLayout from, VkImageLayout to, uint32_t srcFamily,
                                  uint32_t dstFamily) {
  VkImageMemoryBarrier barrier{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
  barrier.oldLayout = from;
  barrier.newLayout = to;
  barrier.srcQueueFamilyIndex = srcFamily;
  barrier.dstQueueFamilyIndex = dstFamily;
  barrier.image = image;
  barrier.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, kLevels, 0, 1};
  return barrier;
}

// The exported image, as CUDA must be told about it.
struct SharedImage {
  VkImage image = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize allocationSize = 0;  // VkMemoryRequirements::size: every level and the driver's padding
};

// A kSize x kSize RGBA8 image with kLevels levels, optimal tiling, kUsage, in a dedicated allocation that
// can be exported as an opaque fd. Exit 3 when the device cannot export such an image.
SharedImage createExportedImage(const Pair& pair, const Device& device) {
  // M19: can THIS image (format, type, tiling, usage) be exported as an opaque fd?
  VkPhysicalDeviceExternalImageFormatInfo externalQuery{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO};
  externalQuery.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkPhysicalDeviceImageFormatInfo2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
                                         &externalQuery};
  query.format = kFormat;
  query.type = VK_IMAGE_TYPE_2D;
  query.tiling = VK_IMAGE_TILING_OPTIMAL;  // CUDA maps it as an array, whose layout the driver knows
  query.usage = kUsage;
  VkExternalImageFormatProperties externalAnswer{VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
  VkImageFormatProperties2 answer{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2, &externalAnswer};
  if (vkGetPhysicalDeviceImageFormatProperties2(pair.physical, &query, &answer) != VK_SUCCESS ||
      (externalAnswer.externalMemoryProperties.externalMemoryFeatures &
       VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) == 0)
    exitWith(kExitMissing, "%s cannot export an RGBA8 sampled+storage image as an opaque fd",
             pair.name.c_str());

  // M20: the image names the handle type; its requirements come after that (M2).
  VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkImageCreateInfo imageInfo{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &external};
  imageInfo.imageType = VK_IMAGE_TYPE_2D;
  imageInfo.format = kFormat;
  imageInfo.extent = {kSize, kSize, 1};
  imageInfo.mipLevels = kLevels;
  imageInfo.arrayLayers = 1;
  imageInfo.samples = VK_SAMPLE_COUNT_1_BIT;
  imageInfo.tiling = VK_IMAGE_TILING_OPTIMAL;
  imageInfo.usage = kUsage;
  SharedImage result;
  VK_CHECK(vkCreateImage(device.device, &imageInfo, nullptr, &result.image));
  VkMemoryRequirements requirements;
  vkGetImageMemoryRequirements(device.device, result.image, &requirements);
  // Dedicated (allowed always, required where DEDICATED_ONLY) and exportable; CUDA is told both (M5).
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.image = result.image;
  VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &dedicated};
  exportInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &exportInfo};
  allocateInfo.allocationSize = requirements.size;  // every level, and the driver's padding
  allocateInfo.memoryTypeIndex =
      findMemoryType(pair.physical, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  result.allocationSize = requirements.size;
  VK_CHECK(vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory));
  VK_CHECK(vkBindImageMemory(device.device, result.image, result.memory, 0));
  return result;
}

// CUDA's view of the image: the imported memory, the mipmapped array from it, a surface object per level.
struct CudaImage {
  cudaExternalMemory_t memory = nullptr;
  cudaMipmappedArray_t mipmapped = nullptr;
  cudaSurfaceObject_t surfaces[kLevels] = {};
};

CudaImage importImageIntoCuda(const Device& device, const SharedImage& image) {
  // CUDA's import (learn/common/earlier.h): the allocation's size and the dedicated flag (M1, M5); the fd
  // is CUDA's once the import succeeded (M7), ours to close if not (M8).
  CudaImage result;
  result.memory = importMemoryIntoCuda(exportMemoryFd(device, image.memory), image.allocationSize, true);
  // P5: every field as vkCreateImage made the image (G5). Offset 0: bound at 0 of its own allocation.
  // RGBA8 UNORM: four unsigned 8-bit channels. A 2D extent has depth 0 (cudaMalloc3DArray's convention; 1
  // would be 3D). STORAGE usage: cudaArraySurfaceLoadStore, for the kernel's surface writes. P6: an image
  // with COLOR_ATTACHMENT usage would also need cudaArrayColorAttachment; this one is never rendered to.
  cudaExternalMemoryMipmappedArrayDesc arrayDesc{};
  arrayDesc.offset = 0;
  arrayDesc.formatDesc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  arrayDesc.extent = make_cudaExtent(kSize, kSize, 0);
  arrayDesc.flags = cudaArraySurfaceLoadStore;
  arrayDesc.numLevels = breaking("levels") ? 1 : kLevels;  // VkImageCreateInfo::mipLevels (BROKEN: 1)
  CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&result.mipmapped, result.memory, &arrayDesc));
  for (uint32_t level = 0; level < kLevels; ++level) {
    cudaArray_t levelArray = nullptr;  // belongs to the mipmapped array (P7): not freed on its own
    CUDA_CHECK(cudaGetMipmappedArrayLevel(&levelArray, result.mipmapped, level));
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = levelArray;
    CUDA_CHECK(cudaCreateSurfaceObject(&result.surfaces[level], &resource));
  }
  return result;
}

// Surface objects, then the mipmapped array (the level arrays are its own),
// then the memory object (P7, P9); before Vulkan frees the memory (M14).
void destroyCudaImage(CudaImage& image) {
  for (cudaSurfaceObject_t surface : image.surfaces) CUDA_CHECK(cudaDestroySurfaceObject(surface));
  CUDA_CHECK(cudaFreeMipmappedArray(image.mipmapped));
  CUDA_CHECK(cudaDestroyExternalMemory(image.memory));
  image = {};
}

// Records the release of `image` from `queueFamily` to VK_QUEUE_FAMILY_EXTERNAL (M21), GENERAL to
// GENERAL. First scope: the fragment shader that sampled it in the round before. In round 0 the image first
// leaves UNDEFINED for GENERAL, on Vulkan's side and before CUDA's first write: a layout transition may
// rewrite the memory, so it must not come after.
void recordRelease(VkCommandBuffer commands, VkImage image, uint32_t queueFamily, bool firstRound) {
  if (firstRound) {
    const VkImageMemoryBarrier toGeneral =
        imageBarrier(image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_QUEUE_FAMILY_IGNORED,
                     VK_QUEUE_FAMILY_IGNORED);
    vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                         0, 0, nullptr, 0, nullptr, 1, &toGeneral);
  }
  const VkImageMemoryBarrier toExternal = imageBarrier(
      image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL, queueFamily, VK_QUEUE_FAMILY_EXTERNAL);
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                       0, 0, nullptr, 0, nullptr, 1, &toExternal);
}

// Every texel of every level, at the pixel in the middle of its square on screen (a texel of level l
// covers 2^l x 2^l pixels of its quad). Returns the texels checked.
uint32_t checkTexels(const uint32_t* pixels, uint32_t width, uint32_t round) {
  uint32_t checked = 0;
  for (uint32_t level = 0; level < kLevels; ++level)
    for (uint32_t y = 0; y < kSize >> level; ++y)
      for (uint32_t x = 0; x < kSize >> level; ++x, ++checked) {
        const uint32_t middle = (1u << level) / 2, px = level * kQuad + (x << level) + middle;
        const uint32_t seen = pixels[((y << level) + middle) * width + px];
        EXPECT_OR_EXIT(seen == texelColor(level, x, y, round),
                       "round %u: level %u texel (%u, %u) is 0x%08x, expected 0x%08x", round, level, x, y,
                       seen, texelColor(level, x, y, round));
      }
  return checked;
}

// The objects every round uses (created in main; destroyed at its end).
struct Rig {
  Device device;
  SharedImage image;
  CudaImage cudaImage;
  SampledImage sampled;  // view, sampler, descriptor set (learn/common/offscreen.h)
  HostBuffer host;
  OneShot oneShot;
  OneShot release;        // its command buffer holds the release; its fence stays unused
  CudaTimeline timeline;  // the semaphore, CUDA's import, CUDA's stream
  Offscreen target;       // the drawing (learn/common/offscreen.h)
  VkPipelineLayout layout;
  VkPipeline pipeline;
};

// Round k: render releases the image (round 0: after its first transition)
// and signals 2k+1; CUDA waits for 2k+1, writes every level, signals 2k+2;
// the draw waits for 2k+2 at ALL_COMMANDS, acquires, samples every level and
// copies the image out; the CPU checks. Returns the texels checked.
uint32_t runRound(const Rig& rig, uint32_t round) {
  const uint64_t renderDone = 2 * uint64_t{round} + 1;  // the +2 schedule
  const uint64_t cudaDone = 2 * uint64_t{round} + 2;

  // 1. Vulkan's render signals 2k+1. It first releases the image that round
  //    k-1's fragment shader sampled; round 0 first moves it out of
  //    UNDEFINED, before CUDA ever writes.
  recordRelease(beginOneShot(rig.release), rig.image.image, rig.device.queueFamily, round == 0);
  submitSignal(rig.device, &rig.release, rig.timeline.timeline, &renderDone);

  // 2. CUDA waits until the value is at least 2k+1, writes every level, and
  //    sets it to 2k+2 (S5).
  cudaWaitTimeline(rig.timeline, renderDone);
  for (uint32_t level = 0; level < kLevels; ++level) {
    const uint32_t size = kSize >> level, blocks = (size + 7) / 8;
    writeLevelKernel<<<dim3(blocks, blocks), dim3(8, 8), 0, rig.timeline.stream>>>(
        rig.cudaImage.surfaces[level], size, level, round);
  }
  CUDA_CHECK(cudaGetLastError());
  cudaSignalTimeline(rig.timeline, cudaDone);

  // 3. Vulkan's draw waits for 2k+2 at ALL_COMMANDS, acquires the image for
  //    the fragment shader (its first reader), draws quad i from level i,
  //    copies the image out; the host waits for the copy, to check it.
  VkCommandBuffer commands = beginOneShot(rig.oneShot);
  VkImageMemoryBarrier acquire = imageBarrier(rig.image.image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                                              VK_QUEUE_FAMILY_EXTERNAL, rig.device.queueFamily);
  acquire.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  vkCmdPipelineBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0,
                       nullptr, 0, nullptr, 1, &acquire);
  recordQuadDraw(commands, rig.target, rig.pipeline, rig.layout, rig.sampled.set, kLevels);
  recordCopyOut(commands, rig.target, rig.host);
  submitWaitingFor(rig.device, rig.oneShot, rig.timeline.timeline, &cudaDone);

  return checkTexels(static_cast<const uint32_t*>(rig.host.mapped), rig.target.width, round);
}

int main(int argc, char** argv) {
  gStepName = "learn 07";
  const char* pngArgument = parseArguments(
      argc, argv, {{"levels", "CUDA's mipmapped array is described with 1 level where the image has 7 (P5)"}},
      "PNG");
  const char* pngPath = pngArgument != nullptr ? pngArgument : "step07.png";
  Instance instance = createInstance();  // validation with VKSIM_VALIDATION=1, as before step 5
  const Pair pair = pairDevices(instance.instance);
  Device device = createTimelineDevice(pair);
  // M19, M20 for what is shared now: an image with its mip chain.
  const SharedImage image = createExportedImage(pair, device);
  CudaImage cudaImage = importImageIntoCuda(device, image);
  // Sampled through a descriptor set (offscreen.h) that names the layout the shader reads it in: GENERAL.
  SampledImage sampled = createSampledImage(device, image.image, kFormat, kLevels, VK_IMAGE_LAYOUT_GENERAL);
  // The host buffer receives the image, copied out each round.
  HostBuffer host = createHostBuffer(pair, device, VkDeviceSize{kLevels * kQuad} * kQuad * 4);
  OneShot oneShot = createOneShot(device);
  OneShot release = createOneShot(device);

  // The drawing (learn/common/offscreen.h): the levels side by side, each
  // sampled by one instance of a quad (07_texture.vert).
  Offscreen target = createOffscreen(pair, device, kLevels * kQuad, kQuad);
  const VkPipelineLayout layout = createPipelineLayout(device, sampled.setLayout);
  const VkPipeline pipeline = createOffscreenPipeline(
      device, target, layout, kVertexSpirv, sizeof(kVertexSpirv), kFragmentSpirv, sizeof(kFragmentSpirv));

  // One timeline semaphore, starting at 0, CUDA's import and stream; the
  // kernel loaded before any wait is enqueued (the lazy-loading trap, step 3).
  CudaTimeline timeline = createCudaTimeline(pair, device, reinterpret_cast<const void*>(writeLevelKernel));

  const Rig rig{device, image, cudaImage, sampled, host, oneShot, release, timeline, target, layout, pipeline};
  uint32_t checked = 0;
  for (uint32_t round = 0; round < kRounds; ++round) checked += runRound(rig, round);
  savePng(pngPath, target, host);  // the last round: the levels side by side

  // Teardown as in step 6 (S17, S18, M14), CUDA's image in its order:
  // surfaces, mipmapped array, memory object (P7, P9).
  CUDA_CHECK(cudaStreamSynchronize(timeline.stream));
  destroyCudaImage(cudaImage);
  destroyCudaSideOfTimeline(timeline);
  VK_CHECK(vkDeviceWaitIdle(device.device));
  vkDestroySemaphore(device.device, timeline.timeline, nullptr);
  vkDestroyPipeline(device.device, pipeline, nullptr);
  vkDestroyPipelineLayout(device.device, layout, nullptr);
  destroyOffscreen(device, target);
  destroyOneShot(device, release);
  destroyOneShot(device, oneShot);
  destroyHostBuffer(device, host);
  destroySampledImage(device, sampled);
  vkDestroyImage(device.device, image.image, nullptr);
  vkFreeMemory(device.device, image.memory, nullptr);
  vkDestroyDevice(device.device, nullptr);
  destroyInstance(instance);
  return finishStep(7, std::to_string(kRounds) + " rounds, " + std::to_string(kLevels) +
                           " levels written by CUDA and sampled by Vulkan each; " + std::to_string(checked) +
                           " texels checked; " + pngPath + " written");
}
