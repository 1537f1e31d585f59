// The path choice (app/paths/path_factory.h, choosePath) from the backend,
// the transfer and the memory owner, for every combination, without a
// device: CI has no CUDA, so the CUDA rows of this table run nowhere else
// before the NVIDIA machine.
#include <gtest/gtest.h>

#include <string>

#include "app/paths/path_factory.h"

namespace vksim {
namespace {

InteropConfig configOf(TransferMode transfer, MemoryOwner owner) {
  InteropConfig config;
  config.transfer = transfer;
  config.memoryOwner = owner;
  return config;
}

// The backend's --backend name (its row of app/interop/interop_config.h).
const char* nameOf(Backend backend) { return toString(backend); }

std::string describe(Backend backend, TransferMode transfer, MemoryOwner owner) {
  return std::string("--backend ") + nameOf(backend) + " --transfer " + toString(transfer) +
         " --memory-owner " + toString(owner);
}

// What docs/design.md ("Paths") promises, written out on its own: the
// render-queue backends always run in the render's queue; otherwise
// --transfer copy is the copy path whoever would own the memory; then the
// memory owner decides between CUDA's two zero-copy paths.
InteropPath expectedPath(Backend backend, TransferMode transfer, MemoryOwner owner) {
  if (backend == Backend::vulkan || backend == Backend::cudaNvx) return InteropPath::renderQueue;
  if (transfer == TransferMode::copy) return InteropPath::copy;
  if (backend == Backend::cuda)
    return owner == MemoryOwner::cuda ? InteropPath::cudaOwnedMemory : InteropPath::zeroCopy;
  if (backend == Backend::opencl) return InteropPath::openCl;
  return InteropPath::cpuHost;
}

TEST(PathChoice, TransferCopyIsTheCopyPathWhateverTheMemoryOwner) {
  for (const Backend backend : {Backend::cpu, Backend::cuda, Backend::opencl})
    for (const MemoryOwner owner : {MemoryOwner::vulkan, MemoryOwner::cuda})
      EXPECT_STREQ(toString(choosePath(backend, configOf(TransferMode::copy, owner))),
                   toString(InteropPath::copy))
          << describe(backend, TransferMode::copy, owner);
}

TEST(PathChoice, EveryBackendTransferAndOwnerGivesItsPath) {
  for (const Backend backend :
       {Backend::cpu, Backend::cuda, Backend::opencl, Backend::vulkan, Backend::cudaNvx})
    for (const TransferMode transfer : {TransferMode::zeroCopy, TransferMode::copy})
      for (const MemoryOwner owner : {MemoryOwner::vulkan, MemoryOwner::cuda}) {
        const InteropPath chosen = choosePath(backend, configOf(transfer, owner));
        EXPECT_STREQ(toString(chosen), toString(expectedPath(backend, transfer, owner)))
            << describe(backend, transfer, owner);
      }
  // The ones a user names most, spelt out.
  EXPECT_EQ(choosePath(Backend::cuda, configOf(TransferMode::zeroCopy, MemoryOwner::vulkan)),
            InteropPath::zeroCopy);
  EXPECT_EQ(choosePath(Backend::cuda, configOf(TransferMode::zeroCopy, MemoryOwner::cuda)),
            InteropPath::cudaOwnedMemory);
  EXPECT_EQ(choosePath(Backend::cpu, configOf(TransferMode::zeroCopy, MemoryOwner::vulkan)),
            InteropPath::cpuHost);
}

// The overlay's sharing lines (PathDescriptor::semaphoreSharing and
// bufferSharing) say what each path does: the copy path shares neither its
// semaphores nor its device-local buffer (app/paths/copy_path.cpp), where
// the CPU host path's buffer is host-visible and its semaphores host-driven.
TEST(PathWords, TheCopyPathSharesNothingAndTheCpuHostPathIsHostVisible) {
  const PathDescriptor& copy = describePath(InteropPath::copy);
  EXPECT_EQ(std::string(copy.semaphoreSharing).rfind("none", 0), 0u) << copy.semaphoreSharing;
  EXPECT_NE(std::string(copy.bufferSharing).find("device-local, not shared"), std::string::npos)
      << copy.bufferSharing;
  const PathDescriptor& cpuHost = describePath(InteropPath::cpuHost);
  EXPECT_NE(std::string(cpuHost.semaphoreSharing).find("the host waits and signals"), std::string::npos);
  EXPECT_STREQ(cpuHost.bufferSharing, "host-visible");
}

}  // namespace
}  // namespace vksim
