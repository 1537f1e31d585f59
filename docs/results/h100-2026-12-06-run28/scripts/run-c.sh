#!/usr/bin/env bash
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runc; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
R=$PWD/.r; [ -f $R/X ] || xz -dk $R/X.xz; chmod +x $R/X; X=".gpu/enter.sh"
{
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 60 bash $X gpu_tests --gtest_filter='CudaDeviceChoice.*' > $logs/choice.txt 2>&1
echo "choice rc=$?"; grep -vE "^\[ RUN|^\[       OK" $logs/choice.txt | head -30
for p in 25 33 50 100; do for g in 8192 4096; do rm -f $logs/c.csv
  VKSIM_X_CARVEOUT=$p bash $X $R/X --headless --backend cuda --grid $g --frames 300 --capture $logs/cuda-co$p-$g.csv >/dev/null 2>&1; echo "carveout $p $g rc=$? ($(el) s)"; done; done
for g in 8192 4096; do bash $X $R/X --headless --backend cuda --grid $g --frames 300 --capture $logs/cuda-co-none-$g.csv >/dev/null 2>&1; echo "none $g rc=$?"; done
for r in 1 2; do for o in "" "--overlay"; do
  bash $X vkcuda-sim --headless --backend cuda-nvx --grid 512 --frames 1200 $o --capture $logs/nvx512$o-r$r.csv > /dev/null 2>&1; echo "nvx 512 $o r$r rc=$? ($(el) s)"
  bash $X vkcuda-sim --headless --backend opencl --grid 512 --frames 1200 $o --capture $logs/ocl512$o-r$r.csv > /dev/null 2>&1; echo "ocl 512 $o r$r rc=$? ($(el) s)"
done; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs -czf $out/runc.tar.gz .
