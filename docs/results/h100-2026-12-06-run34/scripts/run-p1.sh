#!/usr/bin/env bash
# Prepared 2026-12-06 #14 for the next session (<= 400 s, any card). E9: exact resident-warp counts (cuda vs
# cuda-nvx, texture on/off). E10 (.r/gpu-E10, main 0d65fc1 + .r/E10-alias.patch: levels 1-3 share the staging area,
# 11,264 B of shared memory) against .r/base (8a0327c's app = main's code): cuda and cuda-nvx at 4096² and 8192²,
# texture on, alternating, two rounds; then E10's gpu_tests '*Texture*' under validation; memcheck and racecheck.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/rune10; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; X10=.r/gpu-E10/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
chmod +x $R/base $R/E9
med() { python3 -c "
import csv,sys,statistics as st
r=list(csv.DictReader(open(sys.argv[1])))[30:]
f=lambda c: st.median(float(x[c]) for x in r if x[c] not in ('','NA'))
print('frame %.3f sim %.3f render %.3f' % (f('MsBetweenPresents'), f('MsSimGpu'), f('MsRenderGpu')))" $1; }
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== E9 counts ($(el) s)"
for c in "4096 on" "4096 off" "8192 on"; do set -- $c; for b in cuda cuda-nvx; do n=E9-$b-$1-tex$2
  bash $X $R/E9 --headless --backend $b --grid $1 --texture $2 --frames 60 --dump-vertices $logs/$n.bin > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  python3 -c "import struct,sys; w=struct.unpack_from('<f', open(sys.argv[1],'rb').read(32), 28)[0]; print('%-22s most resident warps on one SM: %g (blocks: %g)' % (sys.argv[2], w, w/8))" $logs/$n.bin $n; rm -f $logs/$n.bin; done; done
echo "== E10 A/B ($(el) s)"
for r in 1 2; do for g in 4096 8192; do for b in cuda cuda-nvx; do
  n=base-$b-$g-$r; bash $X $R/base --headless --backend $b --grid $g --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"; printf '%-24s %s\n' $n "$(med $logs/$n.csv)"
  n=E10-$b-$g-$r; bash $X10 vkcuda-sim --headless --backend $b --grid $g --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"; printf '%-24s %s\n' $n "$(med $logs/$n.csv)"
done; done; done
echo "== E10 gpu_tests texture ($(el) s)"
VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 150 bash $X10 gpu_tests --gtest_filter='*Texture*' > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ') validation IDs: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
echo "== E10 sanitizers ($(el) s)"
for tool in memcheck racecheck; do timeout 90 bash $X10 $CS --tool $tool --error-exitcode 9 vkcuda-sim --headless --backend cuda --grid 200 --frames 4 > $logs/cs-$tool.txt 2>&1
  echo "$tool rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $logs/cs-$tool.txt | tr '\n' ' ')"; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/rune10.tar.gz .; cp $logs/summary.txt $out/
