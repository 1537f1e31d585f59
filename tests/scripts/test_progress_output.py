#!/usr/bin/env python3
"""The progress bar of a headless run with a frame count: shown on a terminal
(a pseudo-terminal here), absent from a pipe, whose output stays what scripts
read. Usage: test_progress_output.py path/to/vkcuda-sim   (exit 0 = pass)"""
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

FRAMES = 40
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def arguments(app, capture):
    return [app, "--headless", "--backend", "cpu", "--frames", str(FRAMES), "--grid", "16",
            "--size", "64x64", "--capture", capture]


def run_on_terminal(command, timeout=60):
    """Runs command with stdout and stderr on a pseudo-terminal; returns (status, bytes)."""
    controller, terminal = pty.openpty()
    # 200 columns: the bar cuts its line to the terminal's width.
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal)
    os.close(terminal)
    output = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the last writer closed the terminal
                break
            if not chunk:
                break
            output += chunk
        elif process.poll() is not None:
            break
    else:
        process.kill()
        failures.append(f"the run on a terminal did not end within {timeout} s")
    os.close(controller)
    return process.wait(), output.decode(errors="replace")


def shape(lines):
    """Lines with every number replaced, so that two runs compare."""
    return [re.sub(r"\d+(\.\d+)?", "N", line) for line in lines]


def main():
    app = sys.argv[1]
    work = f"/tmp/vksim-progress-{os.getpid()}"
    os.makedirs(work, exist_ok=True)
    environment = dict(os.environ)

    status, terminal_text = run_on_terminal(arguments(app, f"{work}/tty.csv"))
    check(status == 0, f"terminal run exited {status}: {terminal_text[-500:]}")
    # The terminal turns "\n" into "\r\n"; what is left of "\r" is the bar's.
    text = terminal_text.replace("\r\n", "\n")
    bars = re.findall(r"\r(\[[#.]+\] \d+/\d+ frames[^\r\n]*)", text)
    check(len(bars) >= 2, f"expected the bar drawn at least twice (first and last frame), got {bars!r}")
    if bars:
        check(bars[-1].startswith(f"[{'#' * 30}] {FRAMES}/{FRAMES} frames"),
              f"the last bar does not show all frames: {bars[-1]!r}")
        check(re.search(r" fps  .* left", bars[-1]) is not None, f"no rate or time left: {bars[-1]!r}")
        check(f"recording {work}/tty.csv" in bars[-1], f"no capture label: {bars[-1]!r}")

    # A trace alone: the bar names the trace's file.
    trace_command = arguments(app, f"{work}/unused.csv")[:-2] + ["--trace", f"{work}/tty.json"]
    status, trace_text = run_on_terminal(trace_command)
    check(status == 0, f"trace-only terminal run exited {status}: {trace_text[-500:]}")
    trace_bars = re.findall(r"\r(\[[#.]+\] \d+/\d+ frames[^\r\n]*)", trace_text.replace("\r\n", "\n"))
    check(bool(trace_bars) and f"recording {work}/tty.json" in trace_bars[-1],
          f"no trace label: {trace_bars[-1:]!r}")

    piped = subprocess.run(arguments(app, f"{work}/pipe.csv"), stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment, timeout=60)
    check(piped.returncode == 0, f"piped run exited {piped.returncode}: {piped.stderr.decode()[-500:]}")
    piped_text = piped.stdout.decode()
    check("\r" not in piped_text, "a carriage return reached the pipe")
    check("frames  " not in piped_text and " fps" not in piped_text, f"the bar reached the pipe: {piped_text!r}")

    # Apart from the bar, the terminal shows the same lines as the pipe.
    without_bar = re.sub(r"(\r\[[#.]+\] \d+/\d+ frames[^\r\n]*)+\n", "", text)
    check(shape(without_bar.replace("tty.csv", "X.csv").splitlines()) ==
          shape(piped_text.replace("pipe.csv", "X.csv").splitlines()),
          f"terminal and pipe output differ beyond the bar:\n{without_bar!r}\n{piped_text!r}")
    check(piped_text.splitlines()[-1].startswith(f"vkcuda-sim: frames={FRAMES} "),
          f"the last line is not the summary: {piped_text.splitlines()[-1:]!r}")

    for name in os.listdir(work):
        os.remove(os.path.join(work, name))
    os.rmdir(work)
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    print("test_progress_output: " + ("passed" if not failures else f"{len(failures)} failure(s)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
