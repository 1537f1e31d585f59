// Files in and out. Every output file the app writes (the screenshot, the
// vertex dump, captures, traces, the bench table, saved scenes) goes through
// AtomicFile: a temporary file in its target's directory, flushed and
// fsynced, renamed over the target only once complete. Every input file the
// app reads (scenes, input scripts) goes through readFileBounded. Plain C++
// and stb: no Vulkan, no CUDA.
#pragma once
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "renderer/readback.h"

namespace vksim {

// Checks, before a run, that a file could be created at `path`: its directory
// exists and takes a new file, and `path` is not a directory. Creates and
// removes a probe file (PATH.tmp-<pid>); leaves nothing behind either way.
// This is the one writability check: access(2) answers from permission bits,
// which root passes everywhere, so only creating a file shows what the run
// will meet. Errors exit with kExitUsage (the path is the user's input) and
// read "cannot write PATH: REASON".
Result<> checkWritable(const std::string& path);

// Who names which file, for refusing two names of one file before a run:
// the same text, "./X" and "X", a relative and an absolute path, a directory
// reached through a symlink or a bind mount, or a symlink at the name itself
// all give one identity. It is the device and inode of the directory that
// will hold the file (with a symlink at `path` followed first) and the name
// in it, as text; empty when that directory cannot be stat'ed (checkWritable
// reports such a path). Hard links give different identities: a write
// through AtomicFile replaces one name and leaves the other's file as it was.
std::string fileIdentity(const std::string& path);

// A file that appears at `path` only complete. open() creates PATH.tmp-<pid>
// in the same directory; close() flushes it, closes it and fsyncs it; commit()
// renames it over `path` and fsyncs the directory. Any failure, discard(), or
// destruction before commit() removes the temporary file. Movable, not
// copyable. Errors carry kExitRuntime and read "cannot write WHAT PATH: REASON".
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
  Result<> open(const std::string& path, std::string_view what, std::size_t bufferBytes = 1 << 20);
  // Valid between open() and commit()/discard(). Write errors stick in the
  // stream's state and are reported by close() or commit().
  std::ofstream& stream() { return *stream_; }
  bool isOpen() const { return stream_ != nullptr; }
  // Flushes, closes and fsyncs the temporary file, keeping it for commit(). On
  // a write error removes it and returns the message.
  Result<> close();
  // close() if still open, then renames the temporary file over `path` and
  // fsyncs the directory. On failure nothing new is left at `path` (an older
  // file there is unchanged) and no temporary file remains.
  Result<> commit();
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
// names it in the message ("vertex dump", "scene").
Result<> writeFileAtomically(const std::string& path, std::string_view what, std::span<const uint8_t> bytes);
Result<> writeFileAtomically(const std::string& path, std::string_view what, std::string_view text);

// The image as a PNG at `path`, through AtomicFile (stb_image_write encodes
// it straight into the temporary file). An empty image (0x0: no frame was
// rendered) is refused.
Result<> writePngFile(const std::string& path, const RgbaImage& image);

// Text from an input (a path, a word of a script, a key of a scene) made safe
// to show in a one-line message: each control character (below 0x20, and
// 0x7f) is written as \xNN. A raw '\r' would let a terminal overwrite the
// line, an ESC start an escape sequence.
std::string printableText(std::string_view text);

// The whole file at `path`, for inputs that are small by nature (a scene, an
// input script): a file larger than maxBytes is refused rather than read, as
// it is a wrong path, not an input. Errors carry kExitUsage and read
// "PATH: cannot read WHAT: REASON" or "PATH: larger than N KiB/MiB, not WHAT"
// (`what` with its article: "a scene file", "an input script").
Result<std::string> readFileBounded(const std::string& path, std::string_view what, std::size_t maxBytes);

}  // namespace vksim
