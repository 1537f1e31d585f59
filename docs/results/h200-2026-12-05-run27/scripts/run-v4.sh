#!/usr/bin/env bash
# Session 2026-12-05h (run 27), call 4 (the same H100, warm), run inline: N's kernel_bench, the traffic rows and the copy.
R=$PWD/.run4; [ -f $R/KN ] || xz -dk $R/KN.xz; chmod +x $R/KN; nvidia-smi --query-gpu=name --format=csv,noheader; timeout 90 bash .gpu/enter.sh $R/KN --benchmark_filter='rippleTrafficTexels/|deviceCopy/(4096|8192)/' > $OUT/ktraffic.txt 2>&1; echo rc=$?; grep -E "^(rippleTraffic|deviceCopy)" $OUT/ktraffic.txt | awk '{print $1, $2, $3, $NF}'
