#!/usr/bin/env bash
# Session 2026-12-05f, call 1 (<= 590 s): N = branch texchain (the levels below the step five a launch; cuda-nvx's texture
# from its own step through VK_NVX_image_view_handle) in .gpu; B = bf511b5 (.run3/B, run 24's build).
# (1) vertex dumps N against B; (2) step and frame times, B and N alternating, texture on, and N texture off;
# (3) kernel_bench N and B (the textured step with the levels below); (4) compute-sanitizer on N's cuda texture kernels.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runt; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-570} ]; }
R=$PWD/.run3; for b in B KB; do [ -f $R/$b ] || xz -dk $R/$b.xz; chmod +x $R/$b; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
X=".gpu/enter.sh"
dump() { local bin=$1 d=$2; shift 2; bash $X $bin --headless --dump-vertices $d "$@" > $d.txt 2>&1; echo -n "rc=$? "; }
{
echo "== (1) vertex dumps, N against B"
for cfg in "cuda" "cuda-nvx" "cuda --texture off" "cuda-nvx --texture off" "vulkan" "cuda --sim sinewave" "cuda-nvx --sim sinewave" "vulkan --sim sinewave"; do
  for g in 333 1000; do a="--backend $cfg --grid $g --frames 60"
    [ $g = 1000 ] && [ "${cfg#* }" != "$cfg" ] && continue
    dump $R/B $logs/b.bin $a; dump vkcuda-sim $logs/n.bin $a
    echo "$cfg grid $g: $(cmp $logs/b.bin $logs/n.bin >/dev/null 2>&1 && echo identical || echo DIFFER) $(stat -c %s $logs/n.bin)"
  done
done
grep -h "error\|fail" $logs/n.bin.txt | head -3
echo "== (2) times, 300 frames, median of frames 30-299 ($(el) s)"
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
for g in 4096 8192; do for b in cuda cuda-nvx vulkan; do
  fits 25 || continue
  one "B $b $g on" $R/B --backend $b --grid $g --frames 300 --texture on
  one "N $b $g on" vkcuda-sim --backend $b --grid $g --frames 300 --texture on
  one "N $b $g off" vkcuda-sim --backend $b --grid $g --frames 300 --texture off
done; done
echo "== (3) kernel_bench ($(el) s)"
for who in N B; do fits 75 || continue
  bin=kernel_bench; [ $who = B ] && bin=$R/KB
  timeout 70 bash $X $bin --benchmark_filter='deviceCopy|rippleStep|rippleTexturedStep' > $logs/kbench-$who.txt 2>&1
  echo "$who kernel_bench rc=$? $(el) s"; grep -E "^rippleTextured|^rippleStep/|^deviceCopy|^grid|^ *[0-9]+ +[0-9]" $logs/kbench-$who.txt | head -16
done
echo "== (4) compute-sanitizer, N, cuda, grid 333 ($(el) s)"
if fits 60; then
  timeout 50 bash $X /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 333 --frames 30 > $logs/memcheck.txt 2>&1
  echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $logs/memcheck.txt)"
fi
if fits 60; then
  timeout 50 bash $X /usr/local/cuda/bin/compute-sanitizer --tool racecheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 333 --frames 20 > $logs/racecheck.txt 2>&1
  echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $logs/racecheck.txt)"
fi
echo "== (5) Nsight Compute, N, cuda, grid 4096 ($(el) s)"
nc() { local name=$1; shift; timeout 80 bash $X /usr/local/cuda/bin/ncu --clock-control none "$@" --section SpeedOfLight \
  --section Occupancy --section WarpStateStats --section LaunchStats --section MemoryWorkloadAnalysis \
  vkcuda-sim --headless --backend cuda --grid 4096 --frames 20 --texture ${TEX:-on} > $logs/ncu-$name.txt 2>&1
  echo "ncu $name rc=$? $(grep -c '==PROF== Profiling' $logs/ncu-$name.txt) kernels"; }
fits 90 && nc textured -k regex:'rippleStepTexels|downsampleLevels' --launch-skip 10 --launch-count 3
fits 90 && TEX=off nc plain -k regex:'rippleStepKernel' --launch-skip 10 --launch-count 1
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='*.bin' -czf $out/runt.tar.gz .
