#include "app/ui/interrupt.h"

#include <signal.h>
#include <unistd.h>

namespace vksim {
namespace {

// Everything the handler reads or writes: sig_atomic_t, as the handler may
// run between any two instructions of the main thread (or on another thread).
volatile std::sig_atomic_t interrupted = 0;    // the run's request: the first signal's number
volatile std::sig_atomic_t startingUp = 1;     // 1 until endStartUp()
volatile std::sig_atomic_t heldDepth = 0;      // live StartUpSignalsHeld objects
volatile std::sig_atomic_t heldSignal = 0;     // a start-up signal that waits for them

constexpr char kSigintLine[] = "interrupted (SIGINT): finishing; a second signal ends the process at once\n";
constexpr char kSigtermLine[] = "interrupted (SIGTERM): finishing; a second signal ends the process at once\n";
constexpr char kSigintStartUpLine[] = "interrupted (SIGINT) during start-up: ending now\n";
constexpr char kSigtermStartUpLine[] = "interrupted (SIGTERM) during start-up: ending now\n";

// write(2) is async-signal-safe; stdio is not.
template <size_t N>
void say(const char (&line)[N]) {
  (void)!::write(STDOUT_FILENO, line, N - 1);
}

// The default action of both signals ends the process, whichever thread
// this runs on; signal() and raise() are async-signal-safe.
void endBySignal(int signalNumber) {
  std::signal(signalNumber, SIG_DFL);
  std::raise(signalNumber);
}

void endStartUpBySignal(int signalNumber) {
  if (signalNumber == SIGINT)
    say(kSigintStartUpLine);
  else
    say(kSigtermStartUpLine);
  endBySignal(signalNumber);
}

void onInterrupt(int signalNumber) {
  if (startingUp) {
    // A probe file exists right now: the end waits for its removal, unless
    // this is the second signal.
    if (heldDepth > 0 && heldSignal == 0) {
      heldSignal = signalNumber;
      return;
    }
    endStartUpBySignal(signalNumber);
    return;
  }
  if (interrupted) {
    endBySignal(signalNumber);
    return;
  }
  interrupted = signalNumber;
  // The announcement comes from here, not from the frame loop, because the
  // loop may be blocked for the whole wait bound (a stalled step, up to an
  // hour with VKSIM_WAIT_TIMEOUT_MS): the user must learn that the first
  // signal arrived and that a second one ends the process.
  if (signalNumber == SIGINT)
    say(kSigintLine);
  else
    say(kSigtermLine);
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

const volatile std::sig_atomic_t& interruptSignal() { return interrupted; }

void endStartUp() { startingUp = 0; }

StartUpSignalsHeld::StartUpSignalsHeld() { heldDepth = heldDepth + 1; }

StartUpSignalsHeld::~StartUpSignalsHeld() {
  heldDepth = heldDepth - 1;
  if (heldDepth == 0 && heldSignal != 0 && startingUp) endStartUpBySignal(heldSignal);
}

}  // namespace vksim
