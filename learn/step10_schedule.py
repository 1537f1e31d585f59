#!/usr/bin/python3
"""Draws step 10's schedule (docs/learn/10-frames-in-flight.md) as a PNG.

Usage: /usr/bin/python3 learn/step10_schedule.py docs/images/learn-step10-schedule.png

A schematic, not a measurement: the boxes' lengths are chosen to show the
order (which submission waits for which value, which buffer each one
touches), not timed on any GPU. Top: the step as it is (two buffers). Bottom:
--break reuse (one buffer), where CUDA's round k writes the buffer that
frame k's draw is still reading. Needs python3-matplotlib (Debian's, for
/usr/bin/python3).
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
FRAMES = 4
BUFFER_COLOURS = ["#4c8fd6", "#f0a030"]
LANES = {"Vulkan queue": 1.0, "CUDA stream": 0.0}


def box(axes, lane, start, length, buffer, text, hatch=None):
    axes.add_patch(Rectangle((start, LANES[lane] - 0.3), length, 0.6, facecolor=BUFFER_COLOURS[buffer] if buffer is not None else "#d0d0d0",
                             edgecolor="black", linewidth=0.8, hatch=hatch))
    axes.text(start + length / 2, LANES[lane], text, ha="center", va="center", fontsize=6.5,
              bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none", "pad": 1} if hatch else None)


def arrow(axes, start, end, text):
    axes.add_patch(FancyArrowPatch(start, end, arrowstyle="->", mutation_scale=9, color="#303030", linewidth=0.8))
    axes.text((start[0] + end[0]) / 2 + 0.1, (start[1] + end[1]) / 2, text, fontsize=6.5, color="#303030")


def schedule(buffers):
    """Start times of each frame's hand-over, draw and CUDA round."""
    frames, draw_end, cuda_end = [], 0.0, 0.0
    for k in range(FRAMES):
        start = max(draw_end, cuda_end)  # waits for 2k (CUDA round k-1); after draw k-1 in the queue
        cuda_start = start + HAND_OVER + SWITCH
        frames.append({"k": k, "hand_over": start, "draw": start + HAND_OVER, "cuda": cuda_start})
        draw_end = start + HAND_OVER + (DRAW if k > 0 else 0.0)
        cuda_end = cuda_start + CUDA
    return frames


def panel(axes, buffers, title):
    for frame in schedule(buffers):
        k = frame["k"]
        drawn = (k - 1) % buffers if k > 0 else None
        written = k % buffers
        box(axes, "Vulkan queue", frame["hand_over"], HAND_OVER, drawn, f"hand-over {k}\nwait≥{2 * k}\nsignal {2 * k + 1}")
        if k > 0:
            box(axes, "Vulkan queue", frame["draw"], DRAW, drawn, f"draw {k}: reads buffer {'AB'[drawn]}\n(round {k - 1}), release")
        race = buffers == 1 and k > 0
        box(axes, "CUDA stream", frame["cuda"], CUDA, written, f"round {k}: writes {'AB'[written]}\nwait≥{2 * k + 1}, signal {2 * k + 2}",
            hatch="////" if race else None)
        arrow(axes, (frame["hand_over"] + HAND_OVER, LANES["Vulkan queue"] - 0.3), (frame["cuda"], LANES["CUDA stream"] + 0.3), f"{2 * k + 1}")
        if k + 1 < FRAMES:  # CUDA's 2k+2 is what hand-over k+1 waits for
            next_start = schedule(buffers)[k + 1]["hand_over"]
            arrow(axes, (frame["cuda"] + CUDA, LANES["CUDA stream"] + 0.3), (next_start, LANES["Vulkan queue"] - 0.3), f"{2 * k + 2}")
        if race:
            axes.text(frame["cuda"] + CUDA / 2, LANES["CUDA stream"] - 0.45, "rewrites what draw reads", ha="center", fontsize=6.5, color="#b00000")
    axes.set_yticks(list(LANES.values()), list(LANES.keys()))
    axes.set_ylim(-0.7, 1.5)
    axes.set_xlim(-0.5, schedule(buffers)[-1]["draw"] + DRAW + 0.5)
    axes.set_xticks([])
    axes.set_xlabel("time (schematic: the order, not measured durations)", fontsize=7)
    axes.set_title(title, fontsize=9, loc="left")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: learn/step10_schedule.py OUT.png")
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(11, 5.8))
    panel(top, 2, "step 10, two buffers (A, B): hand-over k signals 2k+1 only after draw k-1 (queue order),\n"
                  "so CUDA's round k writes the buffer draw k-1 read, while draw k reads the other one")
    panel(bottom, 1, "--break reuse, one buffer: CUDA's round k still waits for 2k+1, but now writes\n"
                     "the buffer that draw k is reading (hatched): the pixel check sees round k's vertices")
    figure.tight_layout()
    figure.savefig(sys.argv[1], dpi=110)


if __name__ == "__main__":
    main()
