#include "sim/nvtx_ranges.h"

// The only file that includes NVTX: its header-only implementation keeps
// one set of entry points per translation unit, so one file means one
// initialisation and one domain handle.
#include <nvtx3/nvToolsExt.h>

namespace vksim {
namespace {

// NVTX's first call loads the tool named by NVTX_INJECTION64_PATH, if any.
// Without a tool nvtxDomainCreateA returns a null handle, which is how the
// program knows that nobody listens.
nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA(kProfilingDomain);
  return handle;
}

}  // namespace

bool profilingToolAttached() {
  return domain() != nullptr;
}

void ProfileRange::push(const char* name) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  nvtxDomainRangePushEx(domain(), &attributes);
}

ProfileRange::~ProfileRange() {
  if (pushed_) nvtxDomainRangePop(domain());
}

std::string stepRangeName(const StepSync& sync) {
  if (sync.mode == SyncMode::binary) return "sim step: wait renderDone, signal simDone";
  return "sim step: wait " + std::to_string(sync.waitValue) + ", signal " + std::to_string(sync.signalValue);
}

}  // namespace vksim
