// ExportedHandles' moves without a device (app/interop/grid_resources.h):
// the handles own whatever fd nobody imported, so a move must take every fd
// (the source is left with -1) and a move assignment must first close what
// the target held. Pipes stand in for the exported fds: a move that copied
// an fd instead of taking it would let the source's destructor close the fd
// the target still holds (lavapipe cannot export the texture, so no
// integration test ever moves a real texture fd).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "app/interop/grid_resources.h"

namespace vksim {
namespace {

bool isOpen(int fd) {
  return fd >= 0 && fcntl(fd, F_GETFD) != -1;
}

// Every fd slot of one ExportedHandles, in one order.
std::array<int*, 5> fdSlots(ExportedHandles& handles) {
  return {&handles.buffer.fd, &handles.semaphores.timelineFd, &handles.semaphores.renderDoneFd,
          &handles.semaphores.simDoneFd, &handles.texture.fd};
}

// Fills every slot with a fresh fd (a pipe's read end; the write ends are
// closed here) and returns them.
std::vector<int> fillWithPipes(ExportedHandles& handles) {
  std::vector<int> fds;
  for (int* slot : fdSlots(handles)) {
    int ends[2];
    if (pipe(ends) != 0) ADD_FAILURE() << "pipe failed";
    close(ends[1]);
    *slot = ends[0];
    fds.push_back(ends[0]);
  }
  return fds;
}

const char* const kSlotNames[] = {"buffer", "timeline", "renderDone", "simDone", "texture"};

TEST(ExportedHandlesMove, AssignmentTakesEveryFdAndTheSourceClosesNone) {
  ExportedHandles target;
  std::vector<int> moved;
  {
    ExportedHandles source;
    moved = fillWithPipes(source);
    source.texture.width = 64;
    target = std::move(source);
    for (size_t i = 0; i < moved.size(); ++i)
      EXPECT_EQ(*fdSlots(source)[i], -1) << kSlotNames[i] << ": the moved-from handles still hold the fd";
  }  // the source goes: it must close nothing of what the target took
  for (size_t i = 0; i < moved.size(); ++i) {
    EXPECT_EQ(*fdSlots(target)[i], moved[i]) << kSlotNames[i];
    EXPECT_TRUE(isOpen(moved[i])) << kSlotNames[i] << " fd " << moved[i]
                                  << " was closed by the moved-from handles";
  }
  EXPECT_EQ(target.texture.width, 64u);
  for (int* slot : fdSlots(target)) {  // ours again: closed here, not by the handles
    if (*slot >= 0) close(*slot);
    *slot = -1;
  }
}

TEST(ExportedHandlesMove, AssignmentClosesWhatTheTargetHeldBefore) {
  ExportedHandles target;
  const std::vector<int> old = fillWithPipes(target);
  ExportedHandles source;
  const std::vector<int> moved = fillWithPipes(source);
  target = std::move(source);
  for (size_t i = 0; i < old.size(); ++i) {
    // A number the kernel reused for `moved` would still be open: only check
    // the ones that are not also a moved fd.
    if (std::find(moved.begin(), moved.end(), old[i]) == moved.end()) {
      EXPECT_FALSE(isOpen(old[i])) << kSlotNames[i] << ": the target's earlier fd was not closed";
    }
    EXPECT_TRUE(isOpen(moved[i])) << kSlotNames[i];
  }
}

TEST(ExportedHandlesMove, ConstructionTakesEveryFd) {
  std::vector<int> moved;
  std::unique_ptr<ExportedHandles> target;
  {
    ExportedHandles source;
    moved = fillWithPipes(source);
    target = std::make_unique<ExportedHandles>(std::move(source));
  }
  for (size_t i = 0; i < moved.size(); ++i) {
    EXPECT_EQ(*fdSlots(*target)[i], moved[i]) << kSlotNames[i];
    EXPECT_TRUE(isOpen(moved[i])) << kSlotNames[i];
  }
  target.reset();  // the one owner closes them all
  for (size_t i = 0; i < moved.size(); ++i) EXPECT_FALSE(isOpen(moved[i])) << kSlotNames[i];
}

}  // namespace
}  // namespace vksim
