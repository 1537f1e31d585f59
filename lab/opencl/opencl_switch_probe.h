// The OpenCL side of the context-switch probe (lab/switch_probe.h), behind a
// header with no OpenCL type.
#pragma once
#include <memory>

#include "base/result.h"
#include "sim/opencl/opencl_simulation.h"  // OpenClDeviceInfo (no OpenCL types)
#include "lab/switch_probe.h"

namespace vksim {

// A peer on `device`, with a context and an in-order, profiling queue of its
// own (not the OpenCL backend's: the probe runs while that one is idle). Its
// marked work is an empty kernel of one work-item, built from a one-line
// OpenCL C source here (a failed build's log is in the Error); its interval is
// the kernel event's CL_PROFILING_COMMAND_START and _END, and done is that
// event's execution status reaching CL_COMPLETE. tieClock brackets
// clGetDeviceAndHostTimer between two host clock readings and keeps the
// narrowest of several tries; the device timer's resolution is added to the
// uncertainty. Fails with exit code 3 when OpenCL or the device cannot be
// used; tieClock fails with exit code 3 when the platform does not offer
// clGetDeviceAndHostTimer (missing before OpenCL 2.1, optional in 3.0).
// The destructor waits (bounded) for outstanding work before releasing.
Result<std::unique_ptr<SwitchProbePeer>> createOpenClSwitchProbePeer(const OpenClDeviceInfo& device);

}  // namespace vksim
