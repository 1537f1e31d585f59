// Internal to sim/opencl/: the device list through a table of entry points,
// so that tests can hand it a fake OpenCL (platforms whose queries fail, in
// any order) where no GPU is; listOpenClDevices() (opencl_simulation.h)
// passes the loaded ICD loader's table.
#pragma once
#include "sim/opencl/opencl_api.h"
#include "sim/opencl/opencl_simulation.h"

namespace vksim {

// Every device of every platform that api.clGetPlatformIDs gives, in that
// order, through api's clGetPlatformIDs, clGetPlatformInfo, clGetDeviceIDs
// and clGetDeviceInfo only (the other entry points may be null). Each
// platform gets an OpenClPlatformInfo: one whose clGetDeviceIDs fails (any
// error, CL_DEVICE_NOT_FOUND included) keeps the failure in its problems and
// the listing goes on with the next platform; a device whose CL_DEVICE_NAME
// or CL_DEVICE_EXTENSIONS query fails is left out the same way. Fills
// loader.library, loader.path and loader.description from `api`, not
// loader.variables. Never throws.
OpenClDeviceList listOpenClDevices(const OpenClApi& api);

}  // namespace vksim
