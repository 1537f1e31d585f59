#!/usr/bin/python3
"""Draws step 10's schedule (docs/learn/10-frames-in-flight.md) as a PNG.

Usage: /usr/bin/python3 learn/step10_schedule.py docs/images/learn-step10-schedule.png

A schematic, not a measurement: the boxes' lengths are chosen to show the
order (which submission waits for which value, which buffer each one
touches), not timed on any GPU. Top: the step as it is (two buffers). Bottom:
--break reuse (one buffer) as learn/10_frames_in_flight.cu runs it: the host
lets CUDA's round k finish (letCudaRunFirst, a bounded wait for 2k+2) before
it submits draw k, so round k has rewritten the one buffer before draw k
reads it. Needs python3-matplotlib (Debian's, for /usr/bin/python3).
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

HAND_OVER = 1.9  # the hand-over: a wait, an acquire, a signal
DRAW = 6.0  # the long draw (kDrawRepeats instances), copy-out and release
SWITCH = 1.0  # the GPU's switch to CUDA's context after a signal
CUDA = 2.5  # CUDA's round: wait, kernel, signal
SUBMIT = 0.6  # the host's submission of draw k once its wait returned
FRAMES = 4
BUFFER_COLOURS = ["#4c8fd6", "#f0a030"]
LANES = {"Vulkan queue": 1.0, "CUDA stream": 0.0, "host": -1.0}


def box(axes, lane, start, length, buffer, text, hatch=None):
    axes.add_patch(Rectangle((start, LANES[lane] - 0.3), length, 0.6, facecolor=BUFFER_COLOURS[buffer] if buffer is not None else "#d0d0d0",
                             edgecolor="black", linewidth=0.8, hatch=hatch))
    axes.text(start + length / 2, LANES[lane], text, ha="center", va="center", fontsize=6.5,
              bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none", "pad": 1} if hatch else None)


def arrow(axes, start, end, text):
    axes.add_patch(FancyArrowPatch(start, end, arrowstyle="->", mutation_scale=9, color="#303030", linewidth=0.8))
    axes.text((start[0] + end[0]) / 2 + 0.1, (start[1] + end[1]) / 2, text, fontsize=6.5, color="#303030")


def schedule(buffers):
    """Start times of each frame's hand-over, draw and CUDA round (and, with
    one buffer, the host's wait for 2k+2 before it submits draw k)."""
    frames, draw_end, cuda_end = [], 0.0, 0.0
    for k in range(FRAMES):
        start = max(draw_end, cuda_end)  # waits for 2k (CUDA round k-1); after draw k-1 in the queue
        cuda_start = start + HAND_OVER + SWITCH
        draw = start + HAND_OVER
        frame = {"k": k, "hand_over": start, "draw": draw, "cuda": cuda_start}
        if buffers == 1 and k > 0:  # letCudaRunFirst: draw k is submitted once round k signalled 2k+2
            frame["host_wait"] = draw
            draw = cuda_start + CUDA + SUBMIT
            frame["draw"] = draw
        frames.append(frame)
        draw_end = draw + (DRAW if k > 0 else 0.0)
        cuda_end = cuda_start + CUDA
    return frames


def panel(axes, buffers, title):
    lanes = LANES if buffers == 1 else {lane: y for lane, y in LANES.items() if lane != "host"}
    for frame in schedule(buffers):
        k = frame["k"]
        drawn = (k - 1) % buffers if k > 0 else None
        written = k % buffers
        race = buffers == 1 and k > 0
        box(axes, "Vulkan queue", frame["hand_over"], HAND_OVER, drawn, f"hand-over {k}\n{f'wait≥{2 * k}' if k > 0 else 'no wait'}\nsignal {2 * k + 1}")
        if k > 0 and not race:
            box(axes, "Vulkan queue", frame["draw"], DRAW, drawn, f"draw {k}: reads buffer {'AB'[drawn]}\n(round {k - 1}), release")
        if race:
            box(axes, "Vulkan queue", frame["draw"], DRAW, drawn,
                f"draw {k}: reads A, finds\nround {k}, not {k - 1}", hatch="\\\\")
            waited = frame["draw"] - SUBMIT - frame["host_wait"]
            box(axes, "host", frame["host_wait"], waited, None, f"letCudaRunFirst:\nwait≥{2 * k + 2},\nthen submit draw {k}")
            arrow(axes, (frame["cuda"] + CUDA, LANES["CUDA stream"] - 0.3), (frame["host_wait"] + waited, LANES["host"] + 0.3), f"{2 * k + 2}")
            arrow(axes, (frame["draw"] - SUBMIT, LANES["host"] + 0.3), (frame["draw"], LANES["Vulkan queue"] - 0.3), "")
        box(axes, "CUDA stream", frame["cuda"], CUDA, written, f"round {k}: writes {'AB'[written]}\nwait≥{2 * k + 1}, signal {2 * k + 2}",
            hatch="////" if race else None)
        arrow(axes, (frame["hand_over"] + HAND_OVER, LANES["Vulkan queue"] - 0.3), (frame["cuda"], LANES["CUDA stream"] + 0.3), f"{2 * k + 1}")
        if k + 1 < FRAMES:  # CUDA's 2k+2 is what hand-over k+1 waits for
            next_start = schedule(buffers)[k + 1]["hand_over"]
            arrow(axes, (frame["cuda"] + CUDA, LANES["CUDA stream"] + 0.3), (next_start, LANES["Vulkan queue"] - 0.3), f"{2 * k + 2}")
        if race:
            axes.text(frame["cuda"] + CUDA / 2, LANES["CUDA stream"] + 0.4, f"rewrites what draw {k} will read", ha="center",
                      fontsize=6.5, color="#b00000")
    axes.set_yticks(list(lanes.values()), list(lanes.keys()))
    axes.set_ylim(min(lanes.values()) - 0.7, 1.5)
    axes.set_xlim(-0.5, schedule(buffers)[-1]["draw"] + DRAW + 0.5)
    axes.set_xticks([])
    axes.set_xlabel("time (schematic: the order, not measured durations)", fontsize=7)
    axes.set_title(title, fontsize=9, loc="left")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: learn/step10_schedule.py OUT.png")
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(11, 7.0), gridspec_kw={"height_ratios": [2, 3]})
    panel(top, 2, "step 10, two buffers (A, B): hand-over k signals 2k+1 only after draw k-1 (queue order),\n"
                  "so CUDA's round k writes the buffer draw k-1 read, while draw k reads the other one")
    panel(bottom, 1, "--break reuse, one buffer, as the step runs it: CUDA's round k still waits for 2k+1; the host lets it finish\n"
                     "(letCudaRunFirst, an order the schedule allows) before it submits draw k, which then reads round k's vertices\n"
                     "where round k-1's were due (hatched): the pixel check fails")
    figure.tight_layout()
    figure.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
