#!/usr/bin/env bash
# Session 2026-12-06 #14, call 7: why the render-queue backends' texture costs about twice cuda's. One change each,
# against the pack's app (base): E2 = the render-queue backends' image created and allocated as exported (the
# external-memory create info, export and dedicated allocation), nothing else; E3 = cuda's exported image created
# MUTABLE_FORMAT as the render-queue backends' is, nothing else. 4096² and 8192², texture on (base also off),
# timeline, level of detail on, 300 frames, two rounds; medians of frames 30 on.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runm1; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
chmod +x $R/E2 $R/E3
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
  for b in cuda-nvx vulkan; do run base $b $g off $r; run base $b $g on $r; run E2 $b $g on $r; done
  run base cuda $g off $r; run base cuda $g on $r; run E3 cuda $g on $r
done; done
echo "== validation, one run each ($(el) s)"
for c in "E2 vulkan" "E2 cuda-nvx" "E3 cuda"; do set -- $c
  VKSIM_VALIDATION=1 bash $X $R/$1 --headless --backend $2 --grid 1024 --frames 60 > $logs/val-$1-$2.txt 2>&1; echo "$c rc=$? $(tail -1 $logs/val-$1-$2.txt | grep -o 'validation_[a-z]*=[0-9]*' | tr '\n' ' ')"; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runm1.tar.gz .; cp $logs/summary.txt $out/
