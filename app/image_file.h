// The screenshot and the vertex dump, written whole or not at all through
// AtomicFile (app/atomic_file.h): temporary file beside the target, fsync,
// rename. A failed write leaves neither the target nor the temporary file.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "renderer/readback.h"

namespace vksim {

// PNG through stb_image_write. Returns an empty string on success, else one
// line saying what failed; an empty image (0x0, no frame rendered) is refused.
std::string writePngFile(const std::string& path, const RgbaImage& image);

// Raw bytes (the vertex dump: little-endian float32 in the shared layout).
std::string writeBinaryFile(const std::string& path, std::span<const uint8_t> bytes);

// Text (captures, traces, JSON): the same all-or-nothing rule.
std::string writeTextFile(const std::string& path, const std::string& text);

}  // namespace vksim
