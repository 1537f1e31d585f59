// The reverse direction (--memory-owner cuda): vertex memory that CUDA
// allocates through the driver API's virtual memory management and exports as
// an opaque POSIX fd, which the renderer imports into a Vulkan buffer. The
// driver functions are reached through the runtime's
// cudaGetDriverEntryPointByVersion, so the program still links no libcuda and
// still starts without a driver. No CUDA types here: the driver's handles are
// carried as integers (sim/'s public headers stay free of them).
#pragma once
#include <cstdint>

#include "base/result.h"
#include "sim/simulation.h"

namespace vksim {

// One allocation, its reserved virtual address range and its mapping, in the
// order cuMemCreate -> cuMemAddressReserve -> cuMemMap -> cuMemSetAccess. A
// zero field means that step was not taken (destroyCudaVertexMemory undoes
// only what was done).
struct CudaVertexMemory {
  int ordinal = -1;             // the CUDA device that holds it
  uint64_t allocation = 0;      // CUmemGenericAllocationHandle from cuMemCreate
  uint64_t address = 0;         // CUdeviceptr from cuMemAddressReserve
  uint64_t allocationSize = 0;  // bytes, rounded up to cuMemGetAllocationGranularity: what Vulkan imports
  uint64_t size = 0;            // bytes of vertices used (<= allocationSize)
  bool mapped = false;          // cuMemMap succeeded: cuMemUnmap comes before cuMemAddressFree
};

// Allocates `bytes` (rounded up to the device's minimum granularity) on CUDA
// device `ordinal`, exportable as a POSIX fd, mapped read-write for that
// device. Makes `ordinal` current on the calling thread. On failure nothing is
// left allocated and the Error is one sentence with kExitEnvironment: a
// missing driver entry point (named), a device without virtual memory
// management or fd export, or the failed call and its CUresult name.
Result<CudaVertexMemory> createCudaVertexMemory(int ordinal, uint64_t bytes);

// A new opaque fd for the allocation (cuMemExportToShareableHandle), in an
// ExternalBuffer with allocationSize = memory.allocationSize, size =
// memory.size and dedicated = false (a cuMemCreate allocation belongs to no
// Vulkan resource). The caller owns the fd until an import takes it
// (ExportedHandles in app/interop/grid_resources.h); the fd holds a reference
// to the allocation, so closing it never frees the memory, and the memory
// lives on while the fd or an import made from it does.
Result<ExternalBuffer> exportCudaVertexMemory(const CudaVertexMemory& memory);

// Undoes createCudaVertexMemory: cuMemUnmap, cuMemAddressFree, cuMemRelease.
// Call it last: after every CUDA stream that wrote through `address` has
// finished and after Vulkan has freed the memory it imported from the fd
// (destroyCudaOwnedMemoryGrid, app/paths/cuda_owned_memory_path.cpp, says why). Reports a failed call on stderr and
// goes on; resets `memory`. A no-op on an empty one.
void destroyCudaVertexMemory(CudaVertexMemory& memory);

}  // namespace vksim
