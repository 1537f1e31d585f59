#include "app/interop/wait_strategy.h"

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

}  // namespace vksim
