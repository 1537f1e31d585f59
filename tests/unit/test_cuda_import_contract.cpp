// The CUDA backend's side of the fd ownership rule (sim/cuda/cuda_simulation.h):
// it marks each fd it imported (-1) and closes none, so that the one owner of
// the fds, ExportedHandles (app/interop/grid_resources.h), closes the rest. Its
// checks of the arguments run before any CUDA call, so a refused import can
// be watched without a CUDA device: every fd it was given is still open and
// still the caller's afterwards.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/cuda/cuda_simulation.h"

namespace vksim {
namespace {

bool fdIsOpen(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) != -1; }

TEST(CudaImportContract, ARefusedImportClosesNoFdAndLeavesEachWithTheCaller) {
  const int vertexFd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int semaphoreFd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_TRUE(fdIsOpen(vertexFd));
  ASSERT_TRUE(fdIsOpen(semaphoreFd));
  ModelParams params;
  params.grid = 64;
  ExternalBuffer vertices;
  vertices.fd = vertexFd;
  vertices.size = vertices.allocationSize = 16;  // far less than a 64x64 grid needs: refused before any import
  ExternalSemaphores semaphores;
  semaphores.simDoneFd = semaphoreFd;

  const Result<std::unique_ptr<Simulation>> simulation = createCudaSimulation(params, 0, vertices, semaphores);

  ASSERT_FALSE(simulation);
  EXPECT_NE(simulation.error().message.find("less than"), std::string::npos) << simulation.error().message;
  EXPECT_EQ(simulation.error().exitCode, kExitEnvironment);
  // Nothing was imported: both fds are still the caller's, marked so and open.
  EXPECT_EQ(vertices.fd, vertexFd);
  EXPECT_EQ(semaphores.simDoneFd, semaphoreFd);
  EXPECT_TRUE(fdIsOpen(vertexFd)) << "the backend closed an fd that it did not import";
  EXPECT_TRUE(fdIsOpen(semaphoreFd)) << "the backend closed an fd that it did not import";
  close(vertexFd);
  close(semaphoreFd);
}

}  // namespace
}  // namespace vksim
