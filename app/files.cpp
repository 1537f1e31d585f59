#include "app/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <locale>
#include <system_error>
#include <utility>

namespace vksim {
namespace {
namespace fs = std::filesystem;

std::string temporaryPathFor(const std::string& path) {
  return path + ".tmp-" + std::to_string(::getpid());
}

std::string errnoText(int error) {
  return error != 0 ? std::strerror(error) : "unknown error";
}

FileResult failure(std::string message) {
  return {false, std::move(message)};
}

// fsync(2) on `path` opened with `flags`; returns 0 or the errno.
int fsyncPath(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return errno;
  const int result = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  return result;
}

}  // namespace

FileResult checkWritable(const std::string& path) {
  if (path.empty()) return failure("no output path given");
  std::error_code error;
  if (fs::is_directory(path, error)) return failure("cannot write " + path + ": it is a directory");
  const fs::path parent = fs::path(path).parent_path();
  const fs::path directory = parent.empty() ? fs::path(".") : parent;
  if (!fs::is_directory(directory, error))
    return failure("cannot write " + path + ": directory " + directory.string() + " does not exist");
  // Create a probe rather than ask access(2): access answers from permission
  // bits, which root passes everywhere; only creating a file shows what the
  // run will meet.
  const std::string probe = temporaryPathFor(path);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return failure("cannot write " + path + ": " + errnoText(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)),
      temporaryPath_(std::move(other.temporaryPath_)),
      what_(std::move(other.what_)),
      buffer_(std::move(other.buffer_)),
      stream_(std::move(other.stream_)),
      closed_(std::exchange(other.closed_, false)) {
  other.temporaryPath_.clear();
}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept {
  if (this != &other) {
    discard();
    path_ = std::move(other.path_);
    temporaryPath_ = std::move(other.temporaryPath_);
    what_ = std::move(other.what_);
    stream_ = std::move(other.stream_);
    buffer_ = std::move(other.buffer_);
    closed_ = std::exchange(other.closed_, false);
    other.temporaryPath_.clear();
  }
  return *this;
}

AtomicFile::~AtomicFile() {
  discard();
}

FileResult AtomicFile::open(const std::string& path, std::string_view what, std::size_t bufferBytes) {
  discard();
  what_ = what;
  std::error_code error;
  if (fs::is_directory(path, error))
    return failure("cannot write " + what_ + " " + path + ": it is a directory");
  auto stream = std::make_unique<std::ofstream>();
  auto buffer = std::make_unique<char[]>(bufferBytes);
  // libstdc++ honours pubsetbuf only before open(); a large buffer turns a
  // frame's row into a memcpy instead of a write(2).
  stream->rdbuf()->pubsetbuf(buffer.get(), std::streamsize(bufferBytes));
  // Files are read by programs, not people: no thousands separators or
  // decimal commas even if the app sets a global locale.
  stream->imbue(std::locale::classic());
  const std::string temporary = temporaryPathFor(path);
  errno = 0;
  stream->open(temporary, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!stream->is_open()) return failure("cannot write " + what_ + " " + path + ": " + errnoText(errno));
  path_ = path;
  temporaryPath_ = temporary;
  buffer_ = std::move(buffer);
  stream_ = std::move(stream);
  closed_ = false;
  return {};
}

FileResult AtomicFile::close() {
  if (!stream_) {
    if (closed_) return {};
    return failure("cannot write " + what_ + " " + path_ + ": not open");
  }
  errno = 0;
  stream_->flush();
  int error = errno;
  stream_->close();
  const bool failed = stream_->fail();
  if (failed && error == 0) error = errno;
  stream_.reset();
  buffer_.reset();
  // The data must be on disk before the rename makes it visible under the
  // target's name: otherwise a crash soon after can leave the new name on an
  // empty or short file (delayed allocation). std::ofstream has no fd to
  // fsync, so the finished file is opened again; fsync acts on the file, not
  // on the descriptor it is called through.
  if (!failed) error = fsyncPath(temporaryPath_, O_RDONLY);
  if (failed || error != 0) {
    const std::string message = "cannot write " + what_ + " " + path_ + ": " + errnoText(error);
    discard();
    return failure(message);
  }
  closed_ = true;
  return {};
}

FileResult AtomicFile::commit() {
  if (stream_) {
    if (FileResult result = close(); !result) return result;
  }
  if (!closed_) return failure("cannot write " + what_ + " " + path_ + ": not open");
  // rename(2) within one directory replaces the target atomically: a reader
  // sees the old file or the complete new one, never a partial one.
  if (std::rename(temporaryPath_.c_str(), path_.c_str()) != 0) {
    const std::string message = "cannot write " + what_ + " " + path_ + ": " + errnoText(errno);
    discard();
    return failure(message);
  }
  closed_ = false;
  temporaryPath_.clear();
  // The rename itself is durable only once the directory is synced. The file
  // is complete under its name already, so a failure here is not reported.
  const fs::path parent = fs::path(path_).parent_path();
  (void)fsyncPath(parent.empty() ? std::string(".") : parent.string(), O_RDONLY | O_DIRECTORY);
  return {};
}

void AtomicFile::discard() {
  stream_.reset();
  buffer_.reset();
  if (!temporaryPath_.empty()) ::unlink(temporaryPath_.c_str());
  temporaryPath_.clear();
  closed_ = false;
}

FileResult writeFileAtomically(const std::string& path, std::string_view what,
                               std::span<const uint8_t> bytes) {
  AtomicFile file;
  if (FileResult opened = file.open(path, what, 64 * 1024); !opened) return opened;
  file.stream().write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return file.commit();
}

}  // namespace vksim
