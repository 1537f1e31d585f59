#!/usr/bin/env bash
# Session 2026-12-06 #14, call 11 (<= 420 s): the step's surface stores with each eight lanes a 4 × 2 block
# (the new pack) against the pack of 8a0327c (.r/base): (A) cuda and cuda-nvx at 4096² and 8192², texture on,
# alternating, two rounds; (B) gpu_tests' texture tests (every level against the CPU reference), under validation;
# (C) ncu's surface-store counts of the new step; (D) compute-sanitizer memcheck and racecheck on a small grid.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runk1; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
chmod +x $R/base
med() { python3 -c "
import csv,sys,statistics as st
r=list(csv.DictReader(open(sys.argv[1])))[30:]
f=lambda c: st.median(float(x[c]) for x in r if x[c] not in ('','NA'))
v=sorted(float(x['MsBetweenPresents']) for x in r); p99=v[int(.99*(len(v)-1))]
print('frame %.3f sim %.3f render %.3f P99/mean %.3f' % (f('MsBetweenPresents'), f('MsSimGpu'), f('MsRenderGpu'), p99/st.mean(v)))" $1; }
run() { n=$1-$2-$3-tex$4-$5; p=vkcuda-sim; [ $1 = base ] && p=$R/base
  bash $X $p --headless --backend $2 --grid $3 --texture $4 --frames 300 --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  printf '%-34s %s\n' $n "$(med $logs/$n.csv)"; }
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (A) ($(el) s)"
for r in 1 2; do for g in 4096 8192; do for b in cuda cuda-nvx; do
  run base $b $g on $r; run new $b $g on $r; done; run new cuda $g off $r; done; done
echo "== (B) gpu_tests texture ($(el) s)"
VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 150 bash $X gpu_tests --gtest_filter='*Texture*' > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|^\[ +OK" $logs/gpu_tests.txt | head -30; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
echo "== (C) ncu ($(el) s)"
for v in base new; do p=vkcuda-sim; [ $v = base ] && p=$R/base
timeout 60 bash $X $NCU -k regex:rippleStepTexels --launch-skip 10 --launch-count 1 --clock-control none \
  --metrics l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum,l1tex__t_requests_pipe_tex_mem_surface_op_st.sum,lts__t_sectors_op_write.sum,dram__bytes_write.sum,gpu__time_duration.sum \
  $p --headless --backend cuda --grid 4096 --frames 20 > $logs/ncu-$v.txt 2>&1; echo "ncu $v rc=$?"; grep -E "l1tex__|lts__|dram__|gpu__time" $logs/ncu-$v.txt; done
echo "== (D) compute-sanitizer ($(el) s)"
for tool in memcheck racecheck; do
timeout 90 bash $X $CS --tool $tool --error-exitcode 9 vkcuda-sim --headless --backend cuda --grid 200 --frames 4 > $logs/cs-$tool.txt 2>&1
echo "$tool rc=$? ($(el) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $logs/cs-$tool.txt | tr '\n' ' ')"; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv; do gzip -9 $f; done; tar -C $logs -czf $out/runk1.tar.gz .; cp $logs/summary.txt $out/
