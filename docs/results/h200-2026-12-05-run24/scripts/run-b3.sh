#!/usr/bin/env bash
# Session 2026-12-05e, call 3 (~60 s): the 200-frame dumps at 1000², where run 23's W differed: W, W3 and next
# (rows default and strict, .gpu2) against P (cb7758a's tile).
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runb3; mkdir -p $logs; cd "$(dirname "$0")/.."
R=$PWD/.run3; for w in P W W3; do [ -f $R/$w ] || xz -dk $R/$w.xz; chmod +x $R/$w; done
dump() { local bin=$1 d=$2; shift 2; bash .gpu2/enter.sh $bin --headless --dump-vertices $d "$@" > $d.txt 2>&1; }
cmpv() { python3 .r/cmpv.py "$@"; }
{
for g in 1000 1016; do for t in off on; do for sy in timeline binary; do
  [ $g = 1016 ] && [ $sy = binary ] && continue
  a="--backend vulkan --grid $g --frames 200 --sync $sy --texture $t"
  dump $R/P $logs/p.bin $a; VKSIM_LAB_VULKAN_SUBGROUP_ROWS=strict dump $R/W $logs/w.bin $a; VKSIM_LAB_VULKAN_SUBGROUP_ROWS=strict dump $R/W3 $logs/w3.bin $a
  dump vkcuda-sim $logs/n.bin $a; VKSIM_STRICT_SUBGROUP_ROWS=1 dump vkcuda-sim $logs/s.bin $a
  echo "grid $g texture $t $sy 200 frames: W $(cmpv $logs/p.bin $logs/w.bin $g) | W3 $(cmpv $logs/p.bin $logs/w3.bin $g) | next rows $(cmpv $logs/p.bin $logs/n.bin $g) | next strict $(cmpv $logs/p.bin $logs/s.bin $g)"
done; done; done
} 2>&1 | tee $logs/b3.txt
cp $logs/b3.txt $out/
