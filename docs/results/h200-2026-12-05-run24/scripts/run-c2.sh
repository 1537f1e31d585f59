#!/usr/bin/env bash
# Session 2026-12-05e, call 3 (next = main + vkwarp in .gpu2) (issue 41's sweep): kernel_bench, then the bench for every backend at 512²-8192²,
# both syncs (opencl binary), texture on and off, for this build (N, .gpu) and afa0d0d (A, .run2/A).
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runh; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
[ -f .run2/A/vkcuda-sim-A ] || xz -dk .run2/A/vkcuda-sim-A.xz; chmod +x .run2/A/vkcuda-sim-A
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
timeout 70 bash .gpu2/enter.sh kernel_bench --benchmark_filter='deviceCopy|rippleStep|rippleTexturedStep' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$? $(el) s"; grep -vE '^-|^Run on|^CPU|^Load|^\*\*' $logs/kbench.txt | tail -14
for who in N A; do
  if [ $who = A ]; then bin=$PWD/.run2/A/vkcuda-sim-A; stop=${LIMIT_A:-560}; else bin=vkcuda-sim; stop=${LIMIT_N:-330}; fi
  for b in cuda cuda-nvx vulkan opencl cpu; do for t in on off; do
    [ $(el) -lt $stop ] || { echo "skipped $who $b texture $t: out of time"; continue; }
    # At afa0d0d only cuda wrote the texture: the others' "on" rows would repeat their "off" rows (the placeholder).
    [ $who = A ] && [ $b != cuda ] && [ $t = on ] && continue
    sync=both; [ $b = opencl ] && sync=binary
    grids=512,1024,2048,4096,8192; frames=${FRAMES:-200}; [ $b = cpu ] && grids=512,1024 && frames=60
    # afa0d0d's bench has no --texture of its own: the run's --texture applies to every row.
    if [ $who = A ]; then args="--texture $t bench"; else args="bench --texture $t"; fi
    bash .gpu2/enter.sh $bin --backend $b $args --grids $grids --sync $sync --wait-strategy poll --frames $frames \
      --json $logs/$who-$b-texture-$t.json > $logs/$who-$b-texture-$t.txt 2>&1
    echo "$who $b texture $t rc=$? $(el) s"; grep -E "^ +[0-9]+ " $logs/$who-$b-texture-$t.txt | cut -c1-120
  done; done
done | tee $logs/sweep.txt
echo "total $(el) s"
tar -C $logs -czf $out/runh.tar.gz .
