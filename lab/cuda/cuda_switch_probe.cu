#include "lab/cuda/cuda_switch_probe.h"

#include <cuda_runtime.h>

#include <atomic>
#include <string>

#include "base/host_clock.h"
#include "sim/cuda/cuda_check.h"

namespace vksim {
namespace {

// %globaltimer: the GPU's nanosecond timer (PTX ISA, special registers), the
// clock the README's switch figures were read on.
__device__ inline uint64_t globalTimerNs() {
  uint64_t now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

struct Marks {
  uint64_t startNs, endNs;
};

// The smallest piece of CUDA work that can say when it ran: one thread, two
// readings of the timer. The writes go to mapped host memory, so reading
// them needs no CUDA call that could put the CUDA context back on the GPU.
__global__ void markedKernel(Marks* marks) {
  const uint64_t start = globalTimerNs();
  const uint64_t end = globalTimerNs();
  marks->startNs = start;
  marks->endNs = end;
}

struct TieMailbox {
  uint32_t ready;     // the kernel runs and polls `go`
  uint32_t go;        // set by the host between two host clock readings
  uint32_t answered;  // 1: gpuNs holds the reading; 2: gave up waiting
  uint32_t padding;
  uint64_t gpuNs;    // %globaltimer right after `go` was seen
  uint64_t stepNs;   // how far the timer moved at its next change: its resolution
};

// Waits (at most timeoutNs on the GPU's clock) for the host's flag, then
// reads the timer. The host's window [set go, see answered] contains the
// reading, whatever the PCIe or C2C latency in either direction.
__global__ void clockTieKernel(volatile TieMailbox* mailbox, uint64_t timeoutNs) {
  const uint64_t begin = globalTimerNs();
  mailbox->ready = 1;
  __threadfence_system();
  while (mailbox->go == 0) {
    if (globalTimerNs() - begin > timeoutNs) {
      mailbox->answered = 2;
      return;
    }
  }
  const uint64_t reading = globalTimerNs();
  uint64_t next = reading;
  while (next == reading) next = globalTimerNs();
  mailbox->gpuNs = reading;
  mailbox->stepNs = next - reading;
  __threadfence_system();
  mailbox->answered = 1;
}

constexpr int kTieTries = 16;

class CudaSwitchProbePeer final : public SwitchProbePeer {
 public:
  ~CudaSwitchProbePeer() override {
    cudaSetDevice(ordinal_);
    if (stream_) CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (done_) CUDA_CHECK(cudaEventDestroy(done_));
    if (marks_) CUDA_CHECK(cudaFreeHost(marks_));
    if (mailbox_) CUDA_CHECK(cudaFreeHost(mailbox_));
    if (stream_) CUDA_CHECK(cudaStreamDestroy(stream_));
  }

  std::string init(int ordinal) {
    ordinal_ = ordinal;
    if (CUDA_CHECK(cudaSetDevice(ordinal))) return "no CUDA device " + std::to_string(ordinal);
    if (CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)) ||
        CUDA_CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming)) ||
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&marks_), sizeof(Marks), cudaHostAllocMapped)) ||
        CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&mailbox_), sizeof(TieMailbox), cudaHostAllocMapped)) ||
        CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&marksDevice_), marks_, 0)) ||
        CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mailboxDevice_), mailbox_, 0)))
      return "CUDA could not set up the switch probe (stream, event or mapped host memory)";
    // Both kernels loaded now, not at their first launch inside the
    // ping-pong (lazy loading would time the module load instead).
    cudaFuncAttributes attributes{};
    if (CUDA_CHECK(cudaFuncGetAttributes(&attributes, markedKernel)) ||
        CUDA_CHECK(cudaFuncGetAttributes(&attributes, clockTieKernel)))
      return "CUDA could not load the switch probe's kernels";
    return {};
  }

  std::string apiName() const override { return "cuda"; }

  bool launchMarked() override {
    if (outstanding_) return false;
    cudaSetDevice(ordinal_);
    *marks_ = Marks{0, 0};
    markedKernel<<<1, 1, 0, stream_>>>(marksDevice_);
    if (CUDA_CHECK(cudaGetLastError()) || CUDA_CHECK(cudaEventRecord(done_, stream_))) return false;
    outstanding_ = true;
    return true;
  }

  bool isMarkedDone() override {
    if (!outstanding_) return true;
    const cudaError_t state = cudaEventQuery(done_);
    if (state == cudaErrorNotReady) return false;
    CUDA_CHECK(state);
    outstanding_ = false;  // done, or failed: readMarked then says whether marks came
    return true;
  }

  bool readMarked(PeerInterval* interval) override {
    if (outstanding_) return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    const volatile Marks* marks = marks_;
    interval->startNs = marks->startNs;
    interval->endNs = marks->endNs;
    return interval->startNs != 0 && interval->endNs >= interval->startNs;
  }

  Result<ClockTie> tieClock(uint64_t timeoutNs) override {
    cudaSetDevice(ordinal_);
    ClockTie best{};
    bool found = false;
    for (int attempt = 0; attempt < kTieTries; ++attempt) {
      volatile TieMailbox* mailbox = mailbox_;
      mailbox->ready = 0;
      mailbox->go = 0;
      mailbox->answered = 0;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      clockTieKernel<<<1, 1, 0, stream_>>>(mailboxDevice_, timeoutNs);
      if (CUDA_CHECK(cudaGetLastError())) return fail("CUDA could not launch the clock-tie kernel", kExitEnvironment);
      const int64_t waitStart = hostNowNs();
      while (mailbox->ready == 0)
        if (hostNowNs() - waitStart > int64_t(timeoutNs)) {
          mailbox->go = 1;  // let it end if it starts after all
          return fail("the CUDA clock-tie kernel did not start within the timeout", kExitRuntime);
        }
      const int64_t before = hostNowNs();
      mailbox->go = 1;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      while (mailbox->answered == 0)
        if (hostNowNs() - before > int64_t(timeoutNs))
          return fail("the CUDA clock-tie kernel did not answer within the timeout", kExitRuntime);
      const int64_t after = hostNowNs();
      if (CUDA_CHECK(cudaStreamSynchronize(stream_)))
        return fail("the CUDA clock-tie kernel failed", kExitRuntime);
      if (mailbox->answered != 1) continue;
      ClockTie tie;
      const int64_t middle = before + (after - before) / 2;
      tie.offsetNs = middle - int64_t(mailbox->gpuNs);
      tie.uncertaintyNs = uint64_t(after - before) / 2 + mailbox->stepNs;
      if (!found || tie.uncertaintyNs < best.uncertaintyNs) best = tie;
      found = true;
    }
    if (!found) return fail("the CUDA clock could not be tied to the host clock", kExitRuntime);
    return best;
  }

 private:
  int ordinal_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_ = nullptr;
  Marks* marks_ = nullptr;
  Marks* marksDevice_ = nullptr;
  TieMailbox* mailbox_ = nullptr;
  TieMailbox* mailboxDevice_ = nullptr;
  bool outstanding_ = false;
};

}  // namespace

Result<std::unique_ptr<SwitchProbePeer>> createCudaSwitchProbePeer(int ordinal) {
  auto peer = std::make_unique<CudaSwitchProbePeer>();
  if (std::string failure = peer->init(ordinal); !failure.empty()) return fail(failure, kExitEnvironment);
  return std::unique_ptr<SwitchProbePeer>(std::move(peer));
}

}  // namespace vksim
