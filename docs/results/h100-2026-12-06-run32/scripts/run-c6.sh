#!/usr/bin/env bash
# Session 2026-12-06 #13, the final check (<= 90 s): the pack of 8a0327c (the app since differs by a comment only).
# --backend cuda runs under validation (timeline, binary, with the overlay), learn steps 6 and 10 with and without
# a stray argument.
set -u
out=${OUT:-/tmp/out}; cd "$(dirname "$0")/.."; X=".gpu/enter.sh"
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for a in "" "--sync binary" "--overlay"; do
  VKSIM_VALIDATION=1 timeout 60 bash $X vkcuda-sim --headless --backend cuda --grid 1024 --frames 300 $a > /tmp/c.txt 2>&1
  echo "cuda $a rc=$? $(tail -1 /tmp/c.txt | grep -o 'frames=[0-9]*\|mean_frame_ms=[0-9.]*\|sync=[a-z]*\|timeline_value=[0-9]*\|validation_warnings=[0-9]*\|validation_errors=[0-9]*' | tr '\n' ' ')"; done
VKSIM_VALIDATION=1 timeout 60 bash $X learn_06_draw /tmp/s6.png > /tmp/l.txt 2>&1; echo "learn 06 PNG rc=$? $(tail -1 /tmp/l.txt)"
timeout 20 bash $X learn_06_draw a.png b.png > /tmp/l.txt 2>&1; echo "learn 06 two args rc=$? $(tail -1 /tmp/l.txt)"
timeout 20 bash $X learn_10_frames_in_flight foo bar > /tmp/l.txt 2>&1; echo "learn 10 foo bar rc=$? $(tail -1 /tmp/l.txt)"
VKSIM_VALIDATION=1 timeout 60 bash $X learn_10_frames_in_flight --draw-repeats 2 > /tmp/l.txt 2>&1; echo "learn 10 --draw-repeats 2 rc=$? $(tail -1 /tmp/l.txt)"
} 2>&1 | tee $out/c6-live.txt
