#!/usr/bin/env bash
# Session 2026-12-05e, call 2 (<= 590 s): next = main cb7758a + vkwarp (the Vulkan ripple step as subgroup rows by
# default; .gpu2) whole on the H200. (1) rows against P (cb7758a's tile step, .run3/P) and next's own tile
# (VKSIM_VULKAN_TILE_STEP=1): vertex dumps at grids that cut the strips and that do not, texture on and off, both syncs;
# (2) every other backend's dumps against P (unchanged code: must be identical); (3) gpu_tests whole (validation,
# learn steps, Xvfb on PATH); (4) step and frame times: rows, tile, cuda, cuda-nvx, texture off and on.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runb; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-570} ]; }
R=$PWD/.run3; [ -f $R/P ] || xz -dk $R/P.xz; chmod +x $R/P
[ -d .xvfb ] || tar -xJf .run2/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
X=".gpu2/enter.sh"
dump() { local bin=$1 d=$2; shift 2; bash $X $bin --headless --dump-vertices $d "$@" > $d.txt 2>&1; }
cmpv() { python3 .r/cmpv.py "$@"; }
{
echo "== (1) rows (next) against the tile (P; next with VKSIM_VULKAN_TILE_STEP=1)"
for g in 1000 1024 4096; do for t in off on; do for sy in timeline binary; do
  [ $g != 1000 ] && [ $sy = binary ] && continue
  a="--backend vulkan --grid $g --frames 60 --sync $sy --texture $t"
  dump $R/P $logs/p.bin $a; dump vkcuda-sim $logs/n.bin $a
  VKSIM_STRICT_SUBGROUP_ROWS=1 dump vkcuda-sim $logs/s.bin $a; VKSIM_VULKAN_TILE_STEP=1 dump vkcuda-sim $logs/t.bin $a
  echo "grid $g texture $t $sy ($(el) s): rows $(cmpv $logs/p.bin $logs/n.bin $g) | strict $(cmpv $logs/p.bin $logs/s.bin $g) | tile $(cmpv $logs/p.bin $logs/t.bin $g) [$(grep 'ripple step' $logs/n.bin.txt)]"
done; done; done
echo "== (1b) the rows step as run 23 had it (W) and with one change (W3: a workgroup whose strips reach past the last column runs cellsAlone), strict, against P"
for w in W W3; do [ -f $R/$w ] || xz -dk $R/$w.xz; chmod +x $R/$w; done
for g in 1000 1024; do a="--backend vulkan --grid $g --frames 60 --texture off"
  dump $R/P $logs/p.bin $a; VKSIM_LAB_VULKAN_SUBGROUP_ROWS=strict dump $R/W $logs/w.bin $a; VKSIM_LAB_VULKAN_SUBGROUP_ROWS=strict dump $R/W3 $logs/w3.bin $a
  echo "grid $g: W $(cmpv $logs/p.bin $logs/w.bin $g) | W3 $(cmpv $logs/p.bin $logs/w3.bin $g)"
done
ROUNDS=${ROUNDS:-1}
echo "== (4) times, 300 frames ($(el) s)"
stat() { python3 - "$@" <<'PY'
import csv,sys,statistics as st
rows=list(csv.DictReader(open(sys.argv[1])))[30:]
def col(n): return [float(r[n]) for r in rows if r.get(n) not in (None,'','NA')]
f=col('MsBetweenPresents'); s=sorted(f); m=st.mean(f)
md=lambda n: st.median(col(n)) if col(n) else float('nan')
print("p50=%.3f mean=%.3f p99/mean=%.3f sgpu=%.3f rgpu=%.3f"%(st.median(f),m,s[int(.99*(len(s)-1))]/m,md('MsSimGpu'),md('MsRenderGpu')))
PY
}
one() { local tag=$1; shift; rm -f $logs/c.csv; bash $X vkcuda-sim --headless "$@" --capture $logs/c.csv > /dev/null 2>&1; local rc=$?
  printf '%-28s rc=%s %s\n' "$tag" $rc "$(stat $logs/c.csv 2>/dev/null)"; }
for round in ${ROUNDS:-1 2}; do for g in 4096 8192; do for t in off on; do
  fits 30 || continue
  one "rows $g tex=$t r$round" --backend vulkan --grid $g --frames 300 --texture $t
  VKSIM_VULKAN_TILE_STEP=1 one "tile $g tex=$t r$round" --backend vulkan --grid $g --frames 300 --texture $t
  one "cuda $g tex=$t r$round" --backend cuda --grid $g --frames 300 --texture $t
  one "cuda-nvx $g tex=$t r$round" --backend cuda-nvx --grid $g --frames 300 --texture $t
done; done; done
echo "== (3) gpu_tests ($(el) s)"
if fits 150; then
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu2/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-570} - $(el) - 15 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "FAILED  \]" $logs/gpu_tests.txt | head -20; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
fi
echo "== (2) the other backends against P, grid 256, 60 frames ($(el) s)"
for cfg in "cuda" "cuda --texture off" "cuda --memory-owner cuda" "cuda-nvx" "opencl --sync binary" "cpu" "cuda --sim sinewave" "vulkan --sim sinewave"; do
  fits 20 || continue
  dump $R/P $logs/p.bin --backend $cfg --grid 256 --frames 60; dump vkcuda-sim $logs/n.bin --backend $cfg --grid 256 --frames 60
  echo "$cfg: $(cmpv $logs/p.bin $logs/n.bin 256)"
done
rm -f $logs/*.bin
echo "total $(el) s"
} 2>&1 | tee $logs/b.txt
tar -C $logs -czf $out/runb.tar.gz b.txt gpu_tests.txt
