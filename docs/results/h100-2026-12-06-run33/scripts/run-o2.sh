#!/usr/bin/env bash
# Session 2026-12-06 #14, call 3: issue 42's capture on opencl, with and without the overlay alternating (the one
# change), eight rounds; cuda beside it, four rounds. Then the capture stats of every run.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runo2; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2 3 4 5 6 7 8; do for b in opencl cuda; do [ $b = cuda ] && [ $r -gt 4 ] && continue
  for o in on off; do f=""; [ $o = on ] && f=--overlay
  bash $X vkcuda-sim --headless --backend $b --grid 512 --frames 1200 $f --capture $logs/cap-$b-$o-$r.csv > $logs/log-$b-$o-$r.txt 2>&1 || echo "$b $o $r rc=$?"
done; done; done
python3 $R/cap_stats.py $logs/cap-*.csv
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runo2.tar.gz .; cp $logs/summary.txt $out/
