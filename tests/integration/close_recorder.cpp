#include "close_recorder.h"

#include <dlfcn.h>

#include <atomic>
#include <cerrno>

namespace {

std::atomic<bool> recording{false};
std::atomic<int> badCloseCount{0};

using CloseFunction = int (*)(int);

CloseFunction libraryClose() {
  static const CloseFunction function = reinterpret_cast<CloseFunction>(dlsym(RTLD_NEXT, "close"));
  return function;
}

}  // namespace

// Every close() in this executable, the program's own and the drivers', comes
// here first (the executable's definition comes before libc's in symbol
// lookup); errno is left as the C library set it.
extern "C" int close(int fd) {
  const int result = libraryClose()(fd);
  if (result != 0 && recording.load()) {
    const int error = errno;
    if (error == EBADF) badCloseCount.fetch_add(1);
    errno = error;
  }
  return result;
}

namespace vksim::testing {

CloseRecorder::CloseRecorder() {
  badCloseCount.store(0);
  recording.store(true);
}

CloseRecorder::~CloseRecorder() { recording.store(false); }

int CloseRecorder::badCloses() const { return badCloseCount.load(); }

}  // namespace vksim::testing
