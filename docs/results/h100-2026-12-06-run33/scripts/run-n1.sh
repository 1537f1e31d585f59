#!/usr/bin/env bash
# Session 2026-12-06 #14, call 10: Nsight Compute on the textured step, cuda beside cuda-nvx (whose kernel is
# launched by vkCmdCuLaunchKernelNVX): does ncu see the NVX launch, and if so its occupancy, its DRAM throughput
# and its stores. 4096², the 11th launch of rippleStepTexelsKernel.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runn1; mkdir -p $logs; cd "$(dirname "$0")/.."
X=".gpu/enter.sh"; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "ncu: $NCU"
for b in cuda cuda-nvx; do
timeout 150 bash $X $NCU --target-processes all -k regex:rippleStepTexels --launch-skip 10 --launch-count 1 --clock-control none \
  --section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
  --metrics lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum,l1tex__t_requests_pipe_tex_mem_surface_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_write.sum,dram__bytes_read.sum,gpu__time_duration.sum \
  vkcuda-sim --headless --backend $b --grid 4096 --frames 20 > $logs/ncu-$b.txt 2>&1
echo "== $b rc=$? ($(el) s)"; grep -E "==PROF==|==WARNING==|==ERROR==" $logs/ncu-$b.txt | sort | uniq -c | head -8
grep -E "Duration|Achieved Occupancy|Theoretical Occupancy|Block Limit|Registers Per|Shared Memory Configuration Size|Dynamic Shared|Static Shared|Driver Shared|DRAM Throughput|Memory Throughput|L2 Hit|lts__t_|l1tex__t_|dram__bytes|sm__warps_active|gpu__time" $logs/ncu-$b.txt | head -40
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs -czf $out/runn1.tar.gz .; cp $logs/summary.txt $out/
