#!/usr/bin/env bash
# Session 2026-12-06 #14, call 4 (<= 560 s), any card: issue 42 on one machine. (A) bench --overlay both, every GPU
# backend, 512² and 2048², old (2da4d82, Simulation open) and new (8a0327c's pack) side by side, three rounds;
# (B) the issue's capture, new, every backend with and without --overlay, two rounds; (C) a window on the NVIDIA
# device under Xvfb: the app (cuda, auto) and learn step 11; (D) gpu_tests under Xvfb with validation.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runf1; mkdir -p $logs; cd "$(dirname "$0")/.."
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
echo "== (B) the issue's capture, new build ($(el) s)"
for r in 1 2; do for b in cuda-nvx cuda vulkan opencl; do for o in on off; do f=""; [ $o = on ] && f=--overlay
  bash $X vkcuda-sim --headless --backend $b --grid 512 --frames 1200 $f --capture $logs/cap-$b-$o-$r.csv > /dev/null 2>&1 || echo "$b $o r$r rc=$?"
done; done; done
python3 $R/cap_stats.py $logs/cap-*.csv
echo "== (C) a window under Xvfb ($(el) s)"
[ -d .xvfb ] || tar -xJf $R/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
$R/xbin/Xvfb :77 -screen 0 1280x720x24 > $logs/xvfb.txt 2>&1 & xp=$!; sleep 2
for c in "vkcuda-sim --backend cuda --frames 300" "vkcuda-sim --frames 120" "learn_11_whole_sample"; do
  DISPLAY=:77 timeout 60 bash $X $c > $logs/win.txt 2>&1; echo "DISPLAY=:77 $c: exit $?"; sed 's/^/    /' $logs/win.txt | tail -4; done
kill $xp; ls core* 2>/dev/null | head -3
echo "== (D) gpu_tests ($(el) s)"
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-560} - $(el) - 15 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|SKIPPED \]" $logs/gpu_tests.txt | head -8; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
grep -E "^\[ +(OK|FAILED) .*(ForeignDisplay|ListDevices|Present)" $logs/gpu_tests.txt | head -12
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/f1-live.txt
for f in $logs/cap-*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runf1.tar.gz .
