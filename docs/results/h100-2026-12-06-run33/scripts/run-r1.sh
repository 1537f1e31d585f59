#!/usr/bin/env bash
# Session 2026-12-06 #14, call 5: what the render's GPU time is made of. cuda backend, headless, 300 frames,
# MsRenderGpu median (frames 30 on): grid 64 .. 8192, image 1280x720 (default) and 320x180, texture on/off, lod on/off.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runr1; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
med() { python3 -c "
import csv,sys,statistics as st
r=list(csv.DictReader(open(sys.argv[1])))[30:]
f=lambda c: st.median(float(x[c]) for x in r if x[c] not in ('','NA'))
print('frame %.3f sim %.3f render %.3f' % (f('MsBetweenPresents'), f('MsSimGpu'), f('MsRenderGpu')))" $1; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do
for g in 64 512 2048 8192; do for s in 1280x720 320x180; do for t in on off; do
  n=cuda-$g-$s-tex$t-$r; bash $X vkcuda-sim --headless --backend cuda --grid $g --size $s --texture $t --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  printf '%-36s %s\n' $n "$(med $logs/$n.csv)"; done; done; done
for g in 512 2048; do n=cuda-$g-lodoff-$r; bash $X vkcuda-sim --headless --backend cuda --grid $g --lod off --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  printf '%-36s %s\n' $n "$(med $logs/$n.csv)"; done
n=cpu-64-$r; bash $X vkcuda-sim --headless --backend cpu --grid 64 --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1; printf '%-36s %s\n' $n "$(med $logs/$n.csv)"
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs -czf $out/runr1.tar.gz .; cp $logs/summary.txt $out/
