#include "app/interop/wait_strategy.h"

#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace vksim {

const char* toString(WaitStrategy strategy) {
  switch (strategy) {
    case WaitStrategy::poll:
      return "poll";
    case WaitStrategy::enqueue:
      return "enqueue";
  }
  return "?";
}

void spinPause() {
  // A few pause instructions keep the spinning core from flooding the memory
  // system; the yield lets another ready thread (a driver's submission
  // thread, lavapipe's rasteriser threads) run when cores are scarce.
#if defined(__x86_64__) || defined(__i386__)
  for (int i = 0; i < 16; ++i) _mm_pause();
#endif
  std::this_thread::yield();
}

}  // namespace vksim
