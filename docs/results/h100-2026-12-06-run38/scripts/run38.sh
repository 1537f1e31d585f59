#!/usr/bin/env bash
# Run 38: the vulkan backend's per-slot step inputs (ad3fc2c) on an NVIDIA GPU, the build before it (.gpu, main
# of 64596ac) beside HEAD's (.gpu2): sinewave screenshots and dumps, vulkan (3 rounds each) and the CPU backend;
# ripple dumps; QueueStepInputs on the NVIDIA device; gpu_tests' render-queue tests with validation. On an H200
# it then runs .r/run-h200c.sh (issue 41's frames, <= 330 s).
set -u
out=${OUT:-/tmp/out}; cd "$(dirname "$0")/.."; r=/tmp/r38; mkdir -p $r
OLD=.gpu/enter.sh; NEW=.gpu2/enter.sh; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); echo "$name" > $out/summary38.txt
one() { n=$1; X=$2; shift 2
  bash $X vkcuda-sim --headless "$@" --screenshot $r/$n.png --dump-vertices $r/$n.bin > $r/$n.txt 2>&1
  echo "$n rc=$? $(grep -o 'validation_warnings=[0-9]* validation_errors=[0-9]*' $r/$n.txt)"; }
{
echo "== sinewave, 1000², 60 frames, texture on, timeline ($(el) s)"
for i in 1 2 3; do
  one old-vulkan-sw-$i $OLD --backend vulkan --sim sinewave --grid 1000 --frames 60
  one new-vulkan-sw-$i $NEW --backend vulkan --sim sinewave --grid 1000 --frames 60
done
one new-cpu-sw $NEW --backend cpu --sim sinewave --grid 1000 --frames 60
echo "== ripple, 1000², 60 frames ($(el) s)"
one old-vulkan-rp $OLD --backend vulkan --grid 1000 --frames 60
one new-vulkan-rp $NEW --backend vulkan --grid 1000 --frames 60
(cd $r && md5sum *.png *.bin)
echo "== QueueStepInputs on this device, validation on ($(el) s)"
VKSIM_VALIDATION=1 bash $NEW integration_tests --gtest_filter='QueueStepInputs.*' 2>&1 | grep -E "^\[  |Failure|Expected|actual" 
echo "== gpu_tests, the render-queue backends, validation on ($(el) s)"
VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 200 bash $NEW gpu_tests \
  --gtest_filter='QueueBackends/*:RenderQueueBackends/*:DropFootprint.*' > $r/gpu_tests.txt 2>&1; echo "gpu_tests rc=$?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[==========\]|tests? ran" $r/gpu_tests.txt | tail -6
echo "total $(el) s"
} 2>&1 | tee -a $out/summary38.txt
tar -C $r -czf $out/run38.tar.gz --exclude='*.bin' .
case "$name" in *H200*) bash .r/run-h200c.sh ;; *) echo "not an H200: run-h200c not run" >> $out/summary38.txt ;; esac
