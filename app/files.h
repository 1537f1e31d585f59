// Output files written whole or not at all: every file the app writes (the
// screenshot, the vertex dump, captures, traces, the bench table) goes to a
// temporary file in its target's directory, is flushed and fsynced, and is
// renamed over the target only once complete. Plain C++: no Vulkan, no CUDA.
#pragma once
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace vksim {

// The outcome of a file operation: ok, or one line for the user (no newline).
struct FileResult {
  bool ok = true;
  std::string message;
  explicit operator bool() const { return ok; }
};

// Checks, before a run, that a file could be created at `path`: its directory
// exists and takes a new file, and `path` is not a directory. Creates and
// removes a probe file (PATH.tmp-<pid>); leaves nothing behind either way.
FileResult checkWritable(const std::string& path);

// A file that appears at `path` only complete. open() creates PATH.tmp-<pid>
// in the same directory; close() flushes it, closes it and fsyncs it; commit()
// renames it over `path` and fsyncs the directory. Any failure, discard(), or
// destruction before commit() removes the temporary file. Movable, not
// copyable. Every output file the app writes goes through this class.
class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  // Opens the temporary file for writing through a buffer of bufferBytes.
  // `what` names the file in messages ("capture", "trace").
  FileResult open(const std::string& path, std::string_view what, std::size_t bufferBytes = 1 << 20);
  // Valid between open() and commit()/discard(). Write errors stick in the
  // stream's state and are reported by close() or commit().
  std::ofstream& stream() { return *stream_; }
  bool isOpen() const { return stream_ != nullptr; }
  // Flushes, closes and fsyncs the temporary file, keeping it for commit(). On
  // a write error removes it and returns the message.
  FileResult close();
  // close() if still open, then renames the temporary file over `path` and
  // fsyncs the directory. On failure nothing new is left at `path` (an older
  // file there is unchanged) and no temporary file remains.
  FileResult commit();
  // Removes the temporary file; nothing is left at `path` by this object.
  void discard();

  const std::string& path() const { return path_; }
  const std::string& temporaryPath() const { return temporaryPath_; }

 private:
  std::string path_, temporaryPath_, what_;
  std::unique_ptr<char[]> buffer_;  // declared before stream_: outlives it
  std::unique_ptr<std::ofstream> stream_;
  bool closed_ = false;  // temporary file complete on disk, awaiting rename
};

// The whole of `bytes` as the file at `path`, through AtomicFile; `what`
// names it in the message ("vertex dump").
FileResult writeFileAtomically(const std::string& path, std::string_view what,
                               std::span<const uint8_t> bytes);

}  // namespace vksim
