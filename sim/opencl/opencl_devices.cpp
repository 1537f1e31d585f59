// The OpenCL device list: every platform and device, with what each offers
// for interop with Vulkan (extensions, import handle types, the UUID).
#include <algorithm>
#include <cstring>
#include <iterator>
#include <sstream>
#include <vector>

#include "sim/opencl/opencl_api.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim {
namespace {

std::string platformString(const OpenClApi& api, cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  if (api.clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (api.clGetPlatformInfo(platform, what, size, text.data(), nullptr) != CL_SUCCESS) return {};
  text.resize(std::strlen(text.c_str()));
  return text;
}

std::string deviceString(const OpenClApi& api, cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (api.clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (api.clGetDeviceInfo(device, what, size, text.data(), nullptr) != CL_SUCCESS) return {};
  text.resize(std::strlen(text.c_str()));
  return text;
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

// Two-call enumeration of the platforms or of one platform's devices.
std::vector<cl_platform_id> platformIds(const OpenClApi& api, cl_int* status) {
  cl_uint count = 0;
  *status = api.clGetPlatformIDs(0, nullptr, &count);
  std::vector<cl_platform_id> ids(count);
  if (*status == CL_SUCCESS && count > 0) *status = api.clGetPlatformIDs(count, ids.data(), nullptr);
  return *status == CL_SUCCESS ? ids : std::vector<cl_platform_id>{};
}

std::vector<cl_device_id> deviceIds(const OpenClApi& api, cl_platform_id platform) {
  cl_uint count = 0;
  if (api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) return {};
  std::vector<cl_device_id> ids(count);
  if (api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr) != CL_SUCCESS) return {};
  return ids;
}

}  // namespace

OpenClDeviceList listOpenClDevices() {
  OpenClDeviceList list;
  const Result<const OpenClApi*> loaded = loadOpenClApi();
  if (!loaded) {
    list.unavailableReason = loaded.error().message;
    return list;
  }
  const OpenClApi& api = **loaded;
  list.library = api.library;
  cl_int status = CL_SUCCESS;
  const std::vector<cl_platform_id> platforms = platformIds(api, &status);
  // The ICD loader's answer when no vendor ICD is installed or found
  // (OCL_ICD_VENDORS, /etc/OpenCL/vendors).
  if (platforms.empty()) {
    list.unavailableReason = "the OpenCL ICD loader " + api.library + " finds no platform (" +
                             (status == CL_SUCCESS ? std::string("none installed") : openClErrorName(status)) + ")";
    return list;
  }
  for (size_t p = 0; p < platforms.size(); ++p) {
    const std::vector<cl_device_id> devices = deviceIds(api, platforms[p]);
    for (size_t d = 0; d < devices.size(); ++d) {
      const cl_device_id id = devices[d];
      OpenClDeviceInfo info;
      info.platformIndex = int(p);
      info.deviceIndex = int(d);
      info.platformName = platformString(api, platforms[p], CL_PLATFORM_NAME);
      info.platformVersion = platformString(api, platforms[p], CL_PLATFORM_VERSION);
      info.name = deviceString(api, id, CL_DEVICE_NAME);
      std::istringstream words(deviceString(api, id, CL_DEVICE_EXTENSIONS));
      std::vector<std::string> extensions{std::istream_iterator<std::string>(words), {}};
      for (const char* wanted : kOpenClInteropExtensions)
        info.interopExtensions.push_back(contains(extensions, std::string(wanted)));
      // Each query only where its extension defines it.
      if (contains(extensions, std::string("cl_khr_device_uuid")))
        info.hasUuid = api.clGetDeviceInfo(id, CL_DEVICE_UUID_KHR, info.uuid.size(), info.uuid.data(), nullptr) ==
                       CL_SUCCESS;
      if (contains(extensions, std::string("cl_khr_external_memory")))
        info.importsOpaqueFdMemory =
            contains(deviceArray<cl_external_memory_handle_type_khr>(api, id, CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR),
                     cl_external_memory_handle_type_khr(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR));
      if (contains(extensions, std::string("cl_khr_external_semaphore")))
        info.importsOpaqueFdSemaphores =
            contains(deviceArray<cl_external_semaphore_handle_type_khr>(api, id, CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR),
                     cl_external_semaphore_handle_type_khr(CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR));
      if (contains(extensions, std::string("cl_khr_semaphore"))) {
        // cl_khr_semaphore's only semaphore type is the binary one: a device
        // that names the extension supports it. The type lists refine that
        // where a driver fills them (the device's, else the platform's); an
        // empty or refused query (NVIDIA's 580 driver on the H200 answers the
        // device query with no types) leaves the extension's word standing.
        std::vector<cl_semaphore_type_khr> types =
            deviceArray<cl_semaphore_type_khr>(api, id, CL_DEVICE_SEMAPHORE_TYPES_KHR);
        if (types.empty()) types = platformArray<cl_semaphore_type_khr>(api, platforms[p], CL_PLATFORM_SEMAPHORE_TYPES_KHR);
        info.binarySemaphores = types.empty() || contains(types, cl_semaphore_type_khr(CL_SEMAPHORE_TYPE_BINARY_KHR));
      }
      list.devices.push_back(std::move(info));
    }
  }
  if (list.devices.empty()) list.unavailableReason = "no OpenCL platform has a device";
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
