// Output files the user asked for, written whole or not at all: each goes to
// a temporary file beside its target and is renamed into place only once
// complete, so a failed run never leaves a half-written file.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "renderer/readback.h"

namespace vksim {

// PNG through stb_image_write. Returns an empty string on success, else one
// line saying what failed.
std::string writePngFile(const std::string& path, const RgbaImage& image);

// Raw bytes (the vertex dump: little-endian float32 in the shared layout).
std::string writeBinaryFile(const std::string& path, std::span<const uint8_t> bytes);

// Text (captures, traces, JSON): the same all-or-nothing rule.
std::string writeTextFile(const std::string& path, const std::string& text);

}  // namespace vksim
