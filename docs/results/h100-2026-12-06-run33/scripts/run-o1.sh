#!/usr/bin/env bash
# Session 2026-12-06 #14, call 2: opencl's host stretches. The CPU topology; opencl with the overlay, four rounds
# as it runs and four held to one CPU of each core (taskset: the one change); then one run with its threads sampled.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runo1; mkdir -p $logs; cd "$(dirname "$0")/.."
X=.gpu/enter.sh; R=$PWD/.r; started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lscpu | grep -E "^(CPU\(s\)|Thread|Core|Socket|NUMA|Model name|Hypervisor|Virtualization)"
lscpu -p=CPU,CORE,SOCKET,NODE > $logs/topo.txt; grep -v '^#' $logs/topo.txt | tr '\n' ' '; echo
one=$(grep -v '^#' $logs/topo.txt | awk -F, '!seen[$2]++{print $1}' | paste -sd,); echo "one CPU a core: $one"
for r in 1 2 3 4; do for v in as-run one-a-core; do p=""; [ $v = one-a-core ] && p="taskset -c $one"
  $p bash $X vkcuda-sim --headless --backend opencl --grid 512 --frames 1200 --overlay --capture $logs/cap-$v-$r.csv > $logs/log-$v-$r.txt 2>&1 || echo "$v $r rc=$?"
done; done
python3 $R/cap_stats.py $logs/cap-*.csv
echo "== sampled ($(el) s)"
for b in opencl cuda; do
bash $X vkcuda-sim --headless --backend $b --grid 512 --frames 3000 --overlay --capture $logs/samp-$b.csv > $logs/samp-$b.txt 2>&1 & pid=$!
python3 $R/thread_sampler.py $pid $logs/threads-$b.txt 0.002; wait $pid; echo "$b rc=$?"
python3 $R/cap_stats.py $logs/samp-$b.csv
python3 $R/thread_report.py $logs/threads-$b.txt $logs/topo.txt
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
for f in $logs/*.csv $logs/threads-*.txt; do gzip -9 $f; done; tar -C $logs -czf $out/runo1.tar.gz .; cp $logs/summary.txt $out/
