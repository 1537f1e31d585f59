#!/usr/bin/env python3
"""One frame captured by RenderDoc, as a user takes it, holds the program's
object names and command-buffer labels (renderer/debug_names.h,
docs/profiling.md).

The app runs in a window under the test's X server (VKSIM_TEST_DISPLAY, which
scripts/test starts) on lavapipe, launched by `renderdoccmd capture`; F12,
RenderDoc's capture key, is pressed with xdotool; the capture is converted
with `renderdoccmd convert ... -c zip.xml` and its XML is searched for the
names and labels. The CPU backend: lavapipe cannot export semaphores, so the
acquire from and release to VK_QUEUE_FAMILY_EXTERNAL, which only a frame
shared with CUDA or OpenCL records, cannot appear here. A second capture,
with `--transfer copy`, checks that a render no semaphore orders says so in
its label instead of the schedule's values.

Usage: test_renderdoc_capture.py PATH/TO/vkcuda-sim
Exit status 0 when every name and label is there, 1 otherwise.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

# What the capture must name: the objects a reader looks for, by their role.
# RenderDoc keeps the names of the objects the frame uses: a timeline frame
# does not use renderDone and simDone (a binary frame does), and RenderDoc
# 1.24 keeps no command buffer's name.
NAMES = [
    "shared vertex buffer",
    "shared vertex memory (host-visible, mapped)",
    "timeline: render k signals 2k+1, sim k signals 2k+2",
    "surface texture",
    "surface texture memory",
    "render queue",
    "frame in flight",
]
# The regions of the frame's command buffer.
LABELS = ["mesh draw", "overlay"]
RENDER_LABEL = re.compile(r"render (\d+): wait (\d+), signal (\d+)")
# The copy path's render (the host orders the copy; profiling_marks.cpp).
COPY_LABEL = re.compile(r"render (\d+): no semaphores, the host orders the copy")
BOUND_S = 60  # every wait below ends within this


def fail(message):
    print("test_renderdoc_capture: " + message, file=sys.stderr)
    sys.exit(1)


def wait_for(predicate, what):
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    fail(f"{what} did not happen within {BOUND_S} s")


def window_id(env):
    found = subprocess.run(["xdotool", "search", "--name", "^vkcuda-sim$"], env=env, capture_output=True, text=True)
    return found.stdout.split()[0] if found.returncode == 0 and found.stdout.split() else None


def press_capture_key(template, env):
    """RenderDoc reads F12's state at each present and captures the frame
    after a press. The window may show before the first present (a loaded
    machine), so the key is held across a few frames and pressed again until
    a capture exists. Returns the captures written so far."""
    captures = glob.glob(template + "_frame*.rdc")
    if not captures:
        subprocess.run(["xdotool", "keydown", "F12", "sleep", "0.3", "keyup", "F12"], env=env, check=True)
        time.sleep(0.7)
    return captures


def capture_one_frame(app, directory, env, extra=()):
    """Runs the app under renderdoccmd, presses F12 once the window shows
    frames, and closes the window (Escape) once the capture is written."""
    template = os.path.join(directory, "cap")
    # Many frames as a bound only: the window is closed as soon as the
    # capture exists. Vsync off: Xvfb has no vertical blank to wait for.
    command = ["renderdoccmd", "capture", "-w", "-c", template, app, "--backend", "cpu", "--grid", "64",
               "--size", "320x240", "--vsync", "off", "--frames", "3000", *extra]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        window = wait_for(lambda: window_id(env), "the app's window")
        captures = wait_for(lambda: press_capture_key(template, env), "a capture file")
        time.sleep(0.5)  # let RenderDoc finish writing it
        subprocess.run(["xdotool", "windowfocus", "--sync", window, "key", "Escape"], env=env, check=False)
        output, _ = process.communicate(timeout=BOUND_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    if process.returncode != 0:
        fail(f"renderdoccmd capture exited {process.returncode}:\n{output}")
    return sorted(captures)[0]


def converted_xml(capture, directory):
    """The capture's chunks as XML (zip.xml writes the XML, and the buffers'
    contents into a .zip beside it)."""
    converted = os.path.join(directory, "cap.zip.xml")
    subprocess.run(["renderdoccmd", "convert", "-f", capture, "-o", converted, "-c", "zip.xml"], check=True,
                   capture_output=True, timeout=BOUND_S)
    with open(converted, encoding="utf-8", errors="replace") as xml:
        return xml.read()


def check_capture(xml):
    problems = [f"no object named '{name}'" for name in NAMES if f">{name}<" not in xml]
    problems += [f"no command label '{label}'" for label in LABELS if f">{label}<" not in xml]
    renders = [tuple(int(n) for n in match) for match in RENDER_LABEL.findall(xml)]
    if not renders:
        problems.append("no label 'render k: wait 2k, signal 2k+1'")
    for k, wait, signal in renders:
        if (wait, signal) != (2 * k, 2 * k + 1):
            problems.append(f"label 'render {k}: wait {wait}, signal {signal}' breaks the schedule")
    return problems, renders


def check_copy_capture(xml):
    """The copy path's capture: its render is labelled as ordered by the host,
    never with the schedule's wait and signal values."""
    problems = []
    if not COPY_LABEL.search(xml):
        problems.append("--transfer copy: no label 'render k: no semaphores, the host orders the copy'")
    if RENDER_LABEL.search(xml):
        problems.append("--transfer copy: a render label names semaphore values that no submission uses")
    return problems


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    display = os.environ.get("VKSIM_TEST_DISPLAY")
    if not display:
        fail("run through scripts/test, which starts Xvfb and sets VKSIM_TEST_DISPLAY")
    env = dict(os.environ, DISPLAY=display)
    # RenderDoc does not support running under the validation layer, and
    # MangoHud's layer would be captured too: neither is loaded here.
    env["VKSIM_VALIDATION"] = "0"
    env.pop("MANGOHUD", None)
    with tempfile.TemporaryDirectory(prefix="vksim-renderdoc-") as directory:
        capture = capture_one_frame(os.path.abspath(sys.argv[1]), directory, env)
        problems, renders = check_capture(converted_xml(capture, directory))
    with tempfile.TemporaryDirectory(prefix="vksim-renderdoc-copy-") as directory:
        capture = capture_one_frame(os.path.abspath(sys.argv[1]), directory, env, ("--transfer", "copy"))
        problems += check_copy_capture(converted_xml(capture, directory))
    if problems:
        fail("the capture lacks what a reader looks for:\n  " + "\n  ".join(problems))
    print(f"test_renderdoc_capture: {len(NAMES)} names, {len(LABELS) + 1} labels, render {renders[0][0]} captured;"
          " --transfer copy's render labelled as ordered by the host")


if __name__ == "__main__":
    main()
