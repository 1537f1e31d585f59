// A profiling tool as small as NVTX allows, for
// tests/integration/test_profiling_tools.cpp: NVTX loads it from
// NVTX_INJECTION64_PATH exactly as it loads Nsight Systems' or Nsight
// Compute's injection library, calls InitializeInjectionNvtx2, and from then
// on sends every domain creation, push and pop here. Each is appended as one
// line to the file named by VKSIM_NVTX_RECORD:
//   push <thread id> <domain> <range name>
//   pop <thread id> <domain>
// (tab-separated). Without that variable it records nothing.
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include <nvtx3/nvToolsExt.h>

namespace {

int recordFd = -1;
std::mutex domainsMutex;
std::map<std::string, std::string*>& domainsByName() {
  static std::map<std::string, std::string*> domains;
  return domains;
}

// One write(2) per line on an O_APPEND fd: lines of different threads never
// interleave, and nothing is lost in a buffer when the program exits.
void record(const std::string& line) {
  if (recordFd < 0) return;
  const ssize_t written = write(recordFd, line.data(), line.size());
  (void)written;
}

std::string threadId() {
  return std::to_string(long(syscall(SYS_gettid)));
}

const std::string& domainName(nvtxDomainHandle_t domain) {
  static const std::string defaultDomain = "(default)";
  return domain ? *reinterpret_cast<const std::string*>(domain) : defaultDomain;
}

// A handle per name, as tools give: creating a domain twice returns the same one.
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name) {
  const std::lock_guard<std::mutex> lock(domainsMutex);
  std::string*& domain = domainsByName()[name ? name : ""];
  if (!domain) domain = new std::string(name ? name : "");  // lives as long as the process, as a tool's would
  return reinterpret_cast<nvtxDomainHandle_t>(domain);
}

int NVTX_API domainRangePushEx(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  const char* name =
      attributes && attributes->messageType == NVTX_MESSAGE_TYPE_ASCII ? attributes->message.ascii : "";
  record("push\t" + threadId() + "\t" + domainName(domain) + "\t" + (name ? name : "") + "\n");
  return 0;
}

int NVTX_API domainRangePop(nvtxDomainHandle_t domain) {
  record("pop\t" + threadId() + "\t" + domainName(domain) + "\n");
  return 0;
}

int NVTX_API rangePushA(const char* name) {
  record("push\t" + threadId() + "\t(default)\t" + (name ? name : "") + "\n");
  return 0;
}

int NVTX_API rangePop() {
  record("pop\t" + threadId() + "\t(default)\n");
  return 0;
}

template <typename Function>
void install(NvtxFunctionTable table, unsigned size, unsigned id, Function function) {
  if (id < size && table[id]) *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t getExportTable) {
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
  if (!callbacks || !callbacks->GetModuleFunctionTable) return 0;
  NvtxFunctionTable core = nullptr, core2 = nullptr;
  unsigned coreSize = 0, core2Size = 0;
  if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &coreSize) ||
      !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2Size))
    return 0;
  install(core2, core2Size, NVTX_CBID_CORE2_DomainCreateA, domainCreateA);
  install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePushEx, domainRangePushEx);
  install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePop, domainRangePop);
  install(core, coreSize, NVTX_CBID_CORE_RangePushA, rangePushA);
  install(core, coreSize, NVTX_CBID_CORE_RangePop, rangePop);
  if (const char* path = std::getenv("VKSIM_NVTX_RECORD"))
    recordFd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  return 1;  // attached
}
