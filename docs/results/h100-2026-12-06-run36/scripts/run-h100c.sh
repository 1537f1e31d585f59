#!/usr/bin/env bash
# Run 36 on an H100 (one round, no E11; <= 200 s): main of 64596ac as packed in .gpu, issue 41 part 4's
# frames: --headless --backend B --grid G --texture on|off --frames 300 --capture, medians of frames 30-299 and
# P99/mean, cuda, cuda-nvx and vulkan two rounds, --memory-owner cuda and opencl (binary) one; E11 (the textured step
# capped for 5 blocks an SM) against main, two rounds; kernel_bench's ratio rows.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runh36; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); echo "$name" | tee $out/summary.txt
case "$name" in *H200*|*H100*) ;; *) echo "not an H200: nothing run" | tee -a $out/summary.txt; exit 0 ;; esac
chmod +x $R/E11
st() { python3 -c "
import csv,sys,statistics as st
r=list(csv.DictReader(open(sys.argv[1])))[30:]
v=lambda c: [float(x[c]) for x in r if x[c] not in ('','NA')]
f=v('MsBetweenPresents'); m=st.mean(f); p99=sorted(f)[int(0.99*(len(f)-1))]
s=v('MsSimGpu'); print('frame p50 %.3f mean %.3f p99/mean %.3f sim %s render %.3f' % (st.median(f), m, p99/m, '%.3f' % st.median(s) if s else 'NA', st.median(v('MsRenderGpu'))))" $1; }
cap() { n=$1; bin=$2; shift 2
  bash $X $bin --headless "$@" --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  printf '%-34s %s\n' $n "$(st $logs/$n.csv)"; }
{
echo "== part 4's frames ($(el) s)"
for r in 1; do for g in 4096 8192; do for b in cuda cuda-nvx vulkan; do for t in on off; do
  cap $b-$g-tex$t-$r vkcuda-sim --backend $b --grid $g --texture $t; done; done
  [ $r = 1 ] && for t in on off; do cap owner-cuda-$g-tex$t vkcuda-sim --backend cuda --memory-owner cuda --grid $g --texture $t
    cap opencl-$g-tex$t vkcuda-sim --backend opencl --sync binary --grid $g --texture $t; done
done; done
echo "== E11 against main, texture on ($(el) s)"
for r in; do for b in cuda cuda-nvx; do for g in 4096 8192; do
  cap main-$b-$g-e$r vkcuda-sim --backend $b --grid $g --texture on; cap E11-$b-$g-e$r $R/E11 --backend $b --grid $g --texture on; done; done; done
echo "== kernel_bench ($(el) s)"
timeout 120 bash $X kernel_bench --benchmark_filter='deviceCopy/(4096|8192)|rippleStep/(4096|8192)|rippleTexturedStep/(4096|8192)|rippleTexelsStepAlone' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$? ($(el) s)"; grep -E "^deviceCopy|^ripple[A-Za-z]*/|^ *(4096|8192) |^\(%" $logs/kbench.txt
echo "total $(el) s"
} 2>&1 | tee -a $out/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; cp $logs/kbench.txt $out/; tar -C $logs -czf $out/runh36.tar.gz .
