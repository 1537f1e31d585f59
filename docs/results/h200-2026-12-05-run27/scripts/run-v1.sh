#!/usr/bin/env bash
# Session 2026-12-05h (run 27), call 1 (<= 570 s). N (.gpu) = level 0 written from the block's shared memory,
# 16 columns of two rows a warp store; B (.run4) = 205f61d, main before it.
# (1) vertex dumps N against B; (2) gpu_tests' texture and kernel-variant tests on N, validation on;
# (3) kernel_bench N (traffic rows with T=4, the textured step, level 0 alone) and B (the same step rows);
# (4) frame and step times, B and N alternating, cuda and cuda-nvx, 4096² and 8192², texture on;
# (5) compute-sanitizer racecheck and memcheck on N; (6) ncu DRAM bytes of the traffic kernel T=1,2,4;
# (7) opencl bench --overlay both, 512² and 2048².
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runv1; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-570} ]; }
R=$PWD/.run4; for b in B KB; do [ -f $R/$b ] || xz -dk $R/$b.xz; chmod +x $R/$b; done
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
  printf '%-28s rc=%s %s\n' "$tag" $rc "$(stat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
dump() { local bin=$1 d=$2; shift 2; bash $X $bin --headless --dump-vertices $d "$@" > $d.txt 2>&1; echo -n "rc=$? "; }
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "== (1) vertex dumps, N against B"
for cfg in "cuda" "cuda-nvx" "cuda --memory-owner cuda" "vulkan"; do for g in 333 1000; do
  a="--backend $cfg --grid $g --frames 60"
  dump $R/B $logs/b.bin $a; dump vkcuda-sim $logs/n.bin $a
  echo "$cfg grid $g: $(cmp $logs/b.bin $logs/n.bin >/dev/null 2>&1 && echo identical || echo DIFFER) $(stat -c %s $logs/n.bin)"
done; done
echo "== (2) gpu_tests, N, texture and kernel variants, validation on ($(el) s)"
VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 150 bash $X gpu_tests --gtest_filter='CudaTexture*:*QueueTexture*:KernelVariants*:CudaBackend*' > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $logs/gpu_tests.txt | tr '\n' ' ')"; grep -E '^\[  FAILED' $logs/gpu_tests.txt | head
echo "== (3) kernel_bench ($(el) s)"
fits 90 && { timeout 100 bash $X kernel_bench --benchmark_filter='deviceCopy/(4096|8192)$|rippleStep/(4096|8192)$|rippleTexelsStepAlone|rippleTexturedStep/|rippleTrafficTexels' > $logs/kbench-N.txt 2>&1
  echo "N kernel_bench rc=$? $(el) s"; grep -E "^(deviceCopy|rippleStep/|rippleTex|rippleTraffic)" $logs/kbench-N.txt | cut -c1-150; }
fits 60 && { timeout 60 bash $X $R/KB --benchmark_filter='rippleTexelsStepAlone|rippleTexturedStep/' > $logs/kbench-B.txt 2>&1
  echo "B kernel_bench rc=$? $(el) s"; grep -E "^rippleTex" $logs/kbench-B.txt | cut -c1-150; }
echo "== (4) times, 300 frames, median of frames 30-299 ($(el) s)"
for g in 8192 4096; do for b in cuda cuda-nvx; do for r in 1 2; do
  fits 25 || continue
  one "B $b $g r$r" $R/B --backend $b --grid $g --frames 300 --texture on
  one "N $b $g r$r" vkcuda-sim --backend $b --grid $g --frames 300 --texture on
done; done; done
echo "== (5) compute-sanitizer, N, cuda, grid 333 ($(el) s)"
fits 55 && { timeout 50 bash $X /usr/local/cuda/bin/compute-sanitizer --tool racecheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 333 --frames 20 > $logs/racecheck.txt 2>&1
  echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $logs/racecheck.txt)"; }
fits 55 && { timeout 50 bash $X /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 1000 --frames 20 > $logs/memcheck.txt 2>&1
  echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $logs/memcheck.txt)"; }
echo "== (6) ncu, traffic kernel at 4096², DRAM bytes ($(el) s)"
for t in 1 2 4; do fits 40 || continue
  timeout 40 bash $X /usr/local/cuda/bin/ncu --clock-control none -k regex:rippleTrafficKernel --launch-skip 3 --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum \
    kernel_bench --benchmark_filter="rippleTrafficTexels/4096/$t\$" > $logs/ncu-T$t.txt 2>&1
  echo "T=$t rc=$? $(grep -E 'duration|bytes_|sectors' $logs/ncu-T$t.txt | awk '{print $1, $(NF-1), $NF}' | tr '\n' ' ')"
done
echo "== (7) opencl bench --overlay both ($(el) s)"
fits 60 && { bash $X vkcuda-sim --backend opencl bench --overlay both --grids 512,2048 --sync binary --wait-strategy poll --frames 300 \
    --json $logs/N-opencl-overlay.json > $logs/N-opencl-overlay.txt 2>&1
  echo "N opencl overlay both rc=$?"; grep -E "^ +[0-9]+ " $logs/N-opencl-overlay.txt | cut -c1-140; }
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='*.bin' --exclude='c.csv' -czf $out/runv1.tar.gz .
