#!/usr/bin/env bash
# Kept as a record of what run 35 ran; it ran as .r/run-p3.sh (it changes to the folder above its own folder).
# Run 35 (<= 450 s, any card): main of 64596ac (with b7cf455, the CUDA textured step's levels 1-3 in the staging area,
# and the merge of 3c1d57d, the Vulkan step writing levels 0-3 from shared memory), as packed in .gpu, against 8a0327c's
# app (.r/base): E9's resident-block count on b7cf455 (.r/E9b); the step and frame, base and new alternating (vulkan two
# rounds, the rest one); every GPU backend's vertex dump and screenshot; gpu_tests under validation (learn steps included; not ForeignDisplay or the lavapipe pairing test); compute-sanitizer.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runp3; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
chmod +x $R/base $R/E9b
med() { python3 -c "
import csv,sys,statistics as st
r=list(csv.DictReader(open(sys.argv[1])))[30:]
f=lambda c: st.median(float(x[c]) for x in r if x[c] not in ('','NA'))
print('frame %.3f sim %.3f render %.3f' % (f('MsBetweenPresents'), f('MsSimGpu'), f('MsRenderGpu')))" $1; }
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== A/B, base then new, two rounds ($(el) s)"
for rc in "1 vulkan on" "1 vulkan off"; do set -- $rc; r=$1; shift; for g in 4096 8192; do
  for w in base new; do bin=$R/base; [ $w = new ] && bin=vkcuda-sim; n=$w-$1-$g-tex$2-$r
    bash $X $bin --headless --backend $1 --grid $g --texture $2 --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
    printf '%-28s %s\n' $n "$(med $logs/$n.csv)"; done; done; done
echo "== dumps and screenshots, texture on: base against new ($(el) s)"
for g in 1000; do for b in cuda cuda-nvx vulkan opencl; do
  [ $b = opencl ] && s=binary || s=timeline
  for w in base new; do bin=$R/base; [ $w = new ] && bin=vkcuda-sim
    bash $X $bin --headless --backend $b --sync $s --grid $g --texture on --frames 60 --dump-vertices $logs/$w-$b-$g.bin --screenshot $logs/$w-$b-$g.png > $logs/$w-$b-$g.txt 2>&1 || echo "$w-$b-$g rc=$?"; done
  printf '%-10s %-5s vertices: %-10s screenshot: %s\n' $b $g "$(cmp $logs/base-$b-$g.bin $logs/new-$b-$g.bin && echo identical)" "$(cmp $logs/base-$b-$g.png $logs/new-$b-$g.png && echo identical)"
  rm -f $logs/*-$b-$g.bin
done; done
echo "== gpu_tests, learn steps included, validation on; not ForeignDisplay (needs Xvfb) nor the lavapipe pairing test (needs lavapipe packed; the tree would pass 64 MiB) ($(el) s)"
VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 280 bash $X gpu_tests --gtest_filter='-ForeignDisplay.*:CudaDeviceChoice.PairsWithTheNvidiaDeviceAndRefusesLavapipe' > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ') validation IDs: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
grep -E '^\[  FAILED' $logs/gpu_tests.txt | head -5
cp $logs/gpu_tests.txt $out/
echo "== compute-sanitizer ($(el) s)"
for tg in "memcheck 200" "racecheck 200"; do set -- $tg
  timeout 80 bash $X $CS --tool $1 --error-exitcode 9 vkcuda-sim --headless --backend cuda --grid $2 --frames 3 > $logs/cs-$1-$2.txt 2>&1
  echo "$1 grid $2 rc=$?: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $logs/cs-$1-$2.txt | tr '\n' ' ')"; done
echo "== E9 counts on b7cf455 ($(el) s)"
for g in 4096 8192; do for b in cuda cuda-nvx; do n=E9b-$b-$g-texon
  bash $X $R/E9b --headless --backend $b --grid $g --texture on --frames 60 --dump-vertices $logs/$n.bin > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  python3 -c "import struct,sys; w=struct.unpack_from('<f', open(sys.argv[1],'rb').read(32), 28)[0]; print('%-22s most resident warps on one SM: %g (blocks: %g)' % (sys.argv[2], w, w/8))" $logs/$n.bin $n; rm -f $logs/$n.bin; done; done
echo "== A/B, base then new, continued ($(el) s)"
for rc in "1 cuda-nvx on" "1 cuda-nvx off" "1 cuda on" "1 cuda off" "2 vulkan on" "2 vulkan off"; do set -- $rc; r=$1; shift; for g in 4096 8192; do
  for w in base new; do bin=$R/base; [ $w = new ] && bin=vkcuda-sim; n=$w-$1-$g-tex$2-$r
    bash $X $bin --headless --backend $1 --grid $g --texture $2 --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
    printf '%-28s %s\n' $n "$(med $logs/$n.csv)"; done; done; done
echo "== E11 (kRippleTexelsMinBlocks 5: 48 registers, 8 bytes spilled) against new, texture on ($(el) s)"
chmod +x $R/E11
for r in 1 2; do for b in cuda cuda-nvx; do for g in 4096 8192; do
  for w in new E11; do bin=vkcuda-sim; [ $w = E11 ] && bin=$R/E11; n=$w-$b-$g-texon-e$r
    bash $X $bin --headless --backend $b --grid $g --texture on --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
    printf '%-28s %s\n' $n "$(med $logs/$n.csv)"; done; done; done; done
for b in cuda cuda-nvx; do for w in new E11; do bin=vkcuda-sim; [ $w = E11 ] && bin=$R/E11
  bash $X $bin --headless --backend $b --grid 1000 --texture on --frames 60 --dump-vertices $logs/e11-$w-$b.bin --screenshot $logs/e11-$w-$b.png > /dev/null 2>&1 || echo "e11 $w $b rc=$?"; done
  echo "E11 $b 1000: vertices $(cmp $logs/e11-new-$b.bin $logs/e11-E11-$b.bin && echo identical) screenshot $(cmp $logs/e11-new-$b.png $logs/e11-E11-$b.png && echo identical)"; rm -f $logs/e11-*; done
echo "total $(el) s"
} 2>&1 | tee $out/summary.txt
rm -f $logs/base-*.png; for f in $logs/*.csv; do gzip -9 $f; done; cp $out/summary.txt $logs/; tar -C $logs -czf $out/runp3.tar.gz .
