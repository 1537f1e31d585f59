// A stand-in for an OpenCL ICD loader that behaves as Khronos' loader does on
// its first call: it splits OCL_ICD_FILENAMES into file names with strtok on
// the string getenv returned, which leaves the process's own environment
// holding only the first name. It finds no platform. Loaded through
// VKSIM_OPENCL_LIBRARY by tests/integration/test_opencl_loader.cpp, which
// checks that the app keeps the variable it was given. Every entry point the
// app resolves is here; only clGetPlatformIDs is ever called.
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
constexpr int32_t kPlatformNotFound = -1001;  // CL_PLATFORM_NOT_FOUND_KHR

void splitFileNamesInPlace() {
  static bool done = false;
  if (done) return;
  done = true;
  if (char* files = std::getenv("OCL_ICD_FILENAMES"))
    for (char* name = std::strtok(files, ":"); name; name = std::strtok(nullptr, ":")) {
    }
}
}  // namespace

extern "C" {

int32_t clGetPlatformIDs(uint32_t, void**, uint32_t* count) {
  splitFileNamesInPlace();
  if (count) *count = 0;
  return kPlatformNotFound;
}

// The rest answer "invalid value" if anything ever called them.
#define VKSIM_FAKE(name) \
  int32_t name() { return -30; }
VKSIM_FAKE(clGetPlatformInfo) VKSIM_FAKE(clGetDeviceIDs) VKSIM_FAKE(clGetDeviceInfo) VKSIM_FAKE(clCreateContext)
VKSIM_FAKE(clReleaseContext) VKSIM_FAKE(clCreateCommandQueueWithProperties) VKSIM_FAKE(clReleaseCommandQueue)
VKSIM_FAKE(clCreateProgramWithSource) VKSIM_FAKE(clBuildProgram) VKSIM_FAKE(clGetProgramBuildInfo)
VKSIM_FAKE(clReleaseProgram) VKSIM_FAKE(clCreateKernel) VKSIM_FAKE(clReleaseKernel) VKSIM_FAKE(clSetKernelArg)
VKSIM_FAKE(clEnqueueNDRangeKernel) VKSIM_FAKE(clCreateBuffer) VKSIM_FAKE(clCreateBufferWithProperties)
VKSIM_FAKE(clReleaseMemObject) VKSIM_FAKE(clEnqueueFillBuffer) VKSIM_FAKE(clEnqueueReadBuffer) VKSIM_FAKE(clFlush)
VKSIM_FAKE(clEnqueueMarkerWithWaitList) VKSIM_FAKE(clGetEventInfo) VKSIM_FAKE(clReleaseEvent)
VKSIM_FAKE(clCreateUserEvent) VKSIM_FAKE(clSetUserEventStatus) VKSIM_FAKE(clGetEventProfilingInfo)
VKSIM_FAKE(clGetDeviceAndHostTimer) VKSIM_FAKE(clGetExtensionFunctionAddressForPlatform)
#undef VKSIM_FAKE

}  // extern "C"
