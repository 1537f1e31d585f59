#!/usr/bin/env bash
# Session 2026-12-05f, call 2 (<= 560 s): N2 = texchain at 2nd commit (.gpu); B = bf511b5 (.run3/B).
# (1) step/frame times B and N2 alternating, texture on; N2 texture off; (2) kernel_bench textured, 4 and 5 blocks an SM;
# (3) gpu_tests whole (validation, learn steps, Xvfb on PATH); (4) N2 vertex dumps against B.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runt3; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-550} ]; }
R=$PWD/.run3; for b in B KB; do [ -f $R/$b ] || xz -dk $R/$b.xz; chmod +x $R/$b; done
[ -d .xvfb ] || tar -xJf .run2/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
X=".gpu/enter.sh"
stat() { python3 - "$@" <<'PY'
import csv,sys,statistics as st
rows=list(csv.DictReader(open(sys.argv[1])))[30:]
def col(n): return [float(r[n]) for r in rows if r.get(n) not in (None,'','NA')]
f=col('MsBetweenPresents'); s=sorted(f); m=st.mean(f)
md=lambda n: st.median(col(n)) if col(n) else float('nan')
print("p50=%.3f mean=%.3f p99/mean=%.3f sgpu=%.3f rgpu=%.3f"%(st.median(f),m,s[int(.99*(len(s)-1))]/m,md('MsSimGpu'),md('MsRenderGpu')))
PY
}
one() { local tag=$1 bin=$2; shift 2; rm -f $logs/c.csv; bash $X $bin --headless "$@" --capture $logs/c.csv > $logs/one.txt 2>&1; local rc=$?
  printf '%-30s rc=%s %s\n' "$tag" $rc "$(stat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "== (1) times, 300 frames, median of frames 30-299"
for g in 4096 8192; do for b in vulkan cuda-nvx cuda; do
  fits 25 || continue
  one "B $b $g on" $R/B --backend $b --grid $g --frames 300 --texture on
  one "N2 $b $g on" vkcuda-sim --backend $b --grid $g --frames 300 --texture on
  one "N2 $b $g off" vkcuda-sim --backend $b --grid $g --frames 300 --texture off
done; done
echo "== (2) kernel_bench ($(el) s)"
timeout 60 bash $X kernel_bench --benchmark_filter='deviceCopy/(4096|8192)|rippleStep/(4096|8192)|rippleTexturedStep' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$? $(el) s"; grep -E "^rippleTextured|^rippleStep/|^deviceCopy" $logs/kbench.txt
echo "== (3) gpu_tests ($(el) s)"
if fits 230; then
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-550} - $(el) - 40 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "FAILED  \]" $logs/gpu_tests.txt | head -20; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
grep -E "^\[       OK \].*(QueueTextureOnGpu|CudaTexture|LearnStepsGpu)" $logs/gpu_tests.txt | wc -l
fi
echo "== (4) vertex dumps N2 against B ($(el) s)"
for cfg in "vulkan" "cuda-nvx" "cuda"; do fits 12 || continue
  a="--backend $cfg --grid 1000 --frames 60"
  bash $X $R/B --headless --dump-vertices $logs/b.bin $a > /dev/null 2>&1; bash $X vkcuda-sim --headless --dump-vertices $logs/n.bin $a > /dev/null 2>&1
  echo "$cfg grid 1000: $(cmp $logs/b.bin $logs/n.bin >/dev/null 2>&1 && echo identical || echo DIFFER)"
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='*.bin' -czf $out/runt3.tar.gz .
