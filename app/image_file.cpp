#include "app/image_file.h"

#include <stb_image_write.h>

#include "app/files.h"

namespace vksim {
namespace {

// stb's PNG writer hands the encoded bytes to a callback in pieces; they go
// straight into the temporary file, whose stream keeps any write error for
// commit() to report.
void appendToStream(void* context, void* data, int size) {
  static_cast<std::ofstream*>(context)->write(static_cast<const char*>(data), size);
}

}  // namespace

std::string writePngFile(const std::string& path, const RgbaImage& image) {
  if (image.width == 0 || image.height == 0 || image.pixels.size() != size_t(image.width) * image.height * 4)
    return "cannot write " + path + ": no image (no frame was rendered)";
  AtomicFile file;
  if (FileResult opened = file.open(path, "screenshot", 256 * 1024); !opened) return opened.message;
  if (!stbi_write_png_to_func(appendToStream, &file.stream(), int(image.width), int(image.height), 4,
                              image.pixels.data(), int(image.width * 4)))
    return "cannot write screenshot " + path + ": PNG encoding failed";  // file's destructor removes the temp
  const FileResult committed = file.commit();
  return committed ? std::string() : committed.message;
}

std::string writeBinaryFile(const std::string& path, std::span<const uint8_t> bytes) {
  const FileResult written = writeFileAtomically(path, "file", bytes);
  return written ? std::string() : written.message;
}

std::string writeTextFile(const std::string& path, const std::string& text) {
  return writeBinaryFile(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

}  // namespace vksim
