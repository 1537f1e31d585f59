// SIGINT and SIGTERM: the first asks the process to finish cleanly, a second
// ends it at once. Installed first thing in main(), before the command line
// is parsed: parsing creates and removes probe files (checkWritable), and a
// signal there must not end the process with a probe left on disk.
#pragma once

namespace vksim {

// Installs the handler for SIGINT and SIGTERM. The first signal is recorded
// (interruptSignal()) and announced on stdout at once, with write(2), in one
// line that starts "interrupted (SIGINT)" or "interrupted (SIGTERM)": a run
// blocked in a wait still tells the user it heard them. A second signal of
// either kind restores the default action and raises it again, so the
// process ends by that signal (the way out of a run that does not stop).
void installInterruptHandlers();

// The signal that asked the process to stop (SIGINT or SIGTERM); 0 while
// none did. Long-running modes (the frame loop, bench) poll it at frame
// boundaries.
int interruptSignal();

}  // namespace vksim
