// One CSV row at a time, for the capture writers (capture_writer.h,
// presentmon_v2.h, mangohud_log.h): fields appended to a buffer that the
// writer owns and reuses, so a row costs no allocation once the first rows
// are written. Plain C++ and fmt.
#pragma once
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

namespace vksim {

// Appends CSV fields to a row buffer. The buffer is the writer's and keeps
// its capacity from row to row (fmt::memory_buffer: 500 bytes inline, grown
// only by an unusually long text field and kept grown), so that a row costs no
// allocation once the first rows are written.
class RowBuilder {
 public:
  explicit RowBuilder(fmt::memory_buffer& row) : row_(row) { row_.clear(); }

  // Ends the row; the next field starts a new one.
  void end() {
    row_.push_back('\n');
    first_ = true;
  }

  // A text field, quoted only when it holds a comma, a quote or a line break.
  void text(std::string_view value) {
    startField();
    // RFC 4180 quoting, only when needed: the usual values are bare words.
    if (value.find_first_of(",\"\r\n") == std::string_view::npos) {
      append(value);
      return;
    }
    row_.push_back('"');
    for (char c : value) {
      if (c == '"') row_.push_back('"');
      row_.push_back(c);
    }
    row_.push_back('"');
  }

  // Whole numbers in plain decimal; NA for a value that is not known.
  void unsignedInteger(uint64_t value) { format("{}", value); }
  void signedInteger(int64_t value) { format("{}", value); }
  void notAvailable() { word("NA"); }

  // Fixed notation (PresentMon's style); NA for a value that is not finite,
  // so that no "nan" or "inf" reaches a parser.
  void fixed(double value, int decimals) {
    if (std::isfinite(value))
      format("{:.{}f}", value, decimals);
    else
      notAvailable();
  }
  void fixed(const std::optional<double>& value, int decimals) {
    if (value)
      fixed(*value, decimals);
    else
      notAvailable();
  }

  // Six significant digits, as an ostream writes a double by default
  // (MangoHud's log); NA for a value that is not finite.
  void sixDigits(double value) {
    if (std::isfinite(value))
      format("{:.6g}", value);
    else
      notAvailable();
  }

  // 0x and upper-case hex digits: 16 of them (PresentMon 1.x), or as few as
  // the value needs (PresentMon 2.x).
  void hex16(uint64_t value) { format("0x{:016X}", value); }
  void hexShort(uint64_t value) { format("0x{:X}", value); }

  // A field whose text needs neither quoting nor formatting.
  void word(std::string_view value) {
    startField();
    append(value);
  }

 private:
  void startField() {
    if (!first_) row_.push_back(',');
    first_ = false;
  }

  void append(std::string_view value) { row_.append(value.data(), value.data() + value.size()); }

  template <typename... Args>
  void format(fmt::format_string<Args...> pattern, Args&&... args) {
    startField();
    fmt::format_to(std::back_inserter(row_), pattern, std::forward<Args>(args)...);
  }

  fmt::memory_buffer& row_;
  bool first_ = true;
};

}  // namespace vksim
