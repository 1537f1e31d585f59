#!/usr/bin/env bash
# Session 2026-12-06 #13: docs/profiling.md's NVIDIA-side statements, on whatever card comes (<= 200 s).
# (1) which profilers are on PATH or in the CUDA toolkit; (2) the Nsight Compute command of profiling.md on the
# new pack (04ee46c), its kernel counts; (3) nsys on a 60-frame run, if it is there, and whether it writes a report.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runprof; mkdir -p $logs; cd "$(dirname "$0")/.."
X=".gpu/enter.sh"
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) tools"; for t in ncu nsys compute-sanitizer; do echo "$t: $(command -v $t || echo 'not on PATH')"; done
ls -d /usr/local/cuda*/bin/ncu /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems* /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "== (2) ncu: $NCU"
for m in ripple sinewave; do
timeout 120 bash $X $NCU --nvtx --nvtx-include "vkcuda-sim@kernels/" --clock-control none vkcuda-sim --headless --backend cuda --grid 64 --frames 3 --sim $m > $logs/ncu-$m.txt 2>&1
echo "ncu $m rc=$?"; grep "==PROF== Profiling" $logs/ncu-$m.txt | sed 's/:.*//' | sort | uniq -c; grep -c heightFieldVerticesKernel $logs/ncu-$m.txt; grep "^vkcuda-sim:" $logs/ncu-$m.txt | cut -c1-160
done
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | head -1)
echo "== (3) nsys: ${NSYS:-none}"
if [ -n "$NSYS" ]; then cd $logs && timeout 90 bash $OLDPWD/$X $NSYS profile --trace=cuda,nvtx,vulkan -o $logs/vk vkcuda-sim --headless --backend cuda --frames 60 > $logs/nsys.txt 2>&1; echo "nsys rc=$?"; tail -5 $logs/nsys.txt; ls -la $logs/vk* 2>/dev/null; cd $OLDPWD; fi
} 2>&1 | tee $logs/summary.txt $out/prof-live.txt
rm -f $logs/vk*.qdstrm; tar -C $logs -czf $out/runprof.tar.gz --exclude='*.nsys-rep' .
