// CUDA-owned vertex memory through the driver API's virtual memory management,
// with every driver function taken from cudaGetDriverEntryPointByVersion.
// Host code only (no kernels): compiled as C++ against the CUDA headers.
#include "sim/cuda/cuda_owned_memory.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <mutex>
#include <string>

#include "sim/cuda/cuda_check.h"

namespace vksim {
namespace {

// The driver functions this file calls, each typed by the ABI version that
// <cudaTypedefs.h> names in its suffix. The version asked of
// cudaGetDriverEntryPointByVersion is that same number: the driver then
// returns the function with exactly this signature, whatever newer variants
// it also has (the runtime API's rule for the cudaVersion argument).
struct DriverFunctions {
  PFN_cuGetErrorName_v6000 getErrorName = nullptr;
  PFN_cuDeviceGet_v2000 deviceGet = nullptr;
  PFN_cuDeviceGetAttribute_v2000 deviceGetAttribute = nullptr;
  PFN_cuMemGetAllocationGranularity_v10020 memGetAllocationGranularity = nullptr;
  PFN_cuMemCreate_v10020 memCreate = nullptr;
  PFN_cuMemExportToShareableHandle_v10020 memExportToShareableHandle = nullptr;
  PFN_cuMemAddressReserve_v10020 memAddressReserve = nullptr;
  PFN_cuMemMap_v10020 memMap = nullptr;
  PFN_cuMemSetAccess_v10020 memSetAccess = nullptr;
  PFN_cuMemUnmap_v10020 memUnmap = nullptr;
  PFN_cuMemAddressFree_v10020 memAddressFree = nullptr;
  PFN_cuMemRelease_v10020 memRelease = nullptr;
};

// One entry point. cudaGetDriverEntryPointByVersion returns cudaSuccess with
// a null pointer when the symbol is missing or too old, so the query result
// (cudaDriverEntryPointQueryResult) is what tells the cases apart; each gets
// its own sentence. cudaGetDriverEntryPoint (no version) is deprecated in
// CUDA 13 and never used here (rules E1, E2, E4).
template <typename Function>
std::string loadEntryPoint(const char* symbol, unsigned int version, Function* function) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t result = cudaGetDriverEntryPointByVersion(symbol, &address, version, cudaEnableDefault, &status);
  if (result != cudaSuccess)
    return std::string("cudaGetDriverEntryPointByVersion(\"") + symbol + "\", " + std::to_string(version) +
           ") failed (" + cudaGetErrorName(result) + ")";
  if (status == cudaDriverEntryPointSymbolNotFound)
    return std::string("the CUDA driver has no entry point ") + symbol;
  if (status == cudaDriverEntryPointVersionNotSufficent)
    return std::string("the CUDA driver's ") + symbol + " does not offer the ABI of CUDA version " +
           std::to_string(version);
  if (status != cudaDriverEntryPointSuccess || address == nullptr)
    return std::string("the CUDA driver returned no address for ") + symbol;
  *function = reinterpret_cast<Function>(address);
  return "";
}

// Every function, once per process; "" or the first one that is missing.
// The runtime loads the driver on its first call, so this also says, in its
// own words, when there is none.
std::string loadDriverFunctions(DriverFunctions* functions) {
  static std::once_flag once;
  static DriverFunctions loaded;
  static std::string failure;
  std::call_once(once, [] {
    const std::string problems[] = {
        loadEntryPoint("cuGetErrorName", 6000, &loaded.getErrorName),
        loadEntryPoint("cuDeviceGet", 2000, &loaded.deviceGet),
        loadEntryPoint("cuDeviceGetAttribute", 2000, &loaded.deviceGetAttribute),
        loadEntryPoint("cuMemGetAllocationGranularity", 10020, &loaded.memGetAllocationGranularity),
        loadEntryPoint("cuMemCreate", 10020, &loaded.memCreate),
        loadEntryPoint("cuMemExportToShareableHandle", 10020, &loaded.memExportToShareableHandle),
        loadEntryPoint("cuMemAddressReserve", 10020, &loaded.memAddressReserve),
        loadEntryPoint("cuMemMap", 10020, &loaded.memMap),
        loadEntryPoint("cuMemSetAccess", 10020, &loaded.memSetAccess),
        loadEntryPoint("cuMemUnmap", 10020, &loaded.memUnmap),
        loadEntryPoint("cuMemAddressFree", 10020, &loaded.memAddressFree),
        loadEntryPoint("cuMemRelease", 10020, &loaded.memRelease)};
    for (const std::string& problem : problems)
      if (!problem.empty() && failure.empty()) failure = problem;
  });
  *functions = loaded;
  return failure;
}

// "cuMemCreate failed (CUDA_ERROR_OUT_OF_MEMORY)".
std::string driverFailure(const DriverFunctions& driver, const char* call, CUresult result) {
  const char* name = nullptr;
  if (driver.getErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
  return std::string(call) + " failed (" + name + ", " + std::to_string(int(result)) + ")";
}

// The teardown's calls report on stderr and go on: each later step still
// releases what it can.
void reportDriverFailure(const DriverFunctions& driver, const char* call, CUresult result) {
  if (result != CUDA_SUCCESS)
    std::fprintf(stderr, "vkcuda-sim: %s\n", driverFailure(driver, call, result).c_str());
}

// Device memory that only this device accesses, exportable as a POSIX fd: the
// one handle type that both the allocation (requestedHandleTypes) and the
// export must name; an allocation made without it cannot be exported later.
CUmemAllocationProp allocationProperties(CUdevice device) {
  CUmemAllocationProp properties{};
  properties.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = int(device);
  properties.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return properties;
}

}  // namespace

Result<CudaVertexMemory> createCudaVertexMemory(int ordinal, uint64_t bytes) {
  DriverFunctions driver;
  if (std::string failure = loadDriverFunctions(&driver); !failure.empty())
    return fail("--memory-owner cuda: " + failure, kExitEnvironment);
  // The virtual memory calls act in the current context: the runtime's
  // primary context of `ordinal`, made current and initialised here (a
  // runtime call after cudaSetDevice creates it), so that the kernels that
  // write through the mapping run in the context that mapped it.
  if (cudaError_t result = CUDA_CHECK(cudaSetDevice(ordinal)); result != cudaSuccess)
    return fail(std::string("--memory-owner cuda: cudaSetDevice failed (") + cudaGetErrorName(result) + ")",
                kExitEnvironment);
  if (cudaError_t result = CUDA_CHECK(cudaFree(nullptr)); result != cudaSuccess)
    return fail(std::string("--memory-owner cuda: the CUDA context could not be created (") +
                    cudaGetErrorName(result) + ")",
                kExitEnvironment);

  auto failWith = [&](const char* call, CUresult result) {
    return fail("--memory-owner cuda: " + driverFailure(driver, call, result), kExitEnvironment);
  };
  CUdevice device = 0;
  if (CUresult result = driver.deviceGet(&device, ordinal); result != CUDA_SUCCESS)
    return failWith("cuDeviceGet", result);
  int virtualMemory = 0, fdExport = 0;
  if (CUresult result =
          driver.deviceGetAttribute(&virtualMemory, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, device);
      result != CUDA_SUCCESS)
    return failWith("cuDeviceGetAttribute(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)", result);
  if (CUresult result = driver.deviceGetAttribute(
          &fdExport, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device);
      result != CUDA_SUCCESS)
    return failWith("cuDeviceGetAttribute(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)", result);
  if (!virtualMemory || !fdExport)
    return fail("--memory-owner cuda: CUDA device " + std::to_string(ordinal) + " cannot " +
                    (!virtualMemory ? "allocate through virtual memory management (cuMemCreate)"
                                    : "export an allocation as a POSIX fd"),
                kExitEnvironment);

  const CUmemAllocationProp properties = allocationProperties(device);
  // cuMemCreate, cuMemAddressReserve and cuMemMap take only sizes (and
  // addresses) that are multiples of the allocation granularity (rule E8).
  size_t granularity = 0;
  if (CUresult result = driver.memGetAllocationGranularity(&granularity, &properties,
                                                           CU_MEM_ALLOC_GRANULARITY_MINIMUM);
      result != CUDA_SUCCESS)
    return failWith("cuMemGetAllocationGranularity", result);
  if (granularity == 0) granularity = 1;

  CudaVertexMemory memory;
  memory.ordinal = ordinal;
  memory.size = bytes;
  memory.allocationSize = (bytes + granularity - 1) / granularity * granularity;
  // Each failure below undoes what was done before it.
  auto undo = [&](const char* call, CUresult result) {
    destroyCudaVertexMemory(memory);
    return failWith(call, result);
  };
  CUmemGenericAllocationHandle allocation = 0;  // granularity-sized, fd-exportable (rule E8)
  if (CUresult result = driver.memCreate(&allocation, memory.allocationSize, &properties, 0); result != CUDA_SUCCESS)
    return undo("cuMemCreate", result);
  memory.allocation = allocation;
  CUdeviceptr address = 0;  // a range of the allocation's size, granularity-aligned (rule E8)
  if (CUresult result = driver.memAddressReserve(&address, memory.allocationSize, granularity, 0, 0);
      result != CUDA_SUCCESS)
    return undo("cuMemAddressReserve", result);
  memory.address = address;  // then the whole allocation mapped at its start (rule E8)
  if (CUresult result = driver.memMap(address, memory.allocationSize, 0, allocation, 0); result != CUDA_SUCCESS)
    return undo("cuMemMap", result);
  memory.mapped = true;
  // A mapping is inaccessible until cuMemSetAccess grants a device access:
  // the kernels (and cudaMemcpyAsync) read and write through it (rule E8).
  CUmemAccessDesc access{};
  access.location = properties.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if (CUresult result = driver.memSetAccess(address, memory.allocationSize, &access, 1); result != CUDA_SUCCESS)
    return undo("cuMemSetAccess", result);
  return memory;
}

Result<ExternalBuffer> exportCudaVertexMemory(const CudaVertexMemory& memory) {
  DriverFunctions driver;
  if (std::string failure = loadDriverFunctions(&driver); !failure.empty())
    return fail("--memory-owner cuda: " + failure, kExitEnvironment);
  if (memory.allocation == 0) return fail("--memory-owner cuda: no CUDA allocation to export", kExitEnvironment);
  // The allocation named CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in its
  // requestedHandleTypes (allocationProperties); for that type the shareable
  // handle is an int, a new fd that the caller owns (rule E9). It references
  // the allocation, so the memory stays alive while the fd, or any import
  // made from it, does, even after cuMemRelease (cuMemRelease's rule, E10:
  // the memory goes when every mapping and every handle to it, shareable
  // ones included, is gone).
  int fd = -1;
  if (CUresult result = driver.memExportToShareableHandle(&fd, CUmemGenericAllocationHandle(memory.allocation),
                                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
      result != CUDA_SUCCESS)
    return fail("--memory-owner cuda: " + driverFailure(driver, "cuMemExportToShareableHandle", result),
                kExitEnvironment);
  ExternalBuffer exported;
  exported.fd = fd;
  exported.allocationSize = memory.allocationSize;
  exported.size = memory.size;
  exported.dedicated = false;
  return exported;
}

void destroyCudaVertexMemory(CudaVertexMemory& memory) {
  if (memory.allocation == 0 && memory.address == 0) {
    memory = CudaVertexMemory{};
    return;
  }
  DriverFunctions driver;
  // Loaded when the memory was made: a failure here cannot happen.
  if (!loadDriverFunctions(&driver).empty()) return;
  CUDA_CHECK(cudaSetDevice(memory.ordinal));
  // The reverse of creation: a range is unmapped before it is freed, and the
  // allocation's handle is released last. cuMemRelease frees the physical
  // memory only once no mapping and no handle (the exported fd, Vulkan's
  // import) refers to it any more (rule E10).
  const CUdeviceptr address = CUdeviceptr(memory.address);
  if (memory.mapped) reportDriverFailure(driver, "cuMemUnmap", driver.memUnmap(address, memory.allocationSize));
  if (memory.address != 0)
    reportDriverFailure(driver, "cuMemAddressFree", driver.memAddressFree(address, memory.allocationSize));
  if (memory.allocation != 0)
    reportDriverFailure(driver, "cuMemRelease", driver.memRelease(CUmemGenericAllocationHandle(memory.allocation)));
  memory = CudaVertexMemory{};
}

}  // namespace vksim
