#!/usr/bin/env bash
# Session 2026-12-06 #14, call 13: how many blocks of the textured step are resident on one SM at once, on cuda
# (CUDA's stream) and on cuda-nvx (vkCmdCuLaunchKernelNVX). E8 = the pack's app with a probe in
# rippleStepTexelsKernel (each block counts itself in and out of its SM; the last block writes the most seen at
# once into vertex 0's normal.w, read back by --dump-vertices). Also each run's step time, for scale.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runo8; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; chmod +x $R/E8
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for g in 4096 8192; do for b in cuda cuda-nvx; do
  n=$b-$g-$r; bash $X $R/E8 --headless --backend $b --grid $g --frames 60 --dump-vertices $logs/$n.bin --capture $logs/$n.csv > $logs/$n.txt 2>&1 || echo "$n rc=$?"
  python3 -c "
import struct,sys,csv,statistics as st
w=struct.unpack_from('<f', open(sys.argv[1],'rb').read(32), 28)[0]
r=list(csv.DictReader(open(sys.argv[2])))[20:]
print('%-16s most resident blocks on one SM: %g   MsSimGpu median %.3f' % (sys.argv[3], w, st.median(float(x['MsSimGpu']) for x in r)))" $logs/$n.bin $logs/$n.csv $n
  rm -f $logs/$n.bin; done; done; done
} 2>&1 | tee $logs/summary.txt
tar -C $logs -czf $out/runo8.tar.gz .; cp $logs/summary.txt $out/
