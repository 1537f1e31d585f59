#include "app/image_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stb_image_write.h>

namespace vksim {
namespace {

std::string temporaryPathFor(const std::string& path) { return path + ".tmp-" + std::to_string(getpid()); }

// rename() within one directory is atomic on POSIX: readers see the old file
// or the whole new one.
std::string commit(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    return "cannot write " + path + ": " + reason;
  }
  return {};
}

}  // namespace

std::string writePngFile(const std::string& path, const RgbaImage& image) {
  if (image.pixels.size() != size_t(image.width) * image.height * 4) return "cannot write " + path + ": no image";
  const std::string temporary = temporaryPathFor(path);
  if (!stbi_write_png(temporary.c_str(), int(image.width), int(image.height), 4, image.pixels.data(),
                      int(image.width * 4))) {
    std::remove(temporary.c_str());
    return "cannot write " + path + ": PNG encoding or file write failed";
  }
  return commit(temporary, path);
}

std::string writeBinaryFile(const std::string& path, std::span<const uint8_t> bytes) {
  const std::string temporary = temporaryPathFor(path);
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (!file) return "cannot write " + path + ": " + std::strerror(errno);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed) {
    std::remove(temporary.c_str());
    return "cannot write " + path + ": short write";
  }
  return commit(temporary, path);
}

std::string writeTextFile(const std::string& path, const std::string& text) {
  return writeBinaryFile(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace vksim
