// A test seam for close(2): the integration tests' executable defines close
// itself (close_recorder.cpp), forwarding every call to the C library's, and
// while a CloseRecorder lives it counts the calls that failed with EBADF. A
// second close of one fd fails so, and is a bug even where it looks harmless:
// between the two closes another thread may have opened a file under the
// same number, which the second close then takes away from it. Counting open
// fds cannot see it (the count is the same after one close or two).
#pragma once

namespace vksim::testing {

class CloseRecorder {
 public:
  CloseRecorder();
  ~CloseRecorder();
  CloseRecorder(const CloseRecorder&) = delete;
  CloseRecorder& operator=(const CloseRecorder&) = delete;

  // close() calls made while this recorder lived that failed with EBADF.
  int badCloses() const;
};

}  // namespace vksim::testing
