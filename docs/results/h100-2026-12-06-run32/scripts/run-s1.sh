#!/usr/bin/env bash
# Session 2026-12-06 #13, call 1 (<= 560 s). The overlay's panel at start, before and after, in one call:
# old = 2da4d82's vkcuda-sim (.r/old.xz, Simulation open at start), new = 04ee46c (.gpu, Simulation closed at start).
# The apps differ in that default and in ee03054's --capture-format mangohud check, which these runs do not reach.
# (A) bench --overlay both, every GPU backend, 512² and 2048², old and new side by side per backend, three rounds
# (B) kernel_bench's ratio table (issue 41 part 5), new build   (C) gpu_tests with Xvfb, validation, learn steps, if time
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runs1; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
[ -f $R/old ] || xz -dk $R/old.xz; chmod +x $R/old
bench() { for b in cuda cuda-nvx vulkan opencl; do s=timeline; [ $b = opencl ] && s=binary
  for v in old new; do p=vkcuda-sim; [ $v = old ] && p=$R/old
  bash $X $p --backend $b bench --overlay both --transfer zero-copy --grids 512,2048 --sync $s --wait-strategy poll --frames 300 --json $logs/bench-$b-$v-$1.json > $logs/bench-$b-$v-$1.txt 2>&1
  echo "$b $v rc=$? ($(el) s)"; done; done; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2 3; do echo "== (A) bench --overlay both, round $r ($(el) s)"; bench $r; done
python3 $R/ab_overlay.py $logs
echo "== (B) kernel_bench ($(el) s)"
timeout 150 bash $X kernel_bench --benchmark_filter='deviceCopy/(4096|8192)|rippleStep/(4096|8192)|rippleTexturedStep/(4096|8192)' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$? ($(el) s)"; grep -E "^deviceCopy|^ripple|^ *(4096|8192) |^\(%" $logs/kbench.txt
if [ $(( ${LIMIT:-560} - $(el) )) -ge 290 ]; then
echo "== (C) gpu_tests ($(el) s)"
[ -d .xvfb ] || tar -xJf $R/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-560} - $(el) - 20 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|SKIPPED \]" $logs/gpu_tests.txt | head -8; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
else echo "== (C) gpu_tests skipped: $(( ${LIMIT:-560} - $(el) )) s left"; fi
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs -czf $out/runs1.tar.gz .
