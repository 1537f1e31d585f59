#!/usr/bin/env bash
# Run 28, call D. .gpu = main + the trace's overlay-build track (packed --validation --lavapipe).
set -u
out=${OUT:-/tmp/out}; logs=/tmp/rund; mkdir -p $logs /tmp/runw1; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) traces with the overlay"
for r in 1 2 3 4; do
  bash $X vkcuda-sim --headless --backend cuda-nvx --grid 512 --frames 1200 --overlay --capture $logs/nvx-$r.csv --trace $logs/nvx-$r.json > /dev/null 2>&1; echo "nvx r$r rc=$? ($(el) s)"
  bash $X vkcuda-sim --headless --backend opencl --grid 512 --frames 1200 --overlay --capture $logs/ocl-$r.csv --trace $logs/ocl-$r.json > /dev/null 2>&1; echo "ocl r$r rc=$? ($(el) s)"
done
for r in 1 2; do
  bash $X vkcuda-sim --headless --backend cuda-nvx --grid 512 --frames 1200 --capture $logs/nvx-none-$r.csv --trace $logs/nvx-none-$r.json > /dev/null 2>&1; echo "nvx no overlay r$r rc=$? ($(el) s)"
done
echo "== (2) the panel's pixels: default and sections collapsed, cuda-nvx 512², 600 frames"
for r in 1 2; do
  bash $X vkcuda-sim --headless --backend cuda-nvx --grid 512 --frames 600 --overlay --capture $logs/px-open-$r.csv > /dev/null 2>&1; echo "open r$r rc=$?"
  bash $X vkcuda-sim --headless --backend cuda-nvx --grid 512 --frames 600 --overlay --input-script $R/collapse.txt --capture $logs/px-collapsed-$r.csv > $logs/collapse.txt 2>&1; echo "collapsed r$r rc=$?"; tail -1 $logs/collapse.txt | cut -c1-200
done
cp /tmp/runw1/collapsed.png $logs/ 2>/dev/null
echo "== (3) gpu_tests, all, Xvfb, validation on ($(el) s)"
[ -d .xvfb ] || tar -xJf $R/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-500} - $(el) - 8 )) \
  bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|SKIPPED \]" $logs/gpu_tests.txt | head -14; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs -czf $out/rund.tar.gz .
