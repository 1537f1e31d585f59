#!/usr/bin/env bash
# Run 30, call 1 (<= 560 s), H200 wanted. .gpu = main 2da4d82 (app code as main's HEAD), packed --validation.
# (A) bench --overlay both, every GPU backend, 512² and 2048² (issue 42 part 3), round 1
# (B) the issue's own capture: --headless --grid 512 --frames 1200 --capture, with and without --overlay
# (C) gpu_tests, all, Xvfb, validation, learn steps  (D) bench rounds 2 and 3
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runh; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
bench() { for b in cuda cuda-nvx vulkan opencl; do s=timeline; [ $b = opencl ] && s=binary
  bash $X vkcuda-sim --backend $b bench --overlay both --transfer zero-copy --grids 512,2048 --sync $s --wait-strategy poll --frames 300 --json $logs/bench-$b-$1.json > $logs/bench-$b-$1.txt 2>&1
  echo "$b rc=$? ($(el) s)"; done; python3 $R/bench_overlay.py $logs/bench-*-$1.json; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (A) bench --overlay both, round 1"; bench 1
echo "== (B) the issue's capture ($(el) s)"
for r in 1 2; do for b in cuda-nvx cuda vulkan opencl; do for o in on off; do f=""; [ $o = on ] && f=--overlay
  bash $X vkcuda-sim --headless --backend $b --grid 512 --frames 1200 $f --capture $logs/cap-$b-$o-$r.csv > /dev/null 2>&1 || echo "$b $o r$r rc=$?"
done; done; done
python3 $R/cap_stats.py $logs/cap-*.csv
if [ $(( ${LIMIT:-560} - $(el) )) -ge 200 ]; then
echo "== (C) gpu_tests ($(el) s)"
[ -d .xvfb ] || tar -xJf $R/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-560} - $(el) - 60 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|SKIPPED \]" $logs/gpu_tests.txt | head -8; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
grep -E "^\[ RUN .*Foreign|^\[ +(OK|FAILED) .*Foreign" $logs/gpu_tests.txt | head -12
else echo "== (C) gpu_tests skipped: $(( ${LIMIT:-560} - $(el) )) s left"; fi
for r in 2 3; do if [ $(el) -lt $(( ${LIMIT:-560} - 25 )) ]; then echo "== (D) bench, round $r ($(el) s)"; bench $r; fi; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs -czf $out/runh.tar.gz .
