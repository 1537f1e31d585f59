#include "app/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <csignal>

namespace vksim {
namespace {

// Set once, by the first signal; read by the modes that finish cleanly.
volatile std::sig_atomic_t interrupted = 0;

// The announcement is written here, not by the frame loop, because the loop
// may be blocked for the whole wait bound (a stalled step, up to an hour with
// VKSIM_WAIT_TIMEOUT_MS): the user must learn that the first signal arrived
// and that a second one ends the process. write(2) is async-signal-safe;
// stdio is not.
constexpr char kSigintLine[] = "interrupted (SIGINT): finishing; a second signal ends the process at once\n";
constexpr char kSigtermLine[] = "interrupted (SIGTERM): finishing; a second signal ends the process at once\n";

void onInterrupt(int signalNumber) {
  if (interrupted) {
    // signal() and raise() are async-signal-safe. The default action of
    // both signals ends the process, whichever thread this runs on.
    std::signal(signalNumber, SIG_DFL);
    std::raise(signalNumber);
    return;
  }
  interrupted = signalNumber;
  if (signalNumber == SIGINT)
    (void)!::write(STDOUT_FILENO, kSigintLine, sizeof kSigintLine - 1);
  else
    (void)!::write(STDOUT_FILENO, kSigtermLine, sizeof kSigtermLine - 1);
}

}  // namespace

void installInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  // SA_NODEFER: the announcement's write(2) can block (stdout a full pipe);
  // a second signal must still get in, find `interrupted` set and end the
  // process, rather than wait behind the first handler. SA_RESTART: the
  // run's own reads, writes and waits go on after the first signal.
  action.sa_flags = SA_RESTART | SA_NODEFER;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interruptSignal() {
  return interrupted;
}

}  // namespace vksim
