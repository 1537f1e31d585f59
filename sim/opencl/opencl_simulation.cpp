// The OpenCL backend: imports the renderer's vertex buffer and its two binary
// semaphores (opaque fds) and runs every frame's turn of the value schedule as
//   wait renderDone -> acquire -> kernels -> release -> signal simDone
// on one in-order queue, flushed at the end of each turn so that the host never
// waits inside a frame. The kernels are OpenCL C (sim/opencl/opencl_kernels.cl),
// built here from the source the build embedded. The host side of each step
// (time, coefficients, drops) is sim/models.h, as for the other backends.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "base/config.h"
#include "sim/model_math.h"
#include "sim/models.h"
#include "sim/nvtx_ranges.h"
#include "sim/opencl/opencl_api.h"
#include "sim/opencl/opencl_simulation.h"
#include "sim/opencl/opencl_texture.h"
#include "sim/surface_texture.h"

namespace vksim {
namespace {

// The teardown's and the initial write's bound (as for the CUDA backend).
constexpr uint64_t kTeardownTimeoutNs = kDefaultWaitTimeoutNs;
constexpr uint64_t kInitialStateTimeoutNs = kDefaultWaitTimeoutNs;

// Work-group edge of the 2D kernels: 256 work-items. OpenCL promises no
// such size (the minimum of CL_DEVICE_MAX_WORK_GROUP_SIZE is 1, and
// CL_KERNEL_WORK_GROUP_SIZE may be lower still): a device that allows fewer
// refuses the launch with CL_INVALID_WORK_GROUP_SIZE, which CL_OK prints.
constexpr size_t kGroupEdge = 16;

std::string clFailure(const std::string& what, cl_int code) {
  return "OpenCL could not " + what + " (" + openClErrorName(code) + ")";
}

// A failed call inside a frame: one line on stderr (opencl_api.h).
#define CL_OK(call) VKSIM_CL_OK(call)

// After a successful import the fd is the implementation's: the caller must
// not close it (the ownership rule of docs/interop-walkthrough.md, "OpenCL").
// -1 tells the caller, who owns every fd until then and closes what is left.
void markFdImported(int& fd) { fd = -1; }

class OpenClSimulation final : public Simulation {
 public:
  OpenClSimulation(const ModelParams& params, const OpenClApi& api) : params_(clampModelParams(params)), api_(api) {}

  // Reverse order of create(); works on a partly created object too.
  ~OpenClSimulation() override {
    if (!queue_) {
      releaseObjects();
      return;
    }
    // Releasing memory that a queued kernel will still write, or a semaphore
    // with a wait outstanding, is undefined; leaking them until the process
    // ends is not.
    if (endUnknown_) {
      std::fprintf(stderr,
                   "vkcuda-sim: an OpenCL enqueue failed and no marker could follow it, so the end of the queue's "
                   "work is unknown; its imported buffer and semaphores are left in place\n");
      return;
    }
    if (lastEvent_ && !waitForEvent(lastEvent_, kTeardownTimeoutNs)) {
      std::fprintf(stderr,
                   "vkcuda-sim: the OpenCL queue did not finish within %llu s (a semaphore wait that was never "
                   "signalled?); its imported buffer and semaphores are left in place\n",
                   static_cast<unsigned long long>(kTeardownTimeoutNs / 1'000'000'000ull));
      return;
    }
    releaseObjects();
  }

  OpenClSimulation(const OpenClSimulation&) = delete;
  OpenClSimulation& operator=(const OpenClSimulation&) = delete;

  std::string create(const OpenClDeviceInfo& info, ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                     ExternalBuffer* texels) {
    const uint32_t n = params_.grid;
    if (n < kMinGrid || n > kMaxGrid) return "grid " + std::to_string(n) + " is outside the supported range";
    const uint64_t needed = vertexBytes();
    if (vertices.fd < 0) return "no vertex buffer fd was given";
    if (vertices.size < needed || vertices.allocationSize < vertices.size)
      return "the vertex buffer (" + std::to_string(vertices.size) + " bytes in an allocation of " +
             std::to_string(vertices.allocationSize) + ") is smaller than the " + std::to_string(needed) +
             " bytes a grid of " + std::to_string(n) + " needs";
    if (semaphores.renderDoneFd < 0 || semaphores.simDoneFd < 0)
      return "the binary semaphores renderDone and simDone were not exported (the OpenCL backend needs both)";
    if (texels && texels->fd < 0) return "no texel buffer fd was given";
    if (texels && (texels->size < surfaceTextureBytes(n) || texels->allocationSize < texels->size))
      return "the texel buffer (" + std::to_string(texels->size) + " bytes in an allocation of " +
             std::to_string(texels->allocationSize) + ") is smaller than the " +
             std::to_string(surfaceTextureBytes(n)) + " bytes of a surface texture of grid " + std::to_string(n);
    if (std::string failure = openDevice(info); !failure.empty()) return failure;
    if (std::string failure = buildKernels(texels != nullptr); !failure.empty()) return failure;

    if (std::string failure = importBuffer(vertices, "vertex buffer", &vertices_); !failure.empty()) return failure;
    // The texels are imported as the vertices are, and written in the same
    // turns: the render copies them into the image's levels.
    if (texels)
      if (std::string failure = importBuffer(*texels, "texel buffer", &texels_); !failure.empty()) return failure;
    if (std::string failure = importSemaphore(semaphores.renderDoneFd, "renderDone", &renderDone_); !failure.empty())
      return failure;
    if (std::string failure = importSemaphore(semaphores.simDoneFd, "simDone", &simDone_); !failure.empty())
      return failure;
    // The timeline fd stays the caller's: cl_khr_semaphore has no timeline type.

    if (params_.model == ModelKind::ripple) {
      const size_t fieldBytes = size_t(n) * n * sizeof(float);
      cl_int status = CL_SUCCESS;
      for (cl_mem& field : heights_) {
        field = api_.clCreateBuffer(context_, CL_MEM_READ_WRITE, fieldBytes, nullptr, &status);
        if (status != CL_SUCCESS || !field) {
          field = nullptr;
          return clFailure("allocate " + std::to_string(fieldBytes) + " bytes for the ripple state", status);
        }
      }
    }
    return "";
  }

  StepResult writeInitialState() override {
    StepResult result;
    result.status = StepStatus::failed;
    stepCount_ = 0;
    queued_.clear();
    failed_ = true;  // until every call below has succeeded
    // Written between an acquire and a release, as every turn (rules O9, O10).
    bool written = enqueueAcquire();
    if (written && params_.model == ModelKind::ripple) {
      const float zero = 0.0f;
      const size_t fieldBytes = size_t(params_.grid) * params_.grid * sizeof(float);
      for (cl_mem field : heights_)
        written = written && CL_OK(api_.clEnqueueFillBuffer(queue_, field, &zero, sizeof(zero), 0, fieldBytes, 0,
                                                            nullptr, nullptr));
      written = written && enqueueDrops({initialDrop(params_)}) && enqueueRippleVertices();
    } else if (written) {
      written = enqueueSinewave();
    }
    // Handed back before the signal below (rule O10).
    written = written && enqueueTexture() && enqueueRelease();
    // Render 0 waits on simDone: the initial writes reach Vulkan through a
    // signal it can see (cl_khr_semaphore: a signal executes once every
    // earlier command of the in-order queue has completed). Signalled even
    // when a write failed, so that render 0 is not left waiting (rules O10, O11).
    cl_event signalled = nullptr;
    if (!CL_OK(ext_.clEnqueueSignalSemaphoresKHR(queue_, 1, &simDone_, nullptr, 0, nullptr, &signalled)))
      return result;
    result.signalEnqueued = true;
    replaceLastEvent(signalled);
    if (!CL_OK(api_.clFlush(queue_)) || !written) return result;
    if (!waitForEvent(lastEvent_, kInitialStateTimeoutNs)) return result;
    failed_ = false;
    result.status = StepStatus::ok;
    return result;
  }

  StepResult step(const StepSync& sync, bool advance, uint64_t /*timeoutNs: the host never blocks here*/) override {
    const ProfileRange stepRange([&] { return stepRangeName(sync); });  // NVTX: "sim step: wait renderDone, ..."
    StepResult result;
    result.status = StepStatus::failed;
    if (failed_) return result;
    if (sync.mode != SyncMode::binary) {
      std::fprintf(stderr, "vkcuda-sim: the OpenCL backend runs binary semaphores only (cl_khr_semaphore)\n");
      return result;
    }
    // Sim k waits for render k's renderDone signal, which was submitted
    // before this call (a binary wait may only follow its signal: rule S4). Enqueued
    // only: the queue, not the host, waits. Binary semaphores take no payload.
    if (!CL_OK(ext_.clEnqueueWaitSemaphoresKHR(queue_, 1, &renderDone_, nullptr, 0, nullptr, nullptr)))
      return abandon(result);
    result.waitEnqueued = true;

    // --inject-fault sim-stalls is refused for this backend (app/cli.cpp):
    // a user event in front of the acquire hung the run on NVIDIA's OpenCL.
    // cl_khr_external_memory: OpenCL may use the imported buffer only between
    // an acquire and a release. They hand the memory over; they do not order
    // anything against Vulkan, which the semaphores do (rules O9, O10, O11). The texels follow
    // the vertices: written after them in queue order, from them, only when
    // they changed (a paused step leaves both as they were).
    bool launched = enqueueAcquire();
    launched = launched && (!advance || (enqueueModelStep() && enqueueTexture()));
    launched = launched && enqueueRelease();

    // Then signal simDone behind the release in queue order: render k+1 waits
    // on it and sees every write (rule O10). Signalled even when a launch failed, so that
    // the other side is not left waiting for ever.
    // FAULT HOOK (--inject-fault sim-skips-signal): no signal, and the result
    // says so; a marker stands in for isStepComplete().
    cl_event last = nullptr;
    if (sync.fault != StepFault::skipSignal) {
      if (!CL_OK(ext_.clEnqueueSignalSemaphoresKHR(queue_, 1, &simDone_, nullptr, 0, nullptr, &last)))
        return abandon(result);
      result.signalEnqueued = true;
    } else if (!CL_OK(api_.clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &last))) {
      return abandon(result);
    }
    replaceLastEvent(last);
    // Submits the turn to the device: without it an in-order queue may hold
    // the signal back while Vulkan waits for it.
    if (!CL_OK(api_.clFlush(queue_)) || !launched) return abandon(result);
    result.status = StepStatus::ok;
    return result;
  }

  void setParams(const ModelParams& params) override { params_ = changeParams(params_, params); }
  const ModelParams& params() const override { return params_; }
  void addDrop(const Drop& drop) override {
    if (params_.model == ModelKind::ripple) queued_.push_back(drop);
  }
  uint64_t stepCount() const override { return stepCount_; }

  bool finish(uint64_t timeoutNs) override {
    return !endUnknown_ && (!lastEvent_ || waitForEvent(lastEvent_, timeoutNs));
  }

  std::string backendName() const override { return "opencl"; }
  std::string deviceName() const override { return deviceName_ + " (OpenCL platform '" + platformName_ + "')"; }

  bool isStepComplete() override {
    if (!lastEvent_) return true;
    cl_int status = CL_COMPLETE;
    if (!CL_OK(api_.clGetEventInfo(lastEvent_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status,
                                   nullptr)))
      return true;  // nothing more will be known about it: do not keep a poll spinning
    return status == CL_COMPLETE || status < 0;
  }

  // Acquire, read, release behind every enqueued step; the host waits at most
  // timeoutNs for the read. The bounce buffer is a member: a read that did
  // not finish in time still writes it, until the destructor's wait.
  bool copyVerticesToHost(void* destination, uint64_t bytes, uint64_t timeoutNs) {
    if (failed_ || bytes > vertexBytes()) return false;
    readbackBounce_.resize(size_t(bytes));
    cl_event read = nullptr;
    const bool enqueued =  // acquire, read, release: rules O9, O10
        CL_OK(ext_.clEnqueueAcquireExternalMemObjectsKHR(queue_, 1, &vertices_, 0, nullptr, nullptr)) &&
        CL_OK(api_.clEnqueueReadBuffer(queue_, vertices_, CL_FALSE, 0, size_t(bytes), readbackBounce_.data(), 0,
                                       nullptr, &read)) &&
        CL_OK(ext_.clEnqueueReleaseExternalMemObjectsKHR(queue_, 1, &vertices_, 0, nullptr, nullptr)) &&
        CL_OK(api_.clFlush(queue_));
    if (read) replaceLastEvent(read);
    if (!enqueued || !waitForEvent(lastEvent_, timeoutNs)) return false;
    std::memcpy(destination, readbackBounce_.data(), size_t(bytes));
    return true;
  }

 private:
  std::string openDevice(const OpenClDeviceInfo& info) {
    cl_uint count = 0;
    if (cl_int status = api_.clGetPlatformIDs(0, nullptr, &count); status != CL_SUCCESS)
      return clFailure("list its platforms", status);
    std::vector<cl_platform_id> platforms(count);
    api_.clGetPlatformIDs(count, platforms.data(), nullptr);
    if (info.platformIndex < 0 || size_t(info.platformIndex) >= platforms.size())
      return "OpenCL platform " + std::to_string(info.platformIndex) + " is gone";
    const cl_platform_id platform = platforms[size_t(info.platformIndex)];
    if (cl_int status = api_.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count); status != CL_SUCCESS)
      return clFailure("list the devices of platform '" + info.platformName + "'", status);
    std::vector<cl_device_id> devices(count);
    api_.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr);
    if (info.deviceIndex < 0 || size_t(info.deviceIndex) >= devices.size())
      return "OpenCL device " + std::to_string(info.deviceIndex) + " of platform '" + info.platformName + "' is gone";
    device_ = devices[size_t(info.deviceIndex)];
    deviceName_ = info.name;
    platformName_ = info.platformName;
    // The extension entry points belong to the platform (cl_khr_icd: a KHR
    // extension function is asked of the platform that will run it).
    Result<OpenClExtensionApi> extensions = loadOpenClExtensionApi(api_, platform);
    if (!extensions) return extensions.error().message;
    ext_ = *extensions;
    const cl_context_properties contextProperties[] = {CL_CONTEXT_PLATFORM,
                                                       cl_context_properties(reinterpret_cast<intptr_t>(platform)), 0};
    cl_int status = CL_SUCCESS;
    context_ = api_.clCreateContext(contextProperties, 1, &device_, nullptr, nullptr, &status);
    if (status != CL_SUCCESS || !context_) {
      context_ = nullptr;
      return clFailure("create a context on '" + info.name + "'", status);
    }
    // In order: the wait, acquire, kernels, release and signal of a turn run
    // in the order enqueued, which is what the schedule relies on.
    const cl_queue_properties queueProperties[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    queue_ = api_.clCreateCommandQueueWithProperties(context_, device_, queueProperties, &status);
    if (status != CL_SUCCESS || !queue_) {
      queue_ = nullptr;
      return clFailure("create a command queue on '" + info.name + "'", status);
    }
    return "";
  }

  std::string buildKernels(bool texture) {
    Result<cl_program> program = buildOpenClProgram(api_, context_, device_, deviceName_);
    if (!program) return program.error().message;
    program_ = *program;
    if (texture)
      if (std::string failure = createOpenClTextureKernels(api_, program_, textureKernels_); !failure.empty())
        return failure;
    cl_int status = CL_SUCCESS;
    const struct {
      cl_kernel* kernel;
      const char* name;
    } kernels[] = {{&sinewaveKernel_, "sinewaveKernel"},
                   {&addDropKernel_, "addDropKernel"},
                   {&rippleStepKernel_, "rippleStepKernel"},
                   {&heightFieldVerticesKernel_, "heightFieldVerticesKernel"}};
    for (const auto& entry : kernels) {
      *entry.kernel = api_.clCreateKernel(program_, entry.name, &status);
      if (status != CL_SUCCESS || !*entry.kernel) {
        *entry.kernel = nullptr;
        return clFailure(std::string("create the kernel ") + entry.name, status);
      }
    }
    return "";
  }

  // cl_khr_external_memory: the buffer is created from the exported
  // allocation, named by its fd and by the one device that will access it
  // (the device handle list). It spans the whole allocation (the size that
  // Vulkan's memory requirements gave, as CUDA's import does); the kernels
  // write its first `size` bytes. OpenCL has no dedicated-allocation flag:
  // the fd alone says what it refers to. Rules O6, O7 and, for the size, M1.
  std::string importBuffer(ExternalBuffer& shared, const char* name, cl_mem* buffer) {
    const cl_mem_properties memoryProperties[] = {
        CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, cl_mem_properties(shared.fd),
        CL_DEVICE_HANDLE_LIST_KHR, cl_mem_properties(reinterpret_cast<uintptr_t>(device_)),
        CL_DEVICE_HANDLE_LIST_END_KHR, 0};
    cl_int status = CL_SUCCESS;
    *buffer = api_.clCreateBufferWithProperties(context_, memoryProperties, CL_MEM_READ_WRITE,
                                                size_t(shared.allocationSize), nullptr, &status);
    if (status != CL_SUCCESS || !*buffer) {
      *buffer = nullptr;
      return clFailure(std::string("import the ") + name + "'s memory (clCreateBufferWithProperties, opaque fd)",
                       status);
    }
    markFdImported(shared.fd);
    return "";
  }

  // cl_khr_external_memory: OpenCL may use an imported buffer only between
  // an acquire and a release; the vertices and the texels, both at once
  // (rules O9, O10).
  bool enqueueAcquire() {
    const cl_mem shared[] = {vertices_, texels_};
    return CL_OK(ext_.clEnqueueAcquireExternalMemObjectsKHR(queue_, texels_ ? 2 : 1, shared, 0, nullptr, nullptr));
  }
  bool enqueueRelease() {
    const cl_mem shared[] = {vertices_, texels_};
    return CL_OK(ext_.clEnqueueReleaseExternalMemObjectsKHR(queue_, texels_ ? 2 : 1, shared, 0, nullptr, nullptr));  // rule O10
  }

  // Every level of the texture from the vertices just written (in queue
  // order); nothing without a texel buffer.
  bool enqueueTexture() {
    return !texels_ || enqueueOpenClSurfaceTexture(api_, queue_, textureKernels_, vertices_, params_.grid, texels_);
  }

  // cl_khr_external_semaphore: a semaphore created with a handle property
  // imports that handle's payload at creation. Opaque fds have reference
  // transference, so this semaphore and Vulkan's share one payload; being
  // made at creation, the import is permanent (there is no earlier payload
  // that a temporary import could fall back to; rules O1, O2, O4).
  std::string importSemaphore(int& fd, const char* name, cl_semaphore_khr* semaphore) {
    const cl_semaphore_properties_khr properties[] = {
        CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
        cl_semaphore_properties_khr(fd), 0};
    cl_int status = CL_SUCCESS;
    *semaphore = ext_.clCreateSemaphoreWithPropertiesKHR(context_, properties, &status);
    if (status != CL_SUCCESS || !*semaphore) {
      *semaphore = nullptr;
      return clFailure(std::string("import the ") + name + " semaphore (clCreateSemaphoreWithPropertiesKHR, opaque fd)",
                       status);
    }
    markFdImported(fd);
    return "";
  }

  // A failed enqueue inside a turn: the queue's results are not trusted from
  // now on. What was enqueued is still flushed so that it can complete. The
  // turn's commands enqueued before the failure (a semaphore wait, an
  // acquire, kernels) still use the buffers and semaphores, so the teardown
  // must wait for them, not for the last turn's event: a marker with no wait
  // list completes after every command enqueued before it and becomes that
  // event. Without a marker nothing tells when they end: finish() then says
  // no, and the destructor leaves the objects in place. Either way no
  // semaphore is released while a command may still depend on it (rule O3).
  StepResult abandon(StepResult result) {
    failed_ = true;
    cl_event marker = nullptr;
    if (CL_OK(api_.clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker)))
      replaceLastEvent(marker);
    else
      endUnknown_ = true;
    api_.clFlush(queue_);
    result.status = StepStatus::failed;
    return result;
  }

  void replaceLastEvent(cl_event event) {
    if (lastEvent_) api_.clReleaseEvent(lastEvent_);
    lastEvent_ = event;
  }

  bool waitForEvent(cl_event event, uint64_t timeoutNs) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      cl_int status = CL_COMPLETE;
      if (!CL_OK(api_.clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr)))
        return false;
      if (status == CL_COMPLETE) return true;
      if (status < 0) {
        std::fprintf(stderr, "vkcuda-sim: an OpenCL command ended in %s\n", openClErrorName(status).c_str());
        return false;
      }
      if (uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
                       .count()) >= timeoutNs)
        return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  bool enqueue2d(cl_kernel kernel) {
    const size_t n = params_.grid;
    const size_t global[2] = {(n + kGroupEdge - 1) / kGroupEdge * kGroupEdge,
                              (n + kGroupEdge - 1) / kGroupEdge * kGroupEdge};
    const size_t local[2] = {kGroupEdge, kGroupEdge};
    return CL_OK(api_.clEnqueueNDRangeKernel(queue_, kernel, 2, nullptr, global, local, 0, nullptr, nullptr));
  }

  template <typename T>
  bool setArg(cl_kernel kernel, cl_uint index, const T& value) {
    return CL_OK(api_.clSetKernelArg(kernel, index, sizeof(T), &value));
  }

  bool enqueueModelStep() {
    ++stepCount_;
    if (params_.model != ModelKind::ripple) return enqueueSinewave();
    const std::vector<Drop> drops = stepDrops(params_, stepCount_, queued_);
    queued_.clear();
    if (!enqueueDrops(drops)) return false;
    const RippleCoefficients c = rippleCoefficients(params_);
    const cl_uint grid = params_.grid;
    if (!(setArg(rippleStepKernel_, 0, current()) && setArg(rippleStepKernel_, 1, previous()) &&
          setArg(rippleStepKernel_, 2, next()) && setArg(rippleStepKernel_, 3, grid) &&
          setArg(rippleStepKernel_, 4, c.courantSquared) && setArg(rippleStepKernel_, 5, c.keepPrevious) &&
          setArg(rippleStepKernel_, 6, c.inverseDenominator) && enqueue2d(rippleStepKernel_)))
      return false;
    // next becomes current, current previous; the old previous is reused.
    rotation_ = (rotation_ + 1) % 3;
    return enqueueRippleVertices();
  }

  bool enqueueSinewave() {
    const SinewaveFrame frame = sinewaveFrame(params_, stepCount_);
    const cl_uint grid = frame.grid;
    return setArg(sinewaveKernel_, 0, vertices_) && setArg(sinewaveKernel_, 1, grid) &&
           setArg(sinewaveKernel_, 2, frame.amplitude) && setArg(sinewaveKernel_, 3, frame.waveNumberX) &&
           setArg(sinewaveKernel_, 4, frame.waveNumberZ) && setArg(sinewaveKernel_, 5, frame.time) &&
           enqueue2d(sinewaveKernel_);
  }

  // Drops one launch each, in order, each over its own footprint: the same
  // sequence of additions per cell as RippleModel::applyDrop.
  bool enqueueDrops(const std::vector<Drop>& drops) {
    const cl_uint grid = params_.grid;
    for (const Drop& drop : drops) {
      const DropShape shape = makeDropShape(drop, grid);
      const CellRect& cells = shape.cells;
      if (isEmpty(cells)) continue;  // changes no cell
      const cl_uint endI = cells.endI, endJ = cells.endJ;
      if (!(setArg(addDropKernel_, 0, current()) && setArg(addDropKernel_, 1, previous()) &&
            setArg(addDropKernel_, 2, grid) && setArg(addDropKernel_, 3, shape.x) && setArg(addDropKernel_, 4, shape.z) &&
            setArg(addDropKernel_, 5, shape.amplitude) && setArg(addDropKernel_, 6, shape.inverseTwoSigmaSquared) &&
            setArg(addDropKernel_, 7, endI) && setArg(addDropKernel_, 8, endJ) && enqueueCells(addDropKernel_, cells)))
        return false;
    }
    return true;
  }

  // One work-item per cell of `cells`: the launch starts at its first cell (a
  // global offset) and rounds its size up to whole groups; the kernel skips
  // what lies past the ends.
  bool enqueueCells(cl_kernel kernel, const CellRect& cells) {
    const size_t offset[2] = {cells.firstI, cells.firstJ};
    const size_t global[2] = {(cells.endI - cells.firstI + kGroupEdge - 1) / kGroupEdge * kGroupEdge,
                              (cells.endJ - cells.firstJ + kGroupEdge - 1) / kGroupEdge * kGroupEdge};
    const size_t local[2] = {kGroupEdge, kGroupEdge};
    return CL_OK(api_.clEnqueueNDRangeKernel(queue_, kernel, 2, offset, global, local, 0, nullptr, nullptr));
  }

  bool enqueueRippleVertices() {
    const cl_uint grid = params_.grid;
    return setArg(heightFieldVerticesKernel_, 0, current()) && setArg(heightFieldVerticesKernel_, 1, grid) &&
           setArg(heightFieldVerticesKernel_, 2, vertices_) && enqueue2d(heightFieldVerticesKernel_);
  }

  // The three ripple fields by role; rotation_ advances once a step.
  cl_mem previous() const { return heights_[rotation_ % 3]; }
  cl_mem current() const { return heights_[(rotation_ + 1) % 3]; }
  cl_mem next() const { return heights_[(rotation_ + 2) % 3]; }

  uint64_t vertexBytes() const { return uint64_t(params_.grid) * params_.grid * sizeof(Vertex); }

  void releaseObjects() {
    if (lastEvent_) api_.clReleaseEvent(lastEvent_);
    for (cl_mem shared : {vertices_, texels_})
      if (shared) CL_OK(api_.clReleaseMemObject(shared));  // before Vulkan frees the allocation (rule O8)
    for (cl_semaphore_khr semaphore : {renderDone_, simDone_})  // the queue's last event is done (rule O3)
      if (semaphore) CL_OK(ext_.clReleaseSemaphoreKHR(semaphore));
    for (cl_mem field : heights_)
      if (field) CL_OK(api_.clReleaseMemObject(field));
    for (cl_kernel kernel : {sinewaveKernel_, addDropKernel_, rippleStepKernel_, heightFieldVerticesKernel_})
      if (kernel) CL_OK(api_.clReleaseKernel(kernel));
    releaseOpenClTextureKernels(api_, textureKernels_);
    if (program_) CL_OK(api_.clReleaseProgram(program_));
    if (queue_) CL_OK(api_.clReleaseCommandQueue(queue_));
    if (context_) CL_OK(api_.clReleaseContext(context_));
  }

  ModelParams params_;
  const OpenClApi& api_;
  OpenClExtensionApi ext_;
  std::string deviceName_, platformName_;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel sinewaveKernel_ = nullptr, addDropKernel_ = nullptr, rippleStepKernel_ = nullptr,
            heightFieldVerticesKernel_ = nullptr;
  OpenClTextureKernels textureKernels_;  // only with a texel buffer
  cl_mem vertices_ = nullptr;  // imported
  cl_mem texels_ = nullptr;    // imported; null with the texture off
  cl_semaphore_khr renderDone_ = nullptr, simDone_ = nullptr;
  cl_mem heights_[3] = {nullptr, nullptr, nullptr};  // ripple: previous, current, next by rotation_
  uint32_t rotation_ = 0;
  cl_event lastEvent_ = nullptr;  // the last command of the last turn (its signal, or a marker)
  std::vector<Drop> queued_;
  std::vector<uint8_t> readbackBounce_;  // copyVerticesToHost's destination on the device's side
  uint64_t stepCount_ = 0;
  bool failed_ = false;
  bool endUnknown_ = false;  // abandon() could enqueue no marker: lastEvent_ does not cover the queue
};

}  // namespace

Result<std::unique_ptr<Simulation>> createOpenClSimulation(const ModelParams& params, const OpenClDeviceInfo& device,
                                                           ExternalBuffer& vertices, ExternalSemaphores& semaphores,
                                                           ExternalBuffer* texels) {
  const Result<const OpenClApi*> api = loadOpenClApi();
  if (!api) return fail(api.error().message, kExitEnvironment);
  if (const std::string missing = missingOpenClInterop(device); !missing.empty())
    return fail("OpenCL device '" + device.name + "' lacks " + missing, kExitEnvironment);
  auto simulation = std::make_unique<OpenClSimulation>(params, **api);
  if (std::string failure = simulation->create(device, vertices, semaphores, texels); !failure.empty())
    return fail(failure, kExitEnvironment);  // the destructor releases what was made
  return std::unique_ptr<Simulation>(std::move(simulation));
}

bool copyOpenClVerticesToHost(Simulation& simulation, void* destination, uint64_t bytes, uint64_t timeoutNs) {
  auto* opencl = dynamic_cast<OpenClSimulation*>(&simulation);
  return opencl && opencl->copyVerticesToHost(destination, bytes, timeoutNs);
}

}  // namespace vksim
