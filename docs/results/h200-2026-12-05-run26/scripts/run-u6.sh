#!/usr/bin/env bash
# Session 2026-12-05g (run 26), call 6 (<= 150 s): kernel_bench at 879226e + rippleTrafficTexels: the ripple's traffic
# alone, with level 0's 4 bytes a cell through the surface, by plain stores, and through the surface 16 bytes a store (with a check of its texels); beside the step with level 0.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runu6; mkdir -p $logs; cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $logs/summary.txt
timeout 110 bash .gpu/enter.sh kernel_bench --benchmark_filter='deviceCopy/(4096|8192)|rippleStep/(4096|8192)|rippleTexelsStepAlone/.*/1|rippleTrafficTexels|rippleTexturedStep/(4096|8192)' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$?" | tee -a $logs/summary.txt
grep -E "^ripple|^deviceCopy" $logs/kbench.txt | tee -a $logs/summary.txt
tar -C $logs -czf $out/runu6.tar.gz .
