#!/usr/bin/env bash
# Run 30, call 2 (<= 300 s). Issue 42's capture before and after, in one call: afa0d0d (.r/before, the issue's
# build, stripped, run in main's pack environment) against main 2da4d82 (.gpu). One change a pair: the build; each
# build with and without --overlay. --texture off on every row, so both builds compute the same work (at afa0d0d
# only cuda wrote the texture): the ripple alone, level of detail on, 1200 frames, headless.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runb4; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
[ -f $R/before ] || xz -dk $R/before.xz; chmod +x $R/before
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for b in cuda cuda-nvx vulkan opencl; do for g in 512 2048; do for v in before after; do for o in on off; do
  f=""; [ $o = on ] && f=--overlay; p=vkcuda-sim; [ $v = before ] && p=$R/before
  timeout 60 bash $X $p --headless --backend $b --grid $g --frames 1200 --texture off $f --capture $logs/c-$b-$g-$v-$o-$r.csv > $logs/one.txt 2>&1 || { echo "$b $g $v $o r$r rc=$?"; tail -2 $logs/one.txt; }
done; done; done; done; echo "round $r done ($(el) s)"; done
python3 $R/cap_stats.py $logs/c-*.csv
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
rm -f $logs/one.txt; tar -C $logs -czf $out/runb4.tar.gz .
