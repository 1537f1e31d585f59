#!/usr/bin/env bash
# Session 2026-12-05g (run 26), call 1 (<= 560 s). N6 = 3a2da90 + the overlay's buffers in device-local host-visible
# memory (.gpu); N5 = 3a2da90 (.run3/N5); N3 = 1995aff (.run3/N3).
# (1) overlay A/B: N5 against N6, --overlay, 300 frames, 512² and 2048², cuda-nvx, cuda, vulkan, opencl, 2 rounds;
# (2) kernel_bench: the textured step split (rippleTexelsStepAlone L=1,4) beside copy, rippleStep, rippleTexturedStep;
# (3) vertex dumps N6 against N5 and N3; (4) compute-sanitizer; (5) gpu_tests whole (validation, learn steps, Xvfb).
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runu1; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-550} ]; }
R=$PWD/.run3; for b in N3 N5; do [ -f $R/$b ] || xz -dk $R/$b.xz; chmod +x $R/$b; done
[ -d .xvfb ] || tar -xJf .run2/xvfb.tar.xz; cp .xvfb/bin/xkbcomp /usr/bin/xkbcomp 2>/dev/null; mkdir -p $R/xbin
printf '#!/bin/bash\nLD_LIBRARY_PATH=%s/.xvfb/lib exec %s/.xvfb/bin/Xvfb "$@" -xkbdir %s/.xvfb/xkb\n' $PWD $PWD $PWD > $R/xbin/Xvfb; chmod +x $R/xbin/Xvfb
X=".gpu/enter.sh"
stat() { python3 - "$@" <<'PY'
import csv,sys,statistics as st
rows=list(csv.DictReader(open(sys.argv[1])))[30:]
def col(n): return [float(r[n]) for r in rows if r.get(n) not in (None,'','NA')]
f=col('MsBetweenPresents'); s=sorted(f); m=st.mean(f)
md=lambda n: st.median(col(n)) if col(n) else float('nan')
print("p50=%.3f mean=%.3f p99/mean=%.3f sgpu=%.3f rgpu=%.3f cpu=%.3f"%(st.median(f),m,s[int(.99*(len(s)-1))]/m,md('MsSimGpu'),md('MsRenderGpu'),md('MsCpuFrame')))
PY
}
one() { local tag=$1 bin=$2; shift 2; rm -f $logs/c.csv; bash $X $bin --headless "$@" --capture $logs/c.csv > $logs/one.txt 2>&1; local rc=$?
  printf '%-34s rc=%s %s\n' "$tag" $rc "$(stat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) overlay A/B, 300 frames, frames 30-299"
for r in 1 2; do for g in 512 2048; do for b in cuda-nvx cuda vulkan opencl; do
  s=timeline; [ $b = opencl ] && s=binary
  one "N5 $b $g overlay r$r" $R/N5 --backend $b --sync $s --grid $g --frames 300 --overlay
  one "N6 $b $g overlay r$r" vkcuda-sim --backend $b --sync $s --grid $g --frames 300 --overlay
  [ $r = 1 ] && one "N6 $b $g no overlay" vkcuda-sim --backend $b --sync $s --grid $g --frames 300
done; done; done
echo "== (2) kernel_bench ($(el) s)"
timeout 150 bash $X kernel_bench --benchmark_filter='deviceCopy/(4096|8192)|rippleStep/(4096|8192)|rippleTexturedStep/(4096|8192)|rippleTexelsStepAlone|rippleTexturedStepLevels' > $logs/kbench.txt 2>&1
echo "kernel_bench rc=$? $(el) s"; grep -E "^ripple|^deviceCopy" $logs/kbench.txt
echo "== (3) vertex dumps ($(el) s)"
for cfg in "cuda --grid 1000" "cuda-nvx --grid 1000" "vulkan --grid 1000" "cuda --grid 333 --texture off" "opencl --grid 333 --sync binary"; do
  a="--backend $cfg --frames 60"
  bash $X vkcuda-sim --headless --dump-vertices $logs/n.bin $a > /dev/null 2>&1; r0=$?
  for b in N5 N3; do bash $X $R/$b --headless --dump-vertices $logs/b.bin $a > /dev/null 2>&1
    echo "$cfg: N6 rc=$r0 against $b: $(cmp $logs/b.bin $logs/n.bin >/dev/null 2>&1 && echo identical || echo DIFFER)"; done
done
echo "== (4) compute-sanitizer ($(el) s)"
timeout 60 bash $X /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 333 --frames 20 > $logs/memcheck.txt 2>&1
echo "memcheck rc=$? $(grep 'ERROR SUMMARY' $logs/memcheck.txt)"
echo "== (5) gpu_tests ($(el) s)"
if fits 200; then
PATH=$R/xbin:$PATH VKSIM_LEARN_DIR=$PWD/.gpu/bin VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout $(( ${LIMIT:-550} - $(el) - 15 )) bash $X gpu_tests > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' $logs/gpu_tests.txt | tr '\n' ' ')"
grep -E "FAILED  \]" $logs/gpu_tests.txt | head -20; echo "validation IDs in the log: $(grep -c 'VUID\|SYNC-' $logs/gpu_tests.txt)"
grep -cE "^\[       OK \]" $logs/gpu_tests.txt; tail -3 $logs/gpu_tests.txt
fi
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='*.bin' --exclude='c.csv' -czf $out/runu1.tar.gz .
