#!/usr/bin/env bash
# Session 2026-12-06 #13, call 2 (<= 400 s), only on an H200 (exits at once on any other card): call 1's before and
# after (old = 2da4d82, Simulation open at start; new = 04ee46c, closed) on the card issue 42 names.
# (A) bench --overlay both, every GPU backend, 512² and 2048², old and new side by side per backend, three rounds
# (B) the issue's own capture on the new build: --headless --grid 512 --frames 1200 --capture, with and without --overlay
# (C) kernel_bench's ratio table (issue 41 part 5)
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runs2; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "$name" | tee $out/summary-live.txt
case "$name" in *H200*) ;; *) echo "not an H200: nothing run"; exit 0 ;; esac
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
if [ $(( ${LIMIT:-400} - $(el) )) -ge 110 ]; then echo "== (C) kernel_bench ($(el) s)"
timeout 100 bash $X kernel_bench --benchmark_filter='deviceCopy/(4096|8192)|rippleStep/(4096|8192)|rippleTexturedStep/(4096|8192)' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$? ($(el) s)"; grep -E "^deviceCopy|^ripple[A-Za-z]*/|^ *(4096|8192) |^\(%" $logs/kbench.txt
else echo "== (C) kernel_bench skipped"; fi
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
for f in $logs/cap-*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runs2.tar.gz .
