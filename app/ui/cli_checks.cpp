#include "app/ui/cli_checks.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>

#include "app/capture/capture_writer.h"
#include "app/files.h"

namespace vksim {

// A whole number from `low` to `high`, in plain decimal digits. Checked on
// the text, before CLI11 converts it: CLI11 would accept "-1" for an unsigned
// option and wrap it, and a value past the type's range must name the range
// instead of running with whatever the conversion made of it.
CLI::Validator wholeNumber(uint64_t low, uint64_t high) {
  const std::string range = std::to_string(low) + " to " + std::to_string(high);
  return CLI::Validator(
      [low, high, range](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        const auto parsed = std::from_chars(text.data(), end, value);
        const bool digitsOnly = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        });
        if (!digitsOnly || parsed.ptr != end || parsed.ec != std::errc() || value < low || value > high)
          return "must be a whole number from " + range + " (got '" + text + "')";
        return {};
      },
      "N in " + range);
}

// --device: an index into the Vulkan list, or a device UUID of 32 hex digits
// (dashes anywhere, as --list-devices prints them). Whether such a device
// exists is the machine's answer (exit 3), not the command line's.
CLI::Validator deviceSelector() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digitsOnly =
            !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), [](char c) {
              return std::isdigit(static_cast<unsigned char>(c));
            });
        if (digitsOnly) return {};
        size_t hexDigits = 0;
        for (char c : text) {
          if (std::isxdigit(static_cast<unsigned char>(c)))
            ++hexDigits;
          else if (c != '-')
            return "must be a device index or a UUID of 32 hex digits (got '" + text + "')";
        }
        if (hexDigits != 32) return "must be a device index or a UUID of 32 hex digits (got '" + text + "')";
        return {};
      },
      "INDEX|UUID");
}

// Writing happens during or at the end of a run; a path that cannot be
// written must be refused before any frame, so that the run fails fast and
// leaves no file. Past the name's own checks this is checkWritable, the one
// writability check (app/files.h), which leaves nothing behind.
Result<> checkOutputPath(const std::string& path, const std::string& requiredExtension) {
  const std::filesystem::path p(path);
  if (!requiredExtension.empty() && p.extension() != requiredExtension)
    return fail("must end in " + requiredExtension);
  if (p.filename().empty()) return fail("names a directory, not a file");
  return checkWritable(path);
}

// `withSummary`: a capture, whose summary beside the CSV must be writable too.
CLI::Validator outputFile(const std::string& extension, bool withSummary) {
  return CLI::Validator(
      [extension, withSummary](std::string& value) {
        Result<> checked = checkOutputPath(value, extension);
        if (checked && withSummary) checked = checkCapturePath(value);
        return checked ? std::string() : checked.error().message;
      },
      "FILE" + extension, "writable output file");
}

CLI::Validator sizeValidator() {
  return CLI::Validator(
      [](std::string& value) {
        unsigned w = 0, h = 0;
        char x = 0, extra = 0;
        if (std::sscanf(value.c_str(), "%u%c%u%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X'))
          return std::string("must be WIDTHxHEIGHT, e.g. 1280x720");
        if (w < 16 || h < 16 || w > 8192 || h > 8192) return std::string("each side must be from 16 to 8192");
        return std::string();
      },
      "WxH");
}

}  // namespace vksim
