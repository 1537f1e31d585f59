#include "app/capture/trace_writer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <nlohmann/json.hpp>
#include <ostream>

namespace vksim {
namespace {
// Track ids start at 1: some viewers treat tid 0 as "no thread".
uint32_t threadId(TraceTrack track) {
  return uint32_t(track) + 1;
}

// Nanoseconds written as microseconds with three decimals, from the integer,
// so that a span's written end (ts + dur) equals the next span's written
// start exactly: rounding start and duration separately could make
// neighbours overlap by a nanosecond in the file.
struct Microseconds {
  int64_t ns = 0;
};

// A name from the caller, as a JSON string: the JSON library escapes it.
std::string jsonString(std::string_view text) {
  return nlohmann::json(std::string(text)).dump();
}
}  // namespace
}  // namespace vksim

template <>
struct fmt::formatter<vksim::Microseconds> {
  constexpr auto parse(format_parse_context& context) { return context.begin(); }
  template <typename Context>
  auto format(const vksim::Microseconds& time, Context& context) const {
    const uint64_t magnitude = time.ns < 0 ? uint64_t(0) - uint64_t(time.ns) : uint64_t(time.ns);
    return fmt::format_to(context.out(), "{}{}.{:03}", time.ns < 0 ? "-" : "", magnitude / 1000,
                          magnitude % 1000);
  }
};

namespace vksim {

namespace {
// Each track's name in the viewer and the name of its spans, in TraceTrack's order.
struct TrackNames {
  const char* track;
  const char* span;
};
constexpr TrackNames kTrackNames[kTraceTrackCount] = {
    {"Host frame", "frame"},
    {"Render GPU", "render"},
    {"Sim GPU", "sim step"},
    {"Sim external wait", "sim wait"},
    {"Host overlay build", "overlay build"},
    {"Host overlay record", "overlay record"},
};
}  // namespace

const char* trackName(TraceTrack track) {
  return std::size_t(track) < kTraceTrackCount ? kTrackNames[std::size_t(track)].track : "?";
}

const char* spanName(TraceTrack track) {
  return std::size_t(track) < kTraceTrackCount ? kTrackNames[std::size_t(track)].span : "?";
}

Result<> TraceWriter::open(const std::string& path) {
  processId_ = uint32_t(::getpid());
  adjustedSpans_ = 0;
  for (TrackState& track : tracks_) {
    track.lastStartNs = INT64_MIN;
    track.openEndsNs.clear();
    track.openEndsNs.reserve(8);
  }
  if (Result<> result = file_.open(path, "trace"); !result) return result;
  event_.clear();
  const auto out = std::back_inserter(event_);
  // displayTimeUnit only changes how the viewer labels times; ts and dur are
  // always microseconds in this format.
  fmt::format_to(out, "{{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  fmt::format_to(out, R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"vkcuda-sim"}}}})",
                 processId_);
  for (std::size_t i = 0; i < kTraceTrackCount; ++i) {
    const auto track = TraceTrack(i);
    beginEvent();
    fmt::format_to(out, R"({{"name":"thread_name","ph":"M","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                   processId_, threadId(track), trackName(track));
    beginEvent();
    fmt::format_to(out,
                   R"({{"name":"thread_sort_index","ph":"M","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
                   processId_, threadId(track), i);
  }
  writeEvent();
  return {};
}

void TraceWriter::beginEvent() {
  constexpr std::string_view kSeparator = ",\n";
  event_.append(kSeparator.data(), kSeparator.data() + kSeparator.size());
}

void TraceWriter::writeEvent() {
  file_.stream().write(event_.data(), std::streamsize(event_.size()));
  event_.clear();
}

void TraceWriter::addSpan(TraceTrack track, uint64_t frame, double startUs, double durationUs) {
  if (!file_.isOpen()) return;
  if (!std::isfinite(startUs) || !std::isfinite(durationUs)) {
    ++adjustedSpans_;
    return;
  }
  TrackState& state = tracks_[std::size_t(track)];
  int64_t startNs = std::llround(startUs * 1000.0);
  int64_t endNs = startNs + std::max<int64_t>(std::llround(durationUs * 1000.0), 0);
  bool adjusted = false;
  if (startNs < state.lastStartNs) {
    const int64_t shift = state.lastStartNs - startNs;
    startNs += shift;
    endNs += shift;
    adjusted = true;
  }
  // Spans that ended by this start are closed siblings; whatever is left
  // encloses this span, and the innermost one bounds its end.
  while (!state.openEndsNs.empty() && state.openEndsNs.back() <= startNs) state.openEndsNs.pop_back();
  if (!state.openEndsNs.empty() && endNs > state.openEndsNs.back()) {
    endNs = state.openEndsNs.back();
    adjusted = true;
  }
  state.openEndsNs.push_back(endNs);
  state.lastStartNs = startNs;
  if (adjusted) ++adjustedSpans_;

  beginEvent();
  fmt::format_to(std::back_inserter(event_),
                 R"({{"name":"{}","ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"args":{{"frame":{}}}}})",
                 spanName(track), processId_, threadId(track), Microseconds{startNs},
                 Microseconds{endNs - startNs}, frame);
  writeEvent();
}

void TraceWriter::addInstant(std::string_view name, double timeUs) {
  if (!file_.isOpen() || !std::isfinite(timeUs)) return;
  beginEvent();
  fmt::format_to(std::back_inserter(event_), R"({{"name":{},"ph":"i","s":"g","pid":{},"tid":{},"ts":{}}})",
                 jsonString(name), processId_, threadId(TraceTrack::hostFrame),
                 Microseconds{std::llround(timeUs * 1000.0)});
  writeEvent();
}

void TraceWriter::addTrackInstant(TraceTrack track, std::string_view name, double timeUs,
                                  std::string_view argsJson) {
  if (!file_.isOpen() || !std::isfinite(timeUs)) return;
  beginEvent();
  fmt::format_to(std::back_inserter(event_),
                 R"({{"name":{},"ph":"i","s":"t","pid":{},"tid":{},"ts":{},"args":{}}})", jsonString(name),
                 processId_, threadId(track), Microseconds{std::llround(timeUs * 1000.0)}, argsJson);
  writeEvent();
}

Result<> TraceWriter::finish() {
  if (!file_.isOpen()) return fail("cannot write trace: not open", kExitRuntime);
  file_.stream() << "\n]}\n";
  return file_.commit();
}

}  // namespace vksim
