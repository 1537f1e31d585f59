#!/usr/bin/env bash
# Session 2026-12-06 #13: issue 42's own capture with the panel before (old, 2da4d82) and after (new, 04ee46c), on any
# card (<= 150 s): --headless --backend B --grid 512 --frames 1200 [--overlay] --capture (texture on, as the issue ran
# it), every GPU backend, old and new alternating, two rounds.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runs3; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
[ -f $R/old ] || xz -dk $R/old.xz; chmod +x $R/old
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for b in cuda-nvx cuda vulkan opencl; do for v in old new; do for o in on off; do
  f=""; [ $o = on ] && f=--overlay; p=vkcuda-sim; [ $v = old ] && p=$R/old
  timeout 60 bash $X $p --headless --backend $b --grid 512 --frames 1200 $f --capture $logs/cap-$b-$v-$o-$r.csv > /dev/null 2>&1 || echo "$b $v $o r$r rc=$?"
done; done; done; echo "round $r ($(el) s)"; done
python3 $R/cap_stats.py $logs/cap-*.csv
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/s3-live.txt
for f in $logs/cap-*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runs3.tar.gz .
