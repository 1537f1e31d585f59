#include "app/interop/host_wait.h"

#include <thread>

#include "base/host_clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace vksim {

void spinPause() {
  // A few pause instructions keep the spinning core from flooding the memory
  // system; the yield lets another ready thread (a driver's submission
  // thread, lavapipe's rasteriser threads) run when cores are scarce.
#if defined(__x86_64__) || defined(__i386__)
  for (int i = 0; i < 16; ++i) _mm_pause();
#endif
  std::this_thread::yield();
}

bool waitUntilReached(const std::function<bool()>& reached, uint64_t timeoutNs) {
  return waitUntilReached(reached, timeoutNs, hostNowNs);
}

}  // namespace vksim
