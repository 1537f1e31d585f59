// The OpenCL peer of the context-switch probe: an empty kernel timed by its
// event's profiling counters, and the device timer tied to the host clock.
#include "lab/opencl/opencl_switch_probe.h"

#include <cstdio>
#include <string>
#include <vector>

#include "base/config.h"
#include "base/host_clock.h"
#include "sim/opencl/opencl_api.h"

namespace vksim {
namespace {

// The smallest piece of OpenCL work: a kernel that does nothing. Its event's
// profiling counters say when it ran, so the kernel itself writes nothing.
constexpr const char* kMarkedKernelSource = "__kernel void markedKernel(void) {}\n";

constexpr int kTieTries = 16;  // as the CUDA peer: the narrowest window of these is kept
constexpr uint64_t kTeardownTimeoutNs = kDefaultWaitTimeoutNs;

std::string clFailure(const std::string& what, cl_int code) {
  return "OpenCL could not " + what + " for the switch probe (" + openClErrorName(code) + ")";
}

class OpenClSwitchProbePeer final : public SwitchProbePeer {
 public:
  explicit OpenClSwitchProbePeer(const OpenClApi& api) : api_(api) {}

  ~OpenClSwitchProbePeer() override {
    if (event_ && outstanding_) {
      const int64_t start = hostNowNs();
      while (!isMarkedDone())
        if (hostNowNs() - start > int64_t(kTeardownTimeoutNs)) {
          // Releasing a queue whose kernel never ended could block or worse;
          // leaving it until the process ends cannot.
          std::fprintf(
              stderr,
              "vkcuda-sim: the OpenCL switch probe's kernel did not finish; its queue is left in place\n");
          return;
        }
    }
    if (event_) api_.clReleaseEvent(event_);
    if (kernel_) api_.clReleaseKernel(kernel_);
    if (program_) api_.clReleaseProgram(program_);
    if (queue_) api_.clReleaseCommandQueue(queue_);
    if (context_) api_.clReleaseContext(context_);
  }

  OpenClSwitchProbePeer(const OpenClSwitchProbePeer&) = delete;
  OpenClSwitchProbePeer& operator=(const OpenClSwitchProbePeer&) = delete;

  std::string init(const OpenClDeviceInfo& info) {
    cl_uint count = 0;
    if (cl_int status = api_.clGetPlatformIDs(0, nullptr, &count); status != CL_SUCCESS)
      return clFailure("list its platforms", status);
    std::vector<cl_platform_id> platforms(count);
    api_.clGetPlatformIDs(count, platforms.data(), nullptr);
    if (info.platformIndex < 0 || size_t(info.platformIndex) >= platforms.size())
      return "OpenCL platform " + std::to_string(info.platformIndex) + " is gone";
    const cl_platform_id platform = platforms[size_t(info.platformIndex)];
    if (cl_int status = api_.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
        status != CL_SUCCESS)
      return clFailure("list the devices of platform '" + info.platformName + "'", status);
    std::vector<cl_device_id> devices(count);
    api_.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr);
    if (info.deviceIndex < 0 || size_t(info.deviceIndex) >= devices.size())
      return "OpenCL device " + std::to_string(info.deviceIndex) + " of platform '" + info.platformName +
             "' is gone";
    device_ = devices[size_t(info.deviceIndex)];

    const cl_context_properties contextProperties[] = {
        CL_CONTEXT_PLATFORM, cl_context_properties(reinterpret_cast<intptr_t>(platform)), 0};
    cl_int status = CL_SUCCESS;
    context_ = api_.clCreateContext(contextProperties, 1, &device_, nullptr, nullptr, &status);
    if (status != CL_SUCCESS || !context_) {
      context_ = nullptr;
      return clFailure("create a context on '" + info.name + "'", status);
    }
    // In order, with profiling: without CL_QUEUE_PROFILING_ENABLE the event
    // has no start and end to read (clGetEventProfilingInfo answers
    // CL_PROFILING_INFO_NOT_AVAILABLE).
    const cl_queue_properties queueProperties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    queue_ = api_.clCreateCommandQueueWithProperties(context_, device_, queueProperties, &status);
    if (status != CL_SUCCESS || !queue_) {
      queue_ = nullptr;
      return clFailure("create a command queue on '" + info.name + "'", status);
    }

    const char* source = kMarkedKernelSource;
    program_ = api_.clCreateProgramWithSource(context_, 1, &source, nullptr, &status);
    if (status != CL_SUCCESS || !program_) {
      program_ = nullptr;
      return clFailure("create the marked kernel's program", status);
    }
    status = api_.clBuildProgram(program_, 1, &device_, "", nullptr, nullptr);
    if (status != CL_SUCCESS) {
      size_t size = 0;
      api_.clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      if (size)
        api_.clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
      return clFailure("build the marked kernel for '" + info.name + "'", status) +
             "; build log: " + (log.empty() ? "(empty)" : log);
    }
    kernel_ = api_.clCreateKernel(program_, "markedKernel", &status);
    if (status != CL_SUCCESS || !kernel_) {
      kernel_ = nullptr;
      return clFailure("create the marked kernel", status);
    }
    // Nanoseconds per tick of the device timer (the profiling counters' and
    // clGetDeviceAndHostTimer's alike): a reading is ambiguous by one tick.
    size_t resolution = 0;
    if (api_.clGetDeviceInfo(device_, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof(resolution), &resolution,
                             nullptr) == CL_SUCCESS)
      timerResolutionNs_ = resolution;
    return "";
  }

  std::string apiName() const override { return "opencl"; }

  bool launchMarked() override {
    if (outstanding_) return false;
    if (event_) {
      api_.clReleaseEvent(event_);
      event_ = nullptr;
    }
    failed_ = false;
    const size_t global = 1;
    if (api_.clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global, nullptr, 0, nullptr, &event_) !=
        CL_SUCCESS) {
      event_ = nullptr;
      return false;
    }
    outstanding_ = true;
    // Enqueued commands may wait on the host until a flush: without it the
    // kernel might never reach the device while the probe polls its event.
    if (api_.clFlush(queue_) != CL_SUCCESS) failed_ = true;
    return !failed_;
  }

  bool isMarkedDone() override {
    if (!outstanding_) return true;
    cl_int state = CL_QUEUED;
    if (api_.clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(state), &state, nullptr) !=
        CL_SUCCESS)
      state = CL_INVALID_EVENT;  // cannot ask: treat as failed so that the probe does not spin forever
    if (state > CL_COMPLETE) return false;  // queued, submitted or running
    // Complete, or a negative error code: readMarked then says whether marks came.
    outstanding_ = false;
    failed_ = state < 0;
    return true;
  }

  bool readMarked(PeerInterval* interval) override {
    if (outstanding_ || failed_ || !event_) return false;
    cl_ulong start = 0, end = 0;
    if (api_.clGetEventProfilingInfo(event_, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr) !=
            CL_SUCCESS ||
        api_.clGetEventProfilingInfo(event_, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr) !=
            CL_SUCCESS)
      return false;
    interval->startNs = start;
    interval->endNs = end;
    return start != 0 && end >= start;
  }

  // The event's profiling counters and clGetDeviceAndHostTimer's
  // device_timestamp are one timer. The OpenCL 3.0 API specification, in its
  // description of clGetDeviceAndHostTimer (and clGetHostTimer), says that a
  // timestamp that clGetEventProfilingInfo returns for an event on a device
  // and a device timestamp queried from that device always share one
  // timebase, and gives device_timestamp the resolution of the profiling
  // timer (CL_DEVICE_PROFILING_TIMER_RESOLUTION); reference page:
  // https://registry.khronos.org/OpenCL/sdk/latest/docs/man/html/clGetDeviceAndHostTimer.html
  // So tying that device timer to the host clock ties the marks too.
  //
  // The host_timestamp it returns is not used: its timebase is left to the
  // implementation, so it need not be hostNowNs()'s clock. Instead the call
  // is bracketed by two hostNowNs() readings; the device reading was taken
  // somewhere inside that window, so its middle is the estimate and its
  // half-width the uncertainty (plus one timer tick).
  Result<ClockTie> tieClock(uint64_t timeoutNs) override {
    if (!api_.clGetDeviceAndHostTimer) return tieByQueuedStamp(timeoutNs);
    ClockTie best{};
    bool found = false;
    const int64_t begin = hostNowNs();
    for (int attempt = 0; attempt < kTieTries; ++attempt) {
      cl_ulong deviceNs = 0, implementationHostNs = 0;
      const int64_t before = hostNowNs();
      const cl_int status = api_.clGetDeviceAndHostTimer(device_, &deviceNs, &implementationHostNs);
      const int64_t after = hostNowNs();
      // Missing before OpenCL 2.1 and optional in 3.0 (NVIDIA's 580 driver
      // answers CL_INVALID_OPERATION): tie through a marker's QUEUED stamp.
      if (status == CL_INVALID_OPERATION) return tieByQueuedStamp(timeoutNs);
      if (status != CL_SUCCESS)
        return fail(clFailure("read the device timer (clGetDeviceAndHostTimer)", status), kExitRuntime);
      ClockTie tie;
      tie.offsetNs = before + (after - before) / 2 - int64_t(deviceNs);
      tie.uncertaintyNs = uint64_t(after - before) / 2 + timerResolutionNs_;
      if (!found || tie.uncertaintyNs < best.uncertaintyNs) best = tie;
      found = true;
      if (after - begin > int64_t(timeoutNs)) break;  // keep what the time allowed
    }
    return best;
  }

 private:
  // The tie where the host cannot read the device timer: an event's
  // CL_PROFILING_COMMAND_QUEUED is "when the command is enqueued by the host",
  // on the same device timer as its START and END (clGetEventProfilingInfo).
  // Bracketing one clEnqueueMarkerWithWaitList between two host readings
  // therefore ties that timer to the host clock, to within half the call plus
  // a timer tick; narrowest of kTieTries. It assumes the implementation takes
  // the stamp inside the call (one that stamped at flush time would show as
  // drift or impossible gaps in the probe's own checks).
  Result<ClockTie> tieByQueuedStamp(uint64_t timeoutNs) {
    ClockTie best{};
    bool found = false;
    const int64_t begin = hostNowNs();
    for (int attempt = 0; attempt < kTieTries; ++attempt) {
      cl_event marker = nullptr;
      const int64_t before = hostNowNs();
      const cl_int status = api_.clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker);
      const int64_t after = hostNowNs();
      if (status != CL_SUCCESS) return fail(clFailure("enqueue a marker to tie the clock", status), kExitRuntime);
      api_.clFlush(queue_);
      cl_int state = CL_QUEUED;
      while (api_.clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(state), &state, nullptr) ==
                 CL_SUCCESS &&
             state > CL_COMPLETE) {
        if (hostNowNs() - begin > int64_t(timeoutNs)) {
          api_.clReleaseEvent(marker);
          return fail("the OpenCL marker that ties the clock did not complete in time", kExitRuntime);
        }
      }
      cl_ulong queued = 0;
      const cl_int read =
          api_.clGetEventProfilingInfo(marker, CL_PROFILING_COMMAND_QUEUED, sizeof(queued), &queued, nullptr);
      api_.clReleaseEvent(marker);
      if (state < 0 || read != CL_SUCCESS || queued == 0)
        return fail("the OpenCL marker that ties the clock has no QUEUED profiling stamp", kExitEnvironment);
      ClockTie tie;
      tie.offsetNs = before + (after - before) / 2 - int64_t(queued);
      tie.uncertaintyNs = uint64_t(after - before) / 2 + timerResolutionNs_;
      if (!found || tie.uncertaintyNs < best.uncertaintyNs) best = tie;
      found = true;
    }
    return best;
  }

  const OpenClApi& api_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  cl_event event_ = nullptr;  // the last marked kernel's
  uint64_t timerResolutionNs_ = 0;
  bool outstanding_ = false;
  bool failed_ = false;
};

}  // namespace

Result<std::unique_ptr<SwitchProbePeer>> createOpenClSwitchProbePeer(const OpenClDeviceInfo& device) {
  Result<const OpenClApi*> api = loadOpenClApi();
  if (!api) return tl::unexpected(api.error());
  auto peer = std::make_unique<OpenClSwitchProbePeer>(**api);
  if (std::string failure = peer->init(device); !failure.empty()) return fail(failure, kExitEnvironment);
  return std::unique_ptr<SwitchProbePeer>(std::move(peer));
}

}  // namespace vksim
