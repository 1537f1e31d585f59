#include "app/capture/trace_writer.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>

namespace vksim {
namespace {
// Track ids start at 1: some viewers treat tid 0 as "no thread".
uint32_t threadId(TraceTrack track) {
  return uint32_t(track) + 1;
}

// Writes nanoseconds as microseconds with three decimals, from the integer,
// so that a span's written end (ts + dur) equals the next span's written
// start exactly: rounding start and duration separately could make
// neighbours overlap by a nanosecond in the file.
void writeMicroseconds(std::ostream& out, int64_t ns) {
  char text[32];
  char* p = text;
  if (ns < 0) {
    *p++ = '-';
    ns = -ns;
  }
  p = std::to_chars(p, text + sizeof text, ns / 1000).ptr;
  const int64_t fraction = ns % 1000;
  *p++ = '.';
  *p++ = char('0' + fraction / 100);
  *p++ = char('0' + fraction / 10 % 10);
  *p++ = char('0' + fraction % 10);
  out.write(text, p - text);
}

void writeInteger(std::ostream& out, uint64_t value) {
  char text[24];
  const char* end = std::to_chars(text, text + sizeof text, value).ptr;
  out.write(text, end - text);
}
}  // namespace

const char* trackName(TraceTrack track) {
  switch (track) {
    case TraceTrack::hostFrame:
      return "Host frame";
    case TraceTrack::renderGpu:
      return "Render GPU";
    case TraceTrack::simGpu:
      return "Sim GPU";
    case TraceTrack::simWait:
      return "Sim external wait";
  }
  return "?";
}

const char* spanName(TraceTrack track) {
  switch (track) {
    case TraceTrack::hostFrame:
      return "frame";
    case TraceTrack::renderGpu:
      return "render";
    case TraceTrack::simGpu:
      return "sim step";
    case TraceTrack::simWait:
      return "sim wait";
  }
  return "?";
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
  std::ostream& out = file_.stream();
  // displayTimeUnit only changes how the viewer labels times; ts and dur are
  // always microseconds in this format.
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  out << R"({"name":"process_name","ph":"M","pid":)" << processId_ << R"(,"args":{"name":"vkcuda-sim"}})";
  for (std::size_t i = 0; i < kTraceTrackCount; ++i) {
    const auto track = TraceTrack(i);
    out << ",\n"
        << R"({"name":"thread_name","ph":"M","pid":)" << processId_ << ",\"tid\":" << threadId(track)
        << R"(,"args":{"name":")" << trackName(track) << "\"}},\n"
        << R"({"name":"thread_sort_index","ph":"M","pid":)" << processId_ << ",\"tid\":" << threadId(track)
        << R"(,"args":{"sort_index":)" << i << "}}";
  }
  return {};
}

void TraceWriter::beginEvent() {
  file_.stream().write(",\n", 2);
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

  std::ostream& out = file_.stream();
  beginEvent();
  out << R"({"name":")" << spanName(track) << R"(","ph":"X","pid":)" << processId_
      << ",\"tid\":" << threadId(track) << ",\"ts\":";
  writeMicroseconds(out, startNs);
  out << ",\"dur\":";
  writeMicroseconds(out, endNs - startNs);
  out << ",\"args\":{\"frame\":";
  writeInteger(out, frame);
  out << "}}";
}

void TraceWriter::addInstant(std::string_view name, double timeUs) {
  if (!file_.isOpen() || !std::isfinite(timeUs)) return;
  std::ostream& out = file_.stream();
  beginEvent();
  // The name comes from the caller: let the JSON library escape it.
  out << R"({"name":)" << nlohmann::json(std::string(name)).dump() << R"(,"ph":"i","s":"g","pid":)"
      << processId_ << ",\"tid\":" << threadId(TraceTrack::hostFrame) << ",\"ts\":";
  writeMicroseconds(out, std::llround(timeUs * 1000.0));
  out << "}";
}

void TraceWriter::addTrackInstant(TraceTrack track, std::string_view name, double timeUs,
                                  std::string_view argsJson) {
  if (!file_.isOpen() || !std::isfinite(timeUs)) return;
  std::ostream& out = file_.stream();
  beginEvent();
  out << R"({"name":)" << nlohmann::json(std::string(name)).dump() << R"(,"ph":"i","s":"t","pid":)"
      << processId_ << ",\"tid\":" << threadId(track) << ",\"ts\":";
  writeMicroseconds(out, std::llround(timeUs * 1000.0));
  out << ",\"args\":";
  out.write(argsJson.data(), std::streamsize(argsJson.size()));
  out << "}";
}

Result<> TraceWriter::finish() {
  if (!file_.isOpen()) return fail("cannot write trace: not open", kExitRuntime);
  file_.stream() << "\n]}\n";
  return file_.commit();
}

}  // namespace vksim
