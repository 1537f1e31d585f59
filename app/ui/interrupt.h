// SIGINT (Ctrl-C) and SIGTERM: what the user's interrupt does, by stage.
//
//   start-up (main() until the run begins: parsing the command line, reading
//   the scene and the script, the instance, the devices and their pairing,
//   the window, the first build of the grid): the first signal ends the
//   process at once, by that signal (its default action: a shell sees 130
//   or 143). Nothing there is worth finishing, and some of it cannot be
//   cut short from inside: a driver creating a device, a read from a FIFO.
//
//   the run (after endStartUp()): the first signal asks for one last frame
//   and the requested files (bench: the configuration in progress is
//   abandoned); a second signal ends the process at once, by that signal.
//
// Either way the first signal is announced at once in one line on stdout,
// written by the handler itself (the main thread may be blocked).
#pragma once
#include <csignal>

namespace vksim {

// Installs the handlers for SIGINT and SIGTERM; first thing in main().
void installInterruptHandlers();

// The signal that asked the run to stop (SIGINT or SIGTERM), 0 while none
// has. Only a run sets it: during start-up a signal ends the process.
const volatile std::sig_atomic_t& interruptSignal();

// The run begins: from now on the first signal is a request to finish.
void endStartUp();

// While one of these lives, a start-up signal waits for its end instead of
// ending the process: checkWritable holds one around its probe file, so that
// an ended start-up leaves no probe behind. A second signal does not wait.
class StartUpSignalsHeld {
 public:
  StartUpSignalsHeld();
  ~StartUpSignalsHeld();
  StartUpSignalsHeld(const StartUpSignalsHeld&) = delete;
  StartUpSignalsHeld& operator=(const StartUpSignalsHeld&) = delete;
};

}  // namespace vksim
