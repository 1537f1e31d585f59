#!/usr/bin/env bash
# Session 2026-12-06 (run 28), call A (<= 560 s). M (.gpu) = main c8fcd45 (code of b8ae2c2); X (.r/X) = M plus
# environment switches, each off unless set (see .r/X.patch). (1) bench --overlay both, every GPU backend, 512²
# and 2048², two rounds for opencl; (2) the overlay's draw against the pixels it covers, cuda-nvx 512²;
# (3) the whole gpu_tests under an Xvfb, validation on, learn steps from the pack.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runa; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-540} ]; }
R=$PWD/.r; [ -f $R/X ] || xz -dk $R/X.xz; chmod +x $R/X
X=".gpu/enter.sh"
capstat() { python3 - "$@" <<'PY'
import csv,sys,statistics as st
rows=list(csv.DictReader(open(sys.argv[1])))[30:]
def col(n): return [float(r[n]) for r in rows if r.get(n) not in (None,'','NA')]
f=col('MsBetweenPresents'); s=sorted(f); m=st.mean(f)
md=lambda n: st.median(col(n)) if col(n) else float('nan')
print("p50=%.3f mean=%.3f p99/mean=%.3f sgpu=%.3f rgpu=%.3f"%(st.median(f),m,s[int(.99*(len(s)-1))]/m,md('MsSimGpu'),md('MsRenderGpu')))
PY
}
one() { local tag=$1 bin=$2; shift 2; rm -f $logs/c.csv; bash $X $bin --headless "$@" --capture $logs/c.csv > $logs/one.txt 2>&1; local rc=$?
  printf '%-36s rc=%s %s\n' "$tag" $rc "$(capstat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "== (1) bench --overlay both, 300 frames"
for b in cuda cuda-nvx vulkan opencl opencl; do
  s=timeline; [ $b = opencl ] && s=binary
  bash $X vkcuda-sim --backend $b bench --overlay both --grids 512,2048 --sync $s --wait-strategy poll --frames 300 \
    --json $logs/M-$b-overlay-$(el).json > $logs/M-$b-overlay.txt 2>&1
  echo "$b rc=$? ($(el) s)"; grep -E "^ +[0-9]+ |overlay" $logs/M-$b-overlay.txt | cut -c1-160
done
echo "== (2) the overlay's draw and its pixels: cuda-nvx 512², 600 frames, medians of frames 30-599 ($(el) s)"
one "M no overlay" vkcuda-sim --backend cuda-nvx --grid 512 --frames 600
one "M overlay" vkcuda-sim --backend cuda-nvx --grid 512 --frames 600 --overlay
one "M overlay collapsed" vkcuda-sim --backend cuda-nvx --grid 512 --frames 600 --overlay --input-script $R/collapse.txt
one "X overlay" $R/X --backend cuda-nvx --grid 512 --frames 600 --overlay
VKSIM_X_NO_WINDOW_BG=1 one "X overlay, no window bg" $R/X --backend cuda-nvx --grid 512 --frames 600 --overlay
one "M overlay 640x360" vkcuda-sim --backend cuda-nvx --grid 512 --frames 600 --overlay --size 640x360
echo "== (3) gpu_tests, all, Xvfb, validation on ($(el) s)"
[ -d .xvfb ] || tar -xJf $R/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-540} - $(el) - 8 )) \
  bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? ($(el) s): $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED|tests? from .* ran' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "^\[  FAILED|SKIPPED \]" $logs/gpu_tests.txt | head -14; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs --exclude='*.bin' --exclude='c.csv' -czf $out/runa.tar.gz .
