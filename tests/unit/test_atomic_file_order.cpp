// The order of the system calls that make an AtomicFile durable (app/files.h):
// the temporary file is fsynced before it is renamed over the target (else a
// crash soon after can leave the target's name on an empty or short file),
// and the directory is fsynced after the rename (else the rename itself may
// be lost). Nothing in the file's contents shows either order, so the calls
// are recorded: this executable defines fsync, fdatasync, rename, renameat
// and renameat2, which the linker prefers to libc's for every call made from
// it (vksim_app is a static library linked in), and each forwards to libc's
// own through dlsym(RTLD_NEXT). Calls are recorded only while a test asks.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/files.h"

namespace {

struct Call {
  std::string kind;  // "fsync" (fsync or fdatasync) or "rename"
  std::string path;  // fsync: the file or directory; rename: the target
  std::string from;  // rename: the source
};

bool recording = false;
std::vector<Call> calls;

// The path behind an open descriptor, as the kernel names it.
std::string pathOfDescriptor(int fd) {
  char link[64], target[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t length = ::readlink(link, target, sizeof target - 1);
  return length > 0 ? std::string(target, size_t(length)) : std::string();
}

// A path given relative to a directory descriptor, made absolute.
std::string pathAt(int directoryFd, const char* path) {
  if (path[0] == '/') return path;
  const std::string base =
      directoryFd == AT_FDCWD ? std::filesystem::current_path().string() : pathOfDescriptor(directoryFd);
  return (std::filesystem::path(base) / path).lexically_normal().string();
}

template <typename Function>
Function real(const char* name) {
  return reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

void recordSync(int fd) {
  if (recording) calls.push_back({"fsync", pathOfDescriptor(fd), ""});
}

void recordRename(int fromFd, const char* from, int toFd, const char* to) {
  if (recording) calls.push_back({"rename", pathAt(toFd, to), pathAt(fromFd, from)});
}

}  // namespace

// The interposed calls. The exception specifications match glibc's
// declarations (__THROW is noexcept in C++), as a redeclaration must.
extern "C" {
int fsync(int fd) {
  recordSync(fd);
  return real<int (*)(int)>("fsync")(fd);
}
int fdatasync(int fd) {
  recordSync(fd);
  return real<int (*)(int)>("fdatasync")(fd);
}
int rename(const char* from, const char* to) noexcept {
  recordRename(AT_FDCWD, from, AT_FDCWD, to);
  return real<int (*)(const char*, const char*)>("rename")(from, to);
}
int renameat(int fromFd, const char* from, int toFd, const char* to) noexcept {
  recordRename(fromFd, from, toFd, to);
  return real<int (*)(int, const char*, int, const char*)>("renameat")(fromFd, from, toFd, to);
}
int renameat2(int fromFd, const char* from, int toFd, const char* to, unsigned flags) noexcept {
  recordRename(fromFd, from, toFd, to);
  return real<int (*)(int, const char*, int, const char*, unsigned)>("renameat2")(fromFd, from, toFd, to,
                                                                                 flags);
}
}

namespace vksim {
namespace {
namespace fs = std::filesystem;

// Records the calls of one write, from a clean list.
class RecordedCalls {
 public:
  RecordedCalls() {
    calls.clear();
    recording = true;
  }
  ~RecordedCalls() { recording = false; }
};

// The index of the first (or last) call of `kind` on `path` (its target for
// a rename), or -1.
int indexOf(const std::string& kind, const std::string& path, bool last = false) {
  int found = -1;
  for (size_t i = 0; i < calls.size(); ++i)
    if (calls[i].kind == kind && calls[i].path == path) {
      found = int(i);
      if (!last) break;
    }
  return found;
}

std::string listCalls() {
  std::string text;
  for (const Call& call : calls)
    text += "  " + call.kind + " " + (call.from.empty() ? "" : call.from + " -> ") + call.path + "\n";
  return text;
}

TEST(AtomicFileOrder, TemporaryFileIsSyncedBeforeTheRenameAndTheDirectoryAfterIt) {
  const fs::path dir = fs::canonical(fs::temp_directory_path()) / ("vksim-order-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string target = (dir / "out.bin").string();
  const std::string text = "contents";
  {
    const RecordedCalls recorded;
    ASSERT_TRUE(writeFileAtomically(target, "file", std::string_view(text)).has_value());
  }
  const std::string temporary = target + ".tmp-" + std::to_string(::getpid());
  const int fileSync = indexOf("fsync", temporary);
  const int renamed = indexOf("rename", target);
  const int directorySync = indexOf("fsync", dir.string(), /*last=*/true);
  ASSERT_GE(renamed, 0) << "no rename onto the target was seen:\n" << listCalls();
  EXPECT_EQ(calls[size_t(renamed)].from, temporary) << listCalls();
  ASSERT_GE(fileSync, 0) << "the temporary file was never fsynced:\n" << listCalls();
  ASSERT_GE(directorySync, 0) << "the directory was never fsynced:\n" << listCalls();
  EXPECT_LT(fileSync, renamed) << "the rename came before the temporary file's fsync:\n" << listCalls();
  EXPECT_GT(directorySync, renamed) << "the directory was fsynced before the rename:\n" << listCalls();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vksim
