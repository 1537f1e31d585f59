#include "lab/cuda/cuda_transfer_probe.h"

#include <cuda_runtime.h>

#include <algorithm>

#include "base/host_clock.h"
#include "sim/cuda/cuda_check.h"

namespace vksim {
namespace {

class CudaTransferProbeImpl final : public CudaTransferProbe {
 public:
  ~CudaTransferProbeImpl() override {
    cudaSetDevice(ordinal_);
    if (stream_) CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (device_) CUDA_CHECK(cudaFree(device_));
    if (pinned_) CUDA_CHECK(cudaFreeHost(pinned_));
    if (stream_) CUDA_CHECK(cudaStreamDestroy(stream_));
  }

  std::string init(int ordinal, uint64_t bytes) {
    ordinal_ = ordinal;
    bytes_ = bytes;
    if (CUDA_CHECK(cudaSetDevice(ordinal))) return "no CUDA device " + std::to_string(ordinal);
    if (CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)) ||
        CUDA_CHECK(cudaMalloc(&device_, bytes)) || CUDA_CHECK(cudaMallocHost(&pinned_, bytes)) ||
        CUDA_CHECK(cudaMemsetAsync(device_, 0x5A, bytes, stream_)) || CUDA_CHECK(cudaStreamSynchronize(stream_)))
      return "CUDA could not allocate " + std::to_string(bytes) + " bytes twice for the transfer probe";
    return {};
  }

  void* pinnedHost() override { return pinned_; }

  Result<double> deviceToHostGBps(void* destination, int repetitions) override {
    cudaSetDevice(ordinal_);
    double bestNs = 0.0;
    for (int r = 0; r < repetitions; ++r) {
      const int64_t start = hostNowNs();
      if (CUDA_CHECK(cudaMemcpyAsync(destination, device_, bytes_, cudaMemcpyDeviceToHost, stream_)) ||
          CUDA_CHECK(cudaStreamSynchronize(stream_)))
        return fail("cudaMemcpyAsync device to host failed", kExitRuntime);
      const double ns = double(hostNowNs() - start);
      bestNs = r == 0 ? ns : std::min(bestNs, ns);
    }
    return double(bytes_) / bestNs;
  }

  Result<> registerHost(void* pointer, uint64_t bytes, bool ioMemory) override {
    cudaSetDevice(ordinal_);
    const cudaError_t result =
        cudaHostRegister(pointer, bytes, ioMemory ? cudaHostRegisterIoMemory : cudaHostRegisterDefault);
    if (result != cudaSuccess) {
      cudaGetLastError();  // a refused registration is an answer, not a sticky error
      return fail(cudaGetErrorName(result), kExitEnvironment);
    }
    return {};
  }

  void unregisterHost(void* pointer) override {
    cudaSetDevice(ordinal_);
    CUDA_CHECK(cudaHostUnregister(pointer));
  }

 private:
  int ordinal_ = 0;
  uint64_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  void* device_ = nullptr;
  void* pinned_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<CudaTransferProbe>> CudaTransferProbe::create(int ordinal, uint64_t bytes) {
  auto probe = std::make_unique<CudaTransferProbeImpl>();
  if (std::string failure = probe->init(ordinal, bytes); !failure.empty()) return fail(failure, kExitEnvironment);
  return std::unique_ptr<CudaTransferProbe>(std::move(probe));
}

}  // namespace vksim
