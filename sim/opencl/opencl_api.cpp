#include "sim/opencl/opencl_api.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>
#include <vector>

#include "base/config.h"

namespace vksim {
namespace {

struct LoadedApi {
  OpenClApi api;
  std::string failure;  // "" when every entry point was found
};

// The cl_loader_info query (cl_ext.h of 2023.04 on; Debian 12's headers
// predate it). ocl-icd and Khronos' loader both answer it, through
// clGetExtensionFunctionAddress only: neither exports the symbol.
using GetLoaderInfoFunction = cl_int (*)(cl_uint, size_t, void*, size_t*);
constexpr cl_uint kLoaderVersion = 2, kLoaderName = 3;

std::string loaderString(GetLoaderInfoFunction getInfo, cl_uint what) {
  char text[256] = {};
  if (getInfo(what, sizeof text - 1, text, nullptr) != CL_SUCCESS) return {};
  return text;
}

// Which file the soname resolved to, and what the loader calls itself: two
// loaders read the ICD variables differently, so the answer decides which
// platforms a process sees.
void describeLibrary(void* library, OpenClApi& api) {
  link_map* map = nullptr;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) api.path = map->l_name;
  using ExtensionAddress = void* (*)(const char*);
  const auto extensionAddress =
      reinterpret_cast<ExtensionAddress>(dlsym(library, "clGetExtensionFunctionAddress"));
  if (!extensionAddress) return;
  const auto getInfo = reinterpret_cast<GetLoaderInfoFunction>(extensionAddress("clGetICDLoaderInfoOCLICD"));
  if (!getInfo) return;
  const std::string name = loaderString(getInfo, kLoaderName),
                    version = loaderString(getInfo, kLoaderVersion);
  api.description = name + (name.empty() || version.empty() ? "" : " ") + version;
}

// The ICD loader's variables, kept across the loader's first call. Khronos'
// loader (the libOpenCL.so.1 that CUDA toolkits install) splits
// OCL_ICD_FILENAMES into file names with strtok on the very string getenv
// returned: from then on this process's environment holds only the first
// name, and every process it starts inherits that and sees one platform
// (docs/gpu-runs.md, "Which OpenCL a process sees", has the run where
// gpu_tests' children paired with PoCL alone). Whatever a loader does to
// them, the process keeps the variables it was given.
class IcdVariablesKept {
 public:
  IcdVariablesKept() {
    for (const char* name : kNames)
      if (const char* value = std::getenv(name)) saved_.emplace_back(name, value);
  }
  ~IcdVariablesKept() {
    for (const auto& [name, value] : saved_)
      if (const char* now = std::getenv(name.c_str()); !now || value != now) setenv(name.c_str(), value.c_str(), 1);
  }
  IcdVariablesKept(const IcdVariablesKept&) = delete;
  IcdVariablesKept& operator=(const IcdVariablesKept&) = delete;

 private:
  static constexpr const char* kNames[] = {"OCL_ICD_FILENAMES", "OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH",
                                           "OPENCL_LAYERS", "OPENCL_LAYER_PATH"};
  std::vector<std::pair<std::string, std::string>> saved_;
};

LoadedApi openLibrary() {
  const IcdVariablesKept variables;
  LoadedApi loaded;
  loaded.api.library = openClLibraryName();
  // RTLD_LOCAL: the loader's symbols stay out of the global namespace, so a
  // library loaded later cannot bind to them by accident. The handle is kept
  // for the life of the process (vendor ICDs do not expect to be unloaded).
  void* library = dlopen(loaded.api.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* reason = dlerror();
    loaded.failure = "the OpenCL ICD loader " + loaded.api.library + " cannot be loaded (" +
                     (reason ? reason : "dlopen failed") + ")";
    return loaded;
  }
#define VKSIM_RESOLVE(name)                                                                          \
  if (loaded.failure.empty()) {                                                                      \
    loaded.api.name = reinterpret_cast<decltype(loaded.api.name)>(dlsym(library, #name));            \
    if (!loaded.api.name)                                                                            \
      loaded.failure = "the OpenCL ICD loader " + loaded.api.library + " has no " #name " (OpenCL 3.0 " \
                       "entry points are needed)";                                                   \
  }
  VKSIM_OPENCL_CORE_FUNCTIONS(VKSIM_RESOLVE)
#undef VKSIM_RESOLVE
  describeLibrary(library, loaded.api);
  // The loader reads its variables on its first call: that call is made
  // here, while `variables` still holds what the process was given.
  if (loaded.failure.empty()) {
    cl_uint count = 0;
    (void)loaded.api.clGetPlatformIDs(0, nullptr, &count);
  }
  return loaded;
}

}  // namespace

std::string openClLibraryName() {
  const char* override = std::getenv(kOpenClLibraryVariable);
  return override && override[0] ? override : kOpenClLibraryName;
}

Result<const OpenClApi*> loadOpenClApi() {
  static std::once_flag once;
  static LoadedApi loaded;
  std::call_once(once, [] { loaded = openLibrary(); });
  if (!loaded.failure.empty()) return fail(loaded.failure, kExitEnvironment);
  return &loaded.api;
}

Result<OpenClExtensionApi> loadOpenClExtensionApi(const OpenClApi& api, cl_platform_id platform) {
  OpenClExtensionApi extensions;
  std::string missing;
  const auto resolve = [&](auto& function, const char* name) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
        api.clGetExtensionFunctionAddressForPlatform(platform, name));
    if (!function && missing.empty()) missing = name;
  };
  resolve(extensions.clCreateSemaphoreWithPropertiesKHR, "clCreateSemaphoreWithPropertiesKHR");
  resolve(extensions.clEnqueueWaitSemaphoresKHR, "clEnqueueWaitSemaphoresKHR");
  resolve(extensions.clEnqueueSignalSemaphoresKHR, "clEnqueueSignalSemaphoresKHR");
  resolve(extensions.clReleaseSemaphoreKHR, "clReleaseSemaphoreKHR");
  resolve(extensions.clEnqueueAcquireExternalMemObjectsKHR, "clEnqueueAcquireExternalMemObjectsKHR");
  resolve(extensions.clEnqueueReleaseExternalMemObjectsKHR, "clEnqueueReleaseExternalMemObjectsKHR");
  if (!missing.empty())
    return fail("the OpenCL platform gives no " + missing + " (clGetExtensionFunctionAddressForPlatform)",
                kExitEnvironment);
  return extensions;
}

std::string openClErrorName(cl_int code) {
  // The Khronos headers carry no name table for error codes: this is one,
  // for the codes the backend's calls can return.
#define VKSIM_ENTRY(code) {code, #code},
  static constexpr struct {
    cl_int code;
    const char* name;
  } kNames[] = {VKSIM_ENTRY(CL_DEVICE_NOT_FOUND) VKSIM_ENTRY(CL_DEVICE_NOT_AVAILABLE)
      VKSIM_ENTRY(CL_COMPILER_NOT_AVAILABLE) VKSIM_ENTRY(CL_MEM_OBJECT_ALLOCATION_FAILURE)
      VKSIM_ENTRY(CL_OUT_OF_RESOURCES) VKSIM_ENTRY(CL_OUT_OF_HOST_MEMORY) VKSIM_ENTRY(CL_BUILD_PROGRAM_FAILURE)
      VKSIM_ENTRY(CL_INVALID_VALUE) VKSIM_ENTRY(CL_INVALID_PLATFORM) VKSIM_ENTRY(CL_INVALID_DEVICE)
      VKSIM_ENTRY(CL_INVALID_CONTEXT) VKSIM_ENTRY(CL_INVALID_QUEUE_PROPERTIES) VKSIM_ENTRY(CL_INVALID_COMMAND_QUEUE)
      VKSIM_ENTRY(CL_INVALID_MEM_OBJECT) VKSIM_ENTRY(CL_INVALID_OPERATION) VKSIM_ENTRY(CL_INVALID_BUFFER_SIZE)
      VKSIM_ENTRY(CL_INVALID_PROGRAM) VKSIM_ENTRY(CL_INVALID_KERNEL_NAME) VKSIM_ENTRY(CL_INVALID_KERNEL)
      VKSIM_ENTRY(CL_INVALID_ARG_INDEX) VKSIM_ENTRY(CL_INVALID_ARG_VALUE) VKSIM_ENTRY(CL_INVALID_ARG_SIZE)
      VKSIM_ENTRY(CL_INVALID_KERNEL_ARGS) VKSIM_ENTRY(CL_INVALID_WORK_DIMENSION)
      VKSIM_ENTRY(CL_INVALID_WORK_GROUP_SIZE) VKSIM_ENTRY(CL_INVALID_EVENT_WAIT_LIST) VKSIM_ENTRY(CL_INVALID_EVENT)
      VKSIM_ENTRY(CL_INVALID_PROPERTY) VKSIM_ENTRY(CL_PLATFORM_NOT_FOUND_KHR) VKSIM_ENTRY(CL_INVALID_SEMAPHORE_KHR)
      VKSIM_ENTRY(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)};
#undef VKSIM_ENTRY
  for (const auto& entry : kNames)
    if (entry.code == code) return entry.name;
  return "OpenCL error " + std::to_string(code);
}

bool checkOpenClCall(cl_int code, const char* call, const char* file, int line) {
  if (code == CL_SUCCESS) return true;
  std::fprintf(stderr, "vkcuda-sim: %s:%d: %s failed: %s\n", file, line, call, openClErrorName(code).c_str());
  return false;
}

}  // namespace vksim
