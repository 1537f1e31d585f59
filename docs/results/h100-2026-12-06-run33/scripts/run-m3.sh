#!/usr/bin/env bash
# Session 2026-12-06 #14, call 9: what the levels below the step cost each route. E5 = cuda-nvx without its
# launches below the step's levels (the barriers and downsampleLevelsKernel), E6 = cuda without them
# (enqueueTextureMips); each the one change against the pack's app. 4096² and 8192², two rounds.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runm3; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
chmod +x $R/E5 $R/E6
med() { python3 -c "
import csv,sys,statistics as st
r=list(csv.DictReader(open(sys.argv[1])))[30:]
f=lambda c: st.median(float(x[c]) for x in r if x[c] not in ('','NA'))
v=sorted(float(x['MsBetweenPresents']) for x in r); p99=v[int(.99*(len(v)-1))]
print('frame %.3f sim %.3f render %.3f P99/mean %.3f' % (f('MsBetweenPresents'), f('MsSimGpu'), f('MsRenderGpu'), p99/st.mean(v)))" $1; }
run() { n=$1-$2-$3-tex$4-$5; p=vkcuda-sim; [ $1 != base ] && p=$R/$1
  bash $X $p --headless --backend $2 --grid $3 --texture $4 --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  printf '%-34s %s\n' $n "$(med $logs/$n.csv)"; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for g in 4096 8192; do
  run base cuda-nvx $g off $r; run base cuda-nvx $g on $r; run E5 cuda-nvx $g on $r
  run base cuda $g off $r; run base cuda $g on $r; run E6 cuda $g on $r
done; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runm3.tar.gz .; cp $logs/summary.txt $out/
