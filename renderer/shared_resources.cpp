#include "renderer/shared_resources.h"

#include "renderer/debug_names.h"
#include "renderer/vk_check.h"

namespace vksim {
namespace {

constexpr VkExternalMemoryHandleTypeFlagBits kMemoryHandleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
constexpr VkExternalSemaphoreHandleTypeFlagBits kSemaphoreHandleType =
    VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;

VkSemaphore createSemaphore(const Device& device, VkSemaphoreType type, bool exportable) {
  // VkExportSemaphoreCreateInfo must be present at creation: a semaphore
  // created without it can never be exported
  // (VUID-VkSemaphoreGetFdInfoKHR-handleType-01132; rule S11).
  VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
  exportInfo.handleTypes = kSemaphoreHandleType;
  VkSemaphoreTypeCreateInfo typeInfo{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  typeInfo.pNext = exportable ? &exportInfo : nullptr;
  typeInfo.semaphoreType = type;
  typeInfo.initialValue = 0;  // the value schedule starts at 0
  VkSemaphoreCreateInfo createInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  createInfo.pNext = &typeInfo;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VK_CHECK(vkCreateSemaphore(device.device, &createInfo, nullptr, &semaphore));
  return semaphore;
}

// The same question as for export, asked about import: whether a buffer of
// this usage can be bound to opaque-fd memory, and whether that memory must
// be a dedicated allocation (rule M5). Throws when it cannot; returns whether
// the import must be dedicated.
bool importMustBeDedicated(const Device& device, const std::string& who) {
  VkPhysicalDeviceExternalBufferInfo query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
  query.usage = kSharedVertexBufferUsage;
  query.handleType = kMemoryHandleType;
  VkExternalBufferProperties answer{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
  vkGetPhysicalDeviceExternalBufferProperties(device.physical, &query, &answer);
  const VkExternalMemoryFeatureFlags features = answer.externalMemoryProperties.externalMemoryFeatures;
  if (!(features & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT))
    throw EnvironmentError(who + " cannot import a vertex buffer's memory from an opaque fd.");
  return features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
}

VkBuffer createImportingBuffer(const Device& device, VkDeviceSize size) {
  // Memory imported as opaque fd may only be bound to a buffer that declared
  // that handle type at creation (VUID-vkBindBufferMemory-memory-02985; rule E9).
  VkExternalMemoryBufferCreateInfo externalInfo{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  externalInfo.handleTypes = kMemoryHandleType;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.pNext = &externalInfo;
  bufferInfo.size = size;
  bufferInfo.usage = kSharedVertexBufferUsage;
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &buffer));
  return buffer;
}

// The memory type for the import into `buffer`; destroys the buffer and
// throws when the imported memory cannot hold it or no type fits.
uint32_t chooseImportMemoryType(const Device& device, const std::string& who, VkBuffer buffer,
                                VkDeviceSize allocationSize) {
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device.device, buffer, &requirements);
  // The import's allocationSize is the exporter's (its payload has that
  // size); the buffer at offset 0 must fit in it (VUID-vkBindBufferMemory-size-01037).
  if (allocationSize < requirements.size) {
    vkDestroyBuffer(device.device, buffer, nullptr);
    throw EnvironmentError(who + " needs " + std::to_string(requirements.size) +
                           " bytes for the vertex buffer, more than the " + std::to_string(allocationSize) +
                           " bytes of the imported memory.");
  }
  // The memory type: one the buffer allows and that is device-local (the
  // exporter's memory is device memory of the same physical device).
  // vkGetMemoryFdPropertiesKHR would narrow the types for other handle
  // types, but it must not be asked about an opaque fd
  // (VUID-vkGetMemoryFdPropertiesKHR-handleType-00674): for opaque fds the
  // buffer's memoryTypeBits are the whole answer.
  const uint32_t memoryType =
      findMemoryType(device, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (memoryType == UINT32_MAX) {
    vkDestroyBuffer(device.device, buffer, nullptr);
    throw EnvironmentError(who + " has no device-local memory type for the imported vertex buffer.");
  }
  return memoryType;
}

// Allocates memory from the fd for `buffer`. On failure the buffer is
// destroyed and the fd is still the caller's (rules E9, M8).
VkDeviceMemory importMemoryFd(const Device& device, VkBuffer buffer, int fd, VkDeviceSize allocationSize,
                              uint32_t memoryType, bool dedicated) {
  VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicatedInfo.buffer = buffer;
  VkImportMemoryFdInfoKHR importInfo{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
  importInfo.pNext = dedicated ? &dedicatedInfo : nullptr;
  importInfo.handleType = kMemoryHandleType;
  importInfo.fd = fd;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.pNext = &importInfo;
  allocateInfo.allocationSize = allocationSize;
  allocateInfo.memoryTypeIndex = memoryType;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  const VkResult imported = vkAllocateMemory(device.device, &allocateInfo, nullptr, &memory);
  if (imported != VK_SUCCESS) {
    // A failed import leaves the fd with the application (the external
    // memory chapter's rule for VkImportMemoryFdInfoKHR; rules E9, M8): `fd` stays as it
    // was, for the caller to close.
    vkDestroyBuffer(device.device, buffer, nullptr);
    failVulkanCall("vkAllocateMemory (import of an opaque fd)", imported, __FILE__, __LINE__);
  }
  return memory;
}

// What a graphics debugger shows for the buffer and its memory
// (renderer/debug_names.h).
void nameVertexBuffer(const Device& device, const SharedVertexBuffer& buffer, VertexMemory kind) {
  nameObject(device.device, buffer.buffer, "shared vertex buffer");
  nameObject(device.device, buffer.memory,
             buffer.exportable                   ? "shared vertex memory (exported as opaque fd)"
             : kind == VertexMemory::hostVisible ? "shared vertex memory (host-visible, mapped)"
                                                 : "shared vertex memory");
}

// How every refusal of this file names the device.
std::string deviceWho(const Device& device) { return "The Vulkan device '" + device.info.name + "'"; }

// Refuses, with the sentence a user reads, a device that cannot export the
// vertex buffer's memory.
void requireVertexBufferExport(const Device& device) {
  if (!device.exportMemory)
    throw EnvironmentError(deviceWho(device) +
                           " was created without VK_KHR_external_memory_fd, so the vertex buffer cannot be exported.");
  if (!device.info.vertexBufferExportable)
    throw EnvironmentError(deviceWho(device) + " cannot export a vertex buffer's memory as an opaque fd.");
}

// The memory type for the vertex buffer: device-local, or host-visible and
// coherent (preferably not device-local). Destroys `buffer` and throws when
// the device has none.
uint32_t vertexMemoryType(const Device& device, const VkMemoryRequirements& requirements, VertexMemory kind,
                          VkBuffer buffer) {
  const uint32_t memoryType =
      kind == VertexMemory::deviceLocal
          ? findMemoryType(device, requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
          : findMemoryType(device, requirements.memoryTypeBits,
                           VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  if (memoryType == UINT32_MAX) {
    vkDestroyBuffer(device.device, buffer, nullptr);
    throw EnvironmentError(deviceWho(device) + " has no " +
                           (kind == VertexMemory::deviceLocal ? "device-local" : "host-visible coherent") +
                           " memory type for the vertex buffer.");
  }
  return memoryType;
}

}  // namespace

SharedVertexBuffer createSharedVertexBuffer(const Device& device, VkDeviceSize size, VertexMemory kind,
                                            bool exportable, VkBufferUsageFlags extraUsage, bool deviceAddress) {
  if (exportable) requireVertexBufferExport(device);
  SharedVertexBuffer result;
  result.size = size;
  result.exportable = exportable;

  // The handle type is declared on the buffer as well as on its memory: memory
  // exported as opaque fd may only be bound to a buffer created with that
  // type in VkExternalMemoryBufferCreateInfo (VUID-vkBindBufferMemory-memory-02726),
  // and the declaration may change the buffer's memory requirements (rules M20, M2).
  VkExternalMemoryBufferCreateInfo externalInfo{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
  externalInfo.handleTypes = kMemoryHandleType;
  VkBufferCreateInfo bufferInfo{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bufferInfo.pNext = exportable ? &externalInfo : nullptr;
  bufferInfo.size = size;
  bufferInfo.usage = kSharedVertexBufferUsage;  // what the export query in listPhysicalDevices asked about
  if (!exportable)
    bufferInfo.usage |= extraUsage | (deviceAddress ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
  bufferInfo.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VK_CHECK(vkCreateBuffer(device.device, &bufferInfo, nullptr, &result.buffer));

  // Queried after creation with the external info, so memoryTypeBits and size
  // already account for the export; the importer must use this size, not `size`.
  VkMemoryRequirements requirements{};
  vkGetBufferMemoryRequirements(device.device, result.buffer, &requirements);
  result.allocationSize = requirements.size;

  const uint32_t memoryType = vertexMemoryType(device, requirements, kind, result.buffer);

  // Exported memory is always a dedicated allocation: drivers that report
  // VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT require it
  // (VUID-VkMemoryAllocateInfo-pNext-00639), every driver allows it, and the
  // importer is then told so (cudaExternalMemoryDedicated; rule M5).
  VkMemoryDedicatedAllocateInfo dedicatedInfo{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicatedInfo.buffer = result.buffer;
  VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};  // rule M20
  exportInfo.pNext = &dedicatedInfo;
  exportInfo.handleTypes = kMemoryHandleType;
  // A buffer whose device address is taken must be bound to memory allocated
  // with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT (VUID-vkBindBufferMemory-bufferDeviceAddress-03339).
  VkMemoryAllocateFlagsInfo flagsInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flagsInfo.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo allocateInfo{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocateInfo.pNext = exportable ? static_cast<const void*>(&exportInfo)
                                  : (deviceAddress ? static_cast<const void*>(&flagsInfo) : nullptr);
  allocateInfo.allocationSize = requirements.size;
  allocateInfo.memoryTypeIndex = memoryType;
  const VkResult allocated = vkAllocateMemory(device.device, &allocateInfo, nullptr, &result.memory);
  if (allocated != VK_SUCCESS) {
    vkDestroyBuffer(device.device, result.buffer, nullptr);
    failVulkanCall("vkAllocateMemory", allocated, __FILE__, __LINE__);
  }
  result.dedicated = exportable;
  result.memoryTypeIndex = memoryType;
  VK_CHECK(vkBindBufferMemory(device.device, result.buffer, result.memory, 0));
  nameVertexBuffer(device, result, kind);
  if (kind == VertexMemory::hostVisible)
    VK_CHECK(vkMapMemory(device.device, result.memory, 0, VK_WHOLE_SIZE, 0, &result.mapped));
  return result;
}

SharedVertexBuffer importSharedVertexBuffer(const Device& device, VkDeviceSize size, int& fd,
                                            VkDeviceSize allocationSize) {
  const std::string who = deviceWho(device);
  if (!device.exportMemory)
    throw EnvironmentError(who + " was created without VK_KHR_external_memory_fd, so it cannot import memory.");
  const bool dedicatedOnly = importMustBeDedicated(device, who);

  SharedVertexBuffer result;
  result.size = size;
  result.imported = true;
  result.buffer = createImportingBuffer(device, size);
  const uint32_t memoryType = chooseImportMemoryType(device, who, result.buffer, allocationSize);
  result.memory = importMemoryFd(device, result.buffer, fd, allocationSize, memoryType, dedicatedOnly);
  // A successful import hands the fd to the implementation; any later use of
  // it by the application, close included, is not allowed
  // (VkImportMemoryFdInfoKHR; rule E9). -1 says so to the caller's guard.
  fd = -1;
  result.allocationSize = allocationSize;
  result.dedicated = dedicatedOnly;
  nameObject(device.device, result.buffer, "shared vertex buffer (imported)");
  nameObject(device.device, result.memory, "shared vertex memory (imported opaque fd)");
  result.memoryTypeIndex = memoryType;
  if (const VkResult bound = vkBindBufferMemory(device.device, result.buffer, result.memory, 0);
      bound != VK_SUCCESS) {
    vkFreeMemory(device.device, result.memory, nullptr);  // the fd went with it
    vkDestroyBuffer(device.device, result.buffer, nullptr);
    failVulkanCall("vkBindBufferMemory", bound, __FILE__, __LINE__);
  }
  return result;
}

void destroySharedVertexBuffer(const Device& device, SharedVertexBuffer& buffer) {
  // An importer (CUDA) must have released its mapping and external memory
  // first; the exported payload lives until every reference is gone. For an
  // imported buffer (imported), freeing the memory drops Vulkan's reference
  // to the other API's allocation, which that API releases afterwards.
  if (buffer.buffer != VK_NULL_HANDLE) vkDestroyBuffer(device.device, buffer.buffer, nullptr);
  if (buffer.memory != VK_NULL_HANDLE) vkFreeMemory(device.device, buffer.memory, nullptr);
  buffer = SharedVertexBuffer{};
}

int exportMemoryFd(const Device& device, const SharedVertexBuffer& buffer) {
  if (!buffer.exportable)
    throw RuntimeFailure("exportMemoryFd: the vertex buffer was not created exportable");
  // The handle type was named in VkExportMemoryAllocateInfo at allocation
  // (VUID-VkMemoryGetFdInfoKHR-handleType-00671). Each call returns a new fd
  // referencing the same payload; the caller owns it until a successful import
  // takes it over (rules M7, M9).
  VkMemoryGetFdInfoKHR getInfo{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  getInfo.memory = buffer.memory;
  getInfo.handleType = kMemoryHandleType;
  int fd = -1;
  VK_CHECK(vkGetMemoryFdKHR(device.device, &getInfo, &fd));
  return fd;
}

SyncSemaphores createSyncSemaphores(const Device& device, bool exportable) {
  const std::string who = deviceWho(device);
  if (exportable && !device.exportSemaphores)
    throw EnvironmentError(
        who + " was created without VK_KHR_external_semaphore_fd, so semaphores cannot be exported.");
  if (exportable && !device.info.timelineExportable)
    throw EnvironmentError(who + " cannot export a timeline semaphore as an opaque fd.");
  if (exportable && !device.info.binaryExportable)
    throw EnvironmentError(who + " cannot export a binary semaphore as an opaque fd.");

  SyncSemaphores semaphores;
  semaphores.exportable = exportable;
  semaphores.timeline = createSemaphore(device, VK_SEMAPHORE_TYPE_TIMELINE, exportable);
  semaphores.renderDone = createSemaphore(device, VK_SEMAPHORE_TYPE_BINARY, exportable);
  semaphores.simDone = createSemaphore(device, VK_SEMAPHORE_TYPE_BINARY, exportable);
  // Each by its role in the value schedule (docs/value-schedule.md).
  nameObject(device.device, semaphores.timeline, "timeline: render k signals 2k+1, sim k signals 2k+2");
  nameObject(device.device, semaphores.renderDone, "renderDone: render signals, sim waits");
  nameObject(device.device, semaphores.simDone, "simDone: sim signals, render waits");
  return semaphores;
}

void destroySyncSemaphores(const Device& device, SyncSemaphores& semaphores) {
  // No wait or signal may be pending on any of them (vkDestroySemaphore), on
  // either API: the caller has synchronised CUDA's stream and the device.
  for (VkSemaphore semaphore : {semaphores.simDone, semaphores.renderDone, semaphores.timeline})
    if (semaphore != VK_NULL_HANDLE) vkDestroySemaphore(device.device, semaphore, nullptr);
  semaphores = SyncSemaphores{};
}

int exportSemaphoreFd(const Device& device, VkSemaphore semaphore) {
  // Opaque fd has reference transference: the importer shares this payload,
  // so it may be exported at any time (unlike SYNC_FD, which needs a pending
  // signal and copies it; rules S11, O4).
  VkSemaphoreGetFdInfoKHR getInfo{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
  getInfo.semaphore = semaphore;
  getInfo.handleType = kSemaphoreHandleType;
  int fd = -1;
  VK_CHECK(vkGetSemaphoreFdKHR(device.device, &getInfo, &fd));
  return fd;
}

uint64_t readTimelineCounter(const Device& device, const SyncSemaphores& semaphores) {
  uint64_t value = 0;
  VK_CHECK(vkGetSemaphoreCounterValue(device.device, semaphores.timeline, &value));
  return value;
}

}  // namespace vksim
