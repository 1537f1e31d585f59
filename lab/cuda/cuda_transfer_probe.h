// The CUDA half of the copy-path probe (tests/gpu/copy_probe.cpp): how fast
// the simulation's output can leave device memory for host memory that
// Vulkan then uploads from. No CUDA type here.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"

namespace vksim {

class CudaTransferProbe {
 public:
  // A device buffer of `bytes` (filled with a pattern) and a pinned host
  // buffer of the same size (cudaMallocHost, as the copy path's
  // hostVertices) on CUDA device `ordinal`. Exit code 3 when there is none.
  static Result<std::unique_ptr<CudaTransferProbe>> create(int ordinal, uint64_t bytes);
  virtual ~CudaTransferProbe() = default;

  // The pinned host buffer: what the copy path's simulation copies into today.
  virtual void* pinnedHost() = 0;

  // GB/s of cudaMemcpyAsync device -> `destination` (bytes), best of
  // `repetitions` timed on the host around copy + synchronize. CUDA stages
  // pageable memory through its own pinned buffers; memory it knows as
  // pinned or registered is written by the copy engine directly. An Error
  // when a copy failed.
  virtual Result<double> deviceToHostGBps(void* destination, int repetitions) = 0;

  // cudaHostRegister of `pointer` (bytes, page-aligned): with ioMemory, as
  // device memory mapped through a PCIe BAR (cudaHostRegisterIoMemory).
  // The Error holds CUDA's error name when the driver refuses it.
  virtual Result<> registerHost(void* pointer, uint64_t bytes, bool ioMemory) = 0;
  virtual void unregisterHost(void* pointer) = 0;
};

}  // namespace vksim
