#!/usr/bin/env bash
# Session 2026-12-06 #13, last call (<= 560 s): the pack of 8a0327c (HEAD: the learn steps' argument checks, markKernel
# removed from the OpenCL kernels, the copy path's label). On an H200 first call 2's overlay runs (run-s2.sh, "new" now
# being 8a0327c's app), then on any card: gpu_tests with Xvfb, validation, the learn steps; an opencl and a copy run.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runc5; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) LIMIT=300 bash .r/run-s2.sh > /dev/null 2>&1; echo "s2 done ($(el) s)" ;; esac
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for b in opencl cuda; do t=""; [ $b = cuda ] && t="--transfer copy"
  VKSIM_VALIDATION=1 timeout 60 bash $X vkcuda-sim --headless --backend $b $t --grid 256 --frames 60 > $logs/run-$b.txt 2>&1; echo "$b $t rc=$? $(tail -1 $logs/run-$b.txt | grep -o 'backend=[a-z-]*\|transfer=[a-z-]*\|validation_errors=[0-9]*\|validation_warnings=[0-9]*' | tr '\n' ' ')"; done
echo "== gpu_tests ($(el) s)"
[ -d .xvfb ] || tar -xJf $R/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-560} - $(el) - 20 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|SKIPPED \]" $logs/gpu_tests.txt | head -8; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
grep -E "^\[ +(OK|FAILED) .*(Learn|OpenCl)" $logs/gpu_tests.txt | head -30
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/c5-live.txt
tar -C $logs -czf $out/runc5.tar.gz .
