// NVTX ranges for the CUDA tools (Nsight Systems' timeline, Nsight Compute's
// --nvtx filters), all in one domain named "vkcuda-sim", so that a profile
// shows each frame in the value schedule's words: "frame 3", "render 3:
// wait 6, signal 7", the host's waits, "sim step: wait 7, signal 8" with the
// CUDA backend's "kernels" inside, "grid rebuild".
//
// NVTX 3 is header-only (the CUDA toolkit's include/nvtx3): nothing is
// linked, and the program starts without the CUDA driver as before. A tool
// attaches by setting NVTX_INJECTION64_PATH to its injection library, which
// NVTX loads at the first call; without one every range is a no-op and no
// name is even formatted. This header names no NVTX type.
#pragma once
#include <string>
#include <utility>

#include "sim/sim_types.h"

namespace vksim {

// The name of the program's domain, as tools list it.
inline constexpr const char* kProfilingDomain = "vkcuda-sim";

// True when a tool took the domain (NVTX handed out a domain handle): only
// then are ranges pushed and their names formatted. Fixed for the process.
bool profilingToolAttached();

// Pushes a range on the calling thread's stack of the domain; the
// destructor pops it. Push/pop ranges nest per thread (Nsight Compute's
// filter "vkcuda-sim@kernels/" names one: domain@range, and the trailing
// slash for a push/pop range).
class ProfileRange {
 public:
  explicit ProfileRange(const char* name) : pushed_(profilingToolAttached()) {
    if (pushed_) push(name);
  }
  // `makeName` (returning std::string) is called only when a tool is attached.
  template <typename MakeName, typename = decltype(std::string(std::declval<MakeName>()()))>
  explicit ProfileRange(MakeName makeName) : pushed_(profilingToolAttached()) {
    if (pushed_) push(makeName().c_str());
  }
  ~ProfileRange();
  ProfileRange(const ProfileRange&) = delete;
  ProfileRange& operator=(const ProfileRange&) = delete;

 private:
  static void push(const char* name);
  bool pushed_;
};

// The simulation step in the schedule's words: "sim step: wait 7, signal 8",
// or in binary mode "sim step: wait renderDone, signal simDone".
std::string stepRangeName(const StepSync& sync);

}  // namespace vksim
