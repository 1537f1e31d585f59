#!/usr/bin/env bash
# Session 2026-12-06 #14, call 6: issue 41's table on this card. Every backend (and cuda --memory-owner cuda) at
# 4096² and 8192², texture on and off, timeline (opencl binary), level of detail on, 300 frames, two rounds:
# medians of frames 30 on (frame, MsSimGpu, MsRenderGpu) and P99/mean of the frame. Then kernel_bench's ratio rows.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runt1; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
med() { python3 -c "
import csv,sys,statistics as st
r=list(csv.DictReader(open(sys.argv[1])))[30:]
f=lambda c: st.median(float(x[c]) for x in r if x[c] not in ('','NA'))
v=sorted(float(x['MsBetweenPresents']) for x in r); p99=v[int(.99*(len(v)-1))]
print('frame %.3f sim %.3f render %.3f P99/mean %.3f' % (f('MsBetweenPresents'), f('MsSimGpu'), f('MsRenderGpu'), p99/st.mean(v)))" $1; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for g in 4096 8192; do
for c in "cuda" "cuda --memory-owner cuda" "cuda-nvx" "vulkan" "opencl --sync binary"; do for t in on off; do
  n=$(echo "$c-$g-tex$t-$r" | tr ' ' '_'); bash $X vkcuda-sim --headless --backend $c --grid $g --texture $t --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  printf '%-48s %s\n' $n "$(med $logs/$n.csv)"; done; done; done; done
echo "== kernel_bench ($(el) s)"
timeout 120 bash $X kernel_bench --benchmark_filter='deviceCopy/(4096|8192)|rippleStep/(4096|8192)|rippleTexturedStep/(4096|8192)' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$? ($(el) s)"; grep -E "^deviceCopy|^ripple[A-Za-z]*/|^ *(4096|8192) |^\(%" $logs/kbench.txt
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runt1.tar.gz .; cp $logs/summary.txt $out/
