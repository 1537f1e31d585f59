#include "app/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <locale>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <stb_image_write.h>

#include "app/ui/interrupt.h"

namespace vksim {
namespace {
namespace fs = std::filesystem;

std::string temporaryPathFor(const std::string& path) {
  return path + ".tmp-" + std::to_string(::getpid());
}

std::string errnoText(int error) {
  return error != 0 ? std::strerror(error) : "unknown error";
}

// A write that failed during the run: exit code 4 if it ends the run.
tl::unexpected<Error> writeFailure(std::string message) {
  return fail(std::move(message), kExitRuntime);
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

Result<> checkWritable(const std::string& path) {
  if (path.empty()) return fail("no output path given");
  std::error_code error;
  if (fs::is_directory(path, error)) return fail("cannot write " + path + ": it is a directory");
  const fs::path parent = fs::path(path).parent_path();
  const fs::path directory = parent.empty() ? fs::path(".") : parent;
  if (!fs::is_directory(directory, error))
    return fail("cannot write " + path + ": directory " + directory.string() + " does not exist");
  // Create a probe rather than ask access(2): access answers from permission
  // bits, which root passes everywhere; only creating a file shows what the
  // run will meet.
  const std::string probe = temporaryPathFor(path);
  // A start-up signal ends the process; it waits until the probe is gone.
  const StartUpSignalsHeld held;
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return fail("cannot write " + path + ": " + errnoText(errno));
  ::close(fd);
  ::unlink(probe.c_str());
  return {};
}

std::string fileIdentity(const std::string& path) {
  std::error_code error;
  fs::path target(path);
  // rename(2) would replace a symlink rather than write through it, but the
  // user who passes a link to X means X, whether X exists yet or not (so
  // the link is read, not canonicalized). 40 hops: the kernel's own limit.
  for (int hop = 0; hop < 40 && fs::is_symlink(target, error); ++hop) {
    const fs::path link = fs::read_symlink(target, error);
    if (error) break;
    target = link.is_absolute() ? link : target.parent_path() / link;
  }
  const fs::path parent = target.parent_path();
  struct stat directory {};
  if (::stat(parent.empty() ? "." : parent.c_str(), &directory) != 0) return {};
  return fmt::format("{}:{}/{}", directory.st_dev, directory.st_ino, target.filename().string());
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

Result<> AtomicFile::open(const std::string& path, std::string_view what, std::size_t bufferBytes) {
  discard();
  what_ = what;
  std::error_code error;
  if (fs::is_directory(path, error))
    return writeFailure("cannot write " + what_ + " " + path + ": it is a directory");
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
  if (!stream->is_open()) return writeFailure("cannot write " + what_ + " " + path + ": " + errnoText(errno));
  path_ = path;
  temporaryPath_ = temporary;
  buffer_ = std::move(buffer);
  stream_ = std::move(stream);
  closed_ = false;
  return {};
}

Result<> AtomicFile::close() {
  if (!stream_) {
    if (closed_) return {};
    return writeFailure("cannot write " + what_ + " " + path_ + ": not open");
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
    return writeFailure(message);
  }
  closed_ = true;
  return {};
}

Result<> AtomicFile::commit() {
  if (stream_) {
    if (Result<> result = close(); !result) return result;
  }
  if (!closed_) return writeFailure("cannot write " + what_ + " " + path_ + ": not open");
  // rename(2) within one directory replaces the target atomically: a reader
  // sees the old file or the complete new one, never a partial one.
  if (std::rename(temporaryPath_.c_str(), path_.c_str()) != 0) {
    const std::string message = "cannot write " + what_ + " " + path_ + ": " + errnoText(errno);
    discard();
    return writeFailure(message);
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

Result<> writeFileAtomically(const std::string& path, std::string_view what, std::span<const uint8_t> bytes) {
  AtomicFile file;
  if (Result<> opened = file.open(path, what, 64 * 1024); !opened) return opened;
  file.stream().write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return file.commit();
}

Result<> writeFileAtomically(const std::string& path, std::string_view what, std::string_view text) {
  return writeFileAtomically(path, what,
                             std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

namespace {

// stb's PNG writer hands the encoded bytes to a callback in pieces; they go
// straight into the temporary file, whose stream keeps any write error for
// commit() to report.
void appendToStream(void* context, void* data, int size) {
  static_cast<std::ofstream*>(context)->write(static_cast<const char*>(data), size);
}

std::string sizeText(std::size_t bytes) {
  if (bytes % (1 << 20) == 0) return fmt::format("{} MiB", bytes >> 20);
  if (bytes % (1 << 10) == 0) return fmt::format("{} KiB", bytes >> 10);
  return fmt::format("{} bytes", bytes);
}

}  // namespace

Result<> writePngFile(const std::string& path, const RgbaImage& image) {
  if (image.width == 0 || image.height == 0 || image.pixels.size() != size_t(image.width) * image.height * 4)
    return writeFailure("cannot write " + path + ": no image (no frame was rendered)");
  AtomicFile file;
  if (Result<> opened = file.open(path, "screenshot", 256 * 1024); !opened) return opened;
  if (!stbi_write_png_to_func(appendToStream, &file.stream(), int(image.width), int(image.height), 4,
                              image.pixels.data(), int(image.width * 4)))
    return writeFailure("cannot write screenshot " + path +
                        ": PNG encoding failed");  // the temp goes with `file`
  return file.commit();
}

std::string printableText(std::string_view text) {
  std::string shown;
  shown.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f)
      shown += fmt::format("\\x{:02x}", byte);
    else
      shown += c;
  }
  return shown;
}

Result<std::string> readFileBounded(const std::string& path, std::string_view what, std::size_t maxBytes) {
  const auto unreadable = [&](int error) {
    return fail(fmt::format("{}: cannot read {}: {}", path, what, errnoText(error)));
  };
  // std::ifstream opens a directory on Linux and only the read fails, with a
  // less helpful error; a directory is named as such up front.
  std::error_code ec;
  if (fs::is_directory(path, ec)) return unreadable(EISDIR);
  errno = 0;
  std::ifstream file(path, std::ios::binary);
  if (!file) return unreadable(errno != 0 ? errno : ENOENT);
  std::string text;
  char buffer[4096];
  // Reads at most one chunk past the limit, so a huge file (or /dev/zero)
  // costs no more than the limit to refuse.
  while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
    text.append(buffer, std::size_t(file.gcount()));
    if (text.size() > maxBytes) {
      const char* article =
          std::string_view("aeiou").find(what.empty() ? 'x' : what.front()) != std::string_view::npos ? "an"
                                                                                                      : "a";
      return fail(fmt::format("{}: larger than {}, not {} {}", path, sizeText(maxBytes), article, what));
    }
  }
  if (file.bad()) return unreadable(EIO);
  return text;
}

}  // namespace vksim
