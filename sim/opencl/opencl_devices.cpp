// The OpenCL device list: every platform and device, with what each offers
// for interop with Vulkan (extensions, import handle types, the UUID).
#include "sim/opencl/opencl_devices.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <sstream>
#include <vector>

namespace vksim {
namespace {

// A string query's two calls. The status of the first failed call, else
// CL_SUCCESS with *text set (an empty answer is a successful "").
template <typename Query>
cl_int queryString(Query query, std::string* text) {
  size_t size = 0;
  if (const cl_int status = query(0, nullptr, &size); status != CL_SUCCESS) return status;
  std::string value(size, '\0');
  if (const cl_int status = query(size, value.data(), nullptr); status != CL_SUCCESS) return status;
  value.resize(std::strlen(value.c_str()));
  *text = std::move(value);
  return CL_SUCCESS;
}

cl_int platformString(const OpenClApi& api, cl_platform_id platform, cl_platform_info what,
                      std::string* text) {
  return queryString(
      [&](size_t size, void* value, size_t* sizeRet) {
        return api.clGetPlatformInfo(platform, what, size, value, sizeRet);
      },
      text);
}

cl_int deviceString(const OpenClApi& api, cl_device_id device, cl_device_info what, std::string* text) {
  return queryString([&](size_t size, void* value,
                         size_t* sizeRet) { return api.clGetDeviceInfo(device, what, size, value, sizeRet); },
                     text);
}

// A device query that returns an array of T (handle types, semaphore types).
template <typename T>
std::vector<T> deviceArray(const OpenClApi& api, cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (api.clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size < sizeof(T)) return {};
  std::vector<T> values(size / sizeof(T));
  if (api.clGetDeviceInfo(device, what, values.size() * sizeof(T), values.data(), nullptr) != CL_SUCCESS) return {};
  return values;
}

// The same for a platform's array-valued property.
template <typename T>
std::vector<T> platformArray(const OpenClApi& api, cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  if (api.clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size < sizeof(T)) return {};
  std::vector<T> values(size / sizeof(T));
  if (api.clGetPlatformInfo(platform, what, values.size() * sizeof(T), values.data(), nullptr) != CL_SUCCESS) return {};
  return values;
}

template <typename T>
bool contains(const std::vector<T>& values, T value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// Two-call enumeration of the platforms or of one platform's devices; the
// status of the first failed call, else CL_SUCCESS. *ids is empty after a
// failure: a failed second call leaves no handle worth asking about.
cl_int platformIds(const OpenClApi& api, std::vector<cl_platform_id>* ids) {
  cl_uint count = 0;
  cl_int status = api.clGetPlatformIDs(0, nullptr, &count);
  ids->assign(status == CL_SUCCESS ? count : 0, nullptr);
  if (!ids->empty()) status = api.clGetPlatformIDs(count, ids->data(), nullptr);
  if (status != CL_SUCCESS) ids->clear();
  return status;
}

cl_int deviceIds(const OpenClApi& api, cl_platform_id platform, std::vector<cl_device_id>* ids) {
  cl_uint count = 0;
  cl_int status = api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  ids->assign(status == CL_SUCCESS ? count : 0, nullptr);
  if (!ids->empty()) status = api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids->data(), nullptr);
  if (status != CL_SUCCESS) ids->clear();
  return status;
}

// What the device offers for interop. The Error, when its name or extension
// string cannot be read, names the query and the code: without them nothing
// about the device can be said.
Result<OpenClDeviceInfo> describeDevice(const OpenClApi& api, cl_platform_id platform, cl_device_id id) {
  OpenClDeviceInfo info;
  std::string extensionText;
  if (const cl_int status = deviceString(api, id, CL_DEVICE_NAME, &info.name); status != CL_SUCCESS)
    return fail("CL_DEVICE_NAME unreadable (" + openClErrorName(status) + ")", kExitEnvironment);
  if (const cl_int status = deviceString(api, id, CL_DEVICE_EXTENSIONS, &extensionText); status != CL_SUCCESS)
    return fail("'" + info.name + "': CL_DEVICE_EXTENSIONS unreadable (" + openClErrorName(status) + ")",
                kExitEnvironment);
  std::istringstream words(extensionText);
  const std::vector<std::string> extensions{std::istream_iterator<std::string>(words), {}};
  const auto has = [&](const char* name) { return contains(extensions, std::string(name)); };
  for (const char* wanted : kOpenClInteropExtensions) info.interopExtensions.push_back(has(wanted));
  // Each query only where its extension defines it; a failed one leaves its
  // field false, and missingOpenClInterop names it.
  if (has("cl_khr_device_uuid"))
    info.hasUuid = api.clGetDeviceInfo(id, CL_DEVICE_UUID_KHR, info.uuid.size(), info.uuid.data(), nullptr) ==
                   CL_SUCCESS;
  if (has("cl_khr_external_memory"))
    info.importsOpaqueFdMemory =
        contains(deviceArray<cl_external_memory_handle_type_khr>(
                     api, id, CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR),
                 cl_external_memory_handle_type_khr(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR));
  if (has("cl_khr_external_semaphore"))
    info.importsOpaqueFdSemaphores =
        contains(deviceArray<cl_external_semaphore_handle_type_khr>(
                     api, id, CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR),
                 cl_external_semaphore_handle_type_khr(CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR));
  if (has("cl_khr_semaphore")) {
    // cl_khr_semaphore's only semaphore type is the binary one: a device
    // that names the extension supports it. The type lists refine that
    // where a driver fills them (the device's, else the platform's); an
    // empty or refused query (NVIDIA's 580 driver on the H200 answers the
    // device query with no types) leaves the extension's word standing.
    std::vector<cl_semaphore_type_khr> types =
        deviceArray<cl_semaphore_type_khr>(api, id, CL_DEVICE_SEMAPHORE_TYPES_KHR);
    if (types.empty())
      types = platformArray<cl_semaphore_type_khr>(api, platform, CL_PLATFORM_SEMAPHORE_TYPES_KHR);
    info.binarySemaphores =
        types.empty() || contains(types, cl_semaphore_type_khr(CL_SEMAPHORE_TYPE_BINARY_KHR));
  }
  return info;
}

// Appends the platform and whichever of its devices can be described. A
// failure stays with the platform: the next platform may be the one that
// pairs (a machine can register a CPU platform before the GPU's).
void listPlatform(const OpenClApi& api, cl_platform_id platform, int index, OpenClDeviceList& list) {
  OpenClPlatformInfo entry;
  entry.index = index;
  if (const cl_int status = platformString(api, platform, CL_PLATFORM_NAME, &entry.name);
      status != CL_SUCCESS)
    entry.problems.push_back("CL_PLATFORM_NAME unreadable (" + openClErrorName(status) + ")");
  platformString(api, platform, CL_PLATFORM_VERSION, &entry.version);  // for reading only
  std::vector<cl_device_id> ids;
  if (const cl_int status = deviceIds(api, platform, &ids); status != CL_SUCCESS)
    entry.problems.push_back("clGetDeviceIDs failed (" + openClErrorName(status) + ")");
  else if (ids.empty())
    entry.problems.push_back("no device");
  for (size_t d = 0; d < ids.size(); ++d) {
    Result<OpenClDeviceInfo> device = describeDevice(api, platform, ids[d]);
    if (!device) {
      entry.problems.push_back("device " + std::to_string(d) + ": " + device.error().message);
      continue;
    }
    device->platformIndex = index;
    device->deviceIndex = int(d);
    device->platformName = entry.name;
    device->platformVersion = entry.version;
    list.devices.push_back(std::move(*device));
  }
  list.platforms.push_back(std::move(entry));
}

}  // namespace

OpenClDeviceList listOpenClDevices(const OpenClApi& api) {
  OpenClDeviceList list;
  list.loader.library = api.library;
  list.loader.path = api.path;
  list.loader.description = api.description;
  std::vector<cl_platform_id> platforms;
  const cl_int status = platformIds(api, &platforms);
  // The ICD loader's answer when no vendor ICD is installed or found
  // (CL_PLATFORM_NOT_FOUND_KHR, or none).
  if (platforms.empty()) {
    list.unavailableReason = "the OpenCL ICD loader " + api.library + " finds no platform (" +
                             (status == CL_SUCCESS ? std::string("none installed") : openClErrorName(status)) + ")";
    return list;
  }
  for (size_t p = 0; p < platforms.size(); ++p) listPlatform(api, platforms[p], int(p), list);
  if (list.devices.empty()) list.unavailableReason = "no OpenCL platform has a device that can be listed";
  return list;
}

OpenClDeviceList listOpenClDevices() {
  OpenClDeviceList list;
  const Result<const OpenClApi*> loaded = loadOpenClApi();
  if (loaded) {
    list = listOpenClDevices(**loaded);
  } else {
    list.unavailableReason = loaded.error().message;
    list.loader.library = openClLibraryName();
  }
  // What decides which vendor ICDs the loader reads (docs/gpu-runs.md).
  for (const char* name : {"OCL_ICD_VENDORS", "OCL_ICD_FILENAMES", "OPENCL_VENDOR_PATH"}) {
    const char* value = std::getenv(name);
    list.loader.variables.push_back({name, value != nullptr, value ? value : ""});
  }
  return list;
}

std::string missingOpenClInterop(const OpenClDeviceInfo& device) {
  std::string missing;
  const auto add = [&](const std::string& what) { missing += (missing.empty() ? "" : ", ") + what; };
  for (size_t i = 0; i < std::size(kOpenClInteropExtensions); ++i)
    if (i >= device.interopExtensions.size() || !device.interopExtensions[i]) add(kOpenClInteropExtensions[i]);
  if (!missing.empty()) return missing;  // the handle types below need those extensions first
  if (!device.importsOpaqueFdMemory) add("opaque-fd memory import (CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR)");
  if (!device.importsOpaqueFdSemaphores) add("opaque-fd semaphore import (CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR)");
  if (!device.binarySemaphores) add("binary semaphores (CL_SEMAPHORE_TYPE_BINARY_KHR)");
  if (!device.hasUuid) add("a readable CL_DEVICE_UUID_KHR");
  return missing;
}

}  // namespace vksim
