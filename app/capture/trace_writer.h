// `--trace PATH.json`: the run as a Chrome trace (chrome://tracing, Perfetto,
// speedscope): one track per kind of span, complete ("X") events, instant
// events for mode switches. docs/captures.md describes the tracks.
// Plain C++: no Vulkan, no CUDA. Not thread-safe: the frame loop owns it.
#pragma once
#include <fmt/format.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "app/capture/capture_writer.h"

namespace vksim {

// One track (a "thread" in the trace viewer) per kind of span.
enum class TraceTrack : uint8_t { hostFrame, renderGpu, simGpu, simWait, overlayBuild, overlayRecord };
inline constexpr std::size_t kTraceTrackCount = 6;

// The track's name in the viewer ("Host frame", ...) and the name of its spans ("frame", ...).
const char* trackName(TraceTrack track);
const char* spanName(TraceTrack track);

// Streams events into PATH.tmp-<pid> as they arrive (a frame costs a few
// formatted numbers, no allocation after the first frames) and renames the
// file into place on finish(). Destroying an unfinished writer removes the
// temporary file.
//
// Times are microseconds since the capture started, on one clock for every
// track (the frame loop converts GPU timestamps to the host clock). They are
// kept to the nanosecond.
class TraceWriter {
 public:
  // Creates the temporary file and writes the track names. On failure nothing
  // is left on disk.
  Result<> open(const std::string& path);
  bool isOpen() const { return file_.isOpen(); }

  // A span [startUs, startUs + durationUs) of frame `frame` on `track`.
  // Spans on one track must come in order of start. So that every track nests
  // (each span is either inside the one before it or after it, never
  // straddling), a span that starts before the previous one on its track is
  // moved to that start, and a span that starts inside an earlier one but
  // ends after it is cut at that one's end; adjustedSpanCount() counts these.
  // A negative duration becomes 0; a non-finite time drops the span (counted
  // too). Ignored when not open.
  void addSpan(TraceTrack track, uint64_t frame, double startUs, double durationUs);

  // A global instant event (a vertical line across all tracks), e.g.
  // "sync mode: binary" at the frame boundary where the switch happened.
  void addInstant(std::string_view name, double timeUs);

  // An instant event on one track ("ph": "i", "s": "t") with `argsJson` (a
  // JSON object, written as given) as its args: the value schedule's
  // submissions (app/capture/schedule_log.h). Ignored when not open.
  void addTrackInstant(TraceTrack track, std::string_view name, double timeUs, std::string_view argsJson);

  // Closes the JSON and renames the file into place; on failure removes the
  // temporary file and returns one line.
  Result<> finish();
  void discard() { file_.discard(); }

  std::size_t adjustedSpanCount() const { return adjustedSpans_; }

 private:
  struct TrackState {
    int64_t lastStartNs = INT64_MIN;
    std::vector<int64_t> openEndsNs;  // ends of the spans that enclose the next start
  };
  // Every event after the first starts with the comma that separates it
  // from the one before: beginEvent puts it into event_.
  void beginEvent();
  // Writes event_ (one or more formatted events) to the file and empties it.
  void writeEvent();

  AtomicFile file_;
  // Each event is formatted here first: the buffer keeps its capacity, so
  // after the first events a span costs no allocation.
  fmt::memory_buffer event_;
  uint32_t processId_ = 0;
  std::array<TrackState, kTraceTrackCount> tracks_;
  std::size_t adjustedSpans_ = 0;
};

}  // namespace vksim
