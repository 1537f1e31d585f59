#!/usr/bin/env bash
# Session 2026-12-06 #14, call 8: cuda-nvx's texture through RGBA8_UNORM level views (E4: the view's format the one
# change; the kernels' stores are raw 32-bit either way) against the pack's app, 4096² and 8192², texture on and
# off, two rounds; and a screenshot of each at 1024² after 60 frames, compared byte for byte.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runm2; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
chmod +x $R/E4
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
  run base cuda-nvx $g off $r; run base cuda-nvx $g on $r; run E4 cuda-nvx $g on $r; run base cuda $g on $r
done; done
echo "== screenshots ($(el) s)"
for v in base E4; do p=vkcuda-sim; [ $v != base ] && p=$R/$v
  VKSIM_VALIDATION=1 bash $X $p --headless --backend cuda-nvx --grid 1024 --frames 60 --screenshot $logs/shot-$v.png > $logs/shot-$v.txt 2>&1; echo "$v rc=$? $(tail -1 $logs/shot-$v.txt | grep -o 'validation_[a-z]*=[0-9]*' | tr '\n' ' ')"; done
bash $X vkcuda-sim --headless --backend cpu --grid 1024 --frames 60 --screenshot $logs/shot-cpu.png > /dev/null 2>&1
cmp $logs/shot-base.png $logs/shot-E4.png && echo "base and E4 screenshots identical"; cmp $logs/shot-base.png $logs/shot-cpu.png && echo "base and cpu identical"
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runm2.tar.gz .; cp $logs/summary.txt $out/ $logs/shot-*.png $out/ 2>/dev/null
