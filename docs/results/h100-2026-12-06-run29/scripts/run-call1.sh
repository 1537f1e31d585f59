#!/usr/bin/env bash
# Run 29, call 1 (<= 470 s). .gpu = main 2da4d82 (trace tracks 5 and 6; the bench's render-end P99 column),
# packed --validation. .r/X2 = f5a9fea + X.patch + VKSIM_X_DYN_SMEM / VKSIM_X_NVX_SMEM (.r/X2.patch).
# (A) bench --overlay both, every GPU backend (issue 42 part 3); (B) traces with the overlay: opencl poll beside
# enqueue (one change: how the host waits), cuda-nvx and cuda; (C) the textured step's residency (.r/run-e.sh);
# (D) gpu_tests, all, Xvfb, validation; (E) the bench again if time is left.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runn; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
bench() { for b in cuda cuda-nvx vulkan opencl; do s=timeline; [ $b = opencl ] && s=binary
  bash $X vkcuda-sim --backend $b bench --overlay both --transfer zero-copy --grids 512,2048 --sync $s --wait-strategy poll --frames 300 --json $logs/bench-$b-$1.json > $logs/bench-$b-$1.txt 2>&1
  echo "$b rc=$? ($(el) s)"; done; python3 $R/bench_overlay.py $logs/bench-*-$1.json; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (A) bench --overlay both, round 1"; bench 1
echo "== (B) traces with the overlay, 512², 1200 frames ($(el) s)"
for r in 1 2 3; do for w in poll enqueue; do
  bash $X vkcuda-sim --headless --backend opencl --wait-strategy $w --grid 512 --frames 1200 --overlay --capture $logs/opencl-$w-$r.csv --trace $logs/opencl-$w-$r.json > /dev/null 2>&1; echo "opencl $w r$r rc=$? ($(el) s)"
done; done
for r in 1 2; do for b in cuda-nvx cuda; do
  bash $X vkcuda-sim --headless --backend $b --grid 512 --frames 1200 --overlay --capture $logs/$b-$r.csv --trace $logs/$b-$r.json > /dev/null 2>&1; echo "$b r$r rc=$? ($(el) s)"
done; done
python3 $R/trace_stats.py $(ls $logs/opencl-*-?.json $logs/cuda-nvx-?.json $logs/cuda-?.json | sed 's/\.json$//') 2>&1
if [ $(( ${LIMIT:-540} - $(el) )) -ge 200 ]; then
echo "== (D) gpu_tests ($(el) s)"
[ -d .xvfb ] || tar -xJf $R/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-540} - $(el) - 8 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|SKIPPED \]" $logs/gpu_tests.txt | head -8; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
else echo "== (D) gpu_tests skipped: $(( ${LIMIT:-540} - $(el) )) s left"; fi
if [ $(el) -lt $(( ${LIMIT:-540} - 80 )) ]; then echo "== (E) bench, round 2 ($(el) s)"; bench 2; fi
if [ $(el) -lt $(( ${LIMIT:-540} - 110 )) ]; then echo "== (C) residency ($(el) s)"; OUT=$logs bash $R/run-e.sh 2>&1 | tail -16; fi
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs --exclude='c.csv' -czf $out/runn.tar.gz .
