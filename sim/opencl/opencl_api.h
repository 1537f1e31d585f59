// Internal to sim/opencl/ and lab/opencl/: OpenCL loaded at run time. The program never links
// libOpenCL: dlopen finds the ICD loader by its soname (LD_LIBRARY_PATH and
// the system paths apply, so a loader carried beside the program is found),
// the core entry points come from dlsym, and the extension entry points from
// clGetExtensionFunctionAddressForPlatform, as the extension specifications
// require for KHR extension functions. Signatures are the Khronos headers':
// decltype of the core declarations, the *_fn typedefs of cl_ext.h.
#pragma once
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <string>

#include "base/result.h"

namespace vksim {

#define VKSIM_OPENCL_CORE_FUNCTIONS(X)                                                                   \
  X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext)      \
  X(clReleaseContext) X(clCreateCommandQueueWithProperties) X(clReleaseCommandQueue)                    \
  X(clCreateProgramWithSource) X(clBuildProgram) X(clGetProgramBuildInfo) X(clReleaseProgram)           \
  X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg) X(clEnqueueNDRangeKernel) X(clCreateBuffer)    \
  X(clCreateBufferWithProperties) X(clReleaseMemObject) X(clEnqueueFillBuffer) X(clEnqueueReadBuffer)   \
  X(clFlush) X(clEnqueueMarkerWithWaitList) X(clGetEventInfo) X(clReleaseEvent) X(clCreateUserEvent) X(clSetUserEventStatus)           \
  X(clGetEventProfilingInfo) X(clGetDeviceAndHostTimer) X(clGetExtensionFunctionAddressForPlatform)        \
  X(clGetSupportedImageFormats)

// The core entry points, each under its own name.
struct OpenClApi {
#define VKSIM_DECLARE(name) decltype(&::name) name = nullptr;
  VKSIM_OPENCL_CORE_FUNCTIONS(VKSIM_DECLARE)
#undef VKSIM_DECLARE
  std::string library;      // the name dlopen was given
  std::string path;         // the file the dynamic linker opened for it (dlinfo), "" if unknown
  std::string description;  // "OCL-ICD 2.3.1": clGetICDLoaderInfoOCLICD's name and version, "" without it
};

// The extension entry points of one platform.
struct OpenClExtensionApi {
  clCreateSemaphoreWithPropertiesKHR_fn clCreateSemaphoreWithPropertiesKHR = nullptr;
  clEnqueueWaitSemaphoresKHR_fn clEnqueueWaitSemaphoresKHR = nullptr;
  clEnqueueSignalSemaphoresKHR_fn clEnqueueSignalSemaphoresKHR = nullptr;
  clReleaseSemaphoreKHR_fn clReleaseSemaphoreKHR = nullptr;
  clEnqueueAcquireExternalMemObjectsKHR_fn clEnqueueAcquireExternalMemObjectsKHR = nullptr;
  clEnqueueReleaseExternalMemObjectsKHR_fn clEnqueueReleaseExternalMemObjectsKHR = nullptr;
};

// The name loadOpenClApi gives dlopen: kOpenClLibraryName, or the value of
// VKSIM_OPENCL_LIBRARY (base/config.h) when that is set and not empty.
std::string openClLibraryName();

// The ICD loader, opened once per process (kOpenClLibraryName, or the
// VKSIM_OPENCL_LIBRARY override of base/config.h). The Error (exit code 3)
// names the library and what dlopen or dlsym said. Thread-safe.
// path and description say which loader the search found: Debian's ocl-icd
// and Khronos' loader (which CUDA toolkits also ship as libOpenCL.so.1) read
// different variables (docs/gpu-runs.md, "Which OpenCL a process sees").
Result<const OpenClApi*> loadOpenClApi();

// The extension entry points of `platform`; the Error (exit code 3) names
// the first one the platform does not give.
Result<OpenClExtensionApi> loadOpenClExtensionApi(const OpenClApi& api, cl_platform_id platform);

// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or the number.
std::string openClErrorName(cl_int code);

// For a call inside a frame, whose failure the result carries without a
// message (StepResult): true when `code` is CL_SUCCESS, otherwise false after
// one line on stderr with file:line, the call and the error's name.
bool checkOpenClCall(cl_int code, const char* call, const char* file, int line);
#define VKSIM_CL_OK(call) ::vksim::checkOpenClCall((call), #call, __FILE__, __LINE__)

}  // namespace vksim
