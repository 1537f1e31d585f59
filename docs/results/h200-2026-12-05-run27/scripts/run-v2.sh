#!/usr/bin/env bash
# Session 2026-12-05h (run 27), call 2 (<= 560 s). N2 (.gpu) = level 0 stored from the step's registers two rows a
# warp store (rows j0, j0+1 paired by shuffles; row j0+2 alone); N (.run4/N, KN) = call 1's build (level 0 from the
# block's shared memory, paired); B (.run4/B, KB) = 205f61d.
# (1) vertex dumps N2 against B; (2) gpu_tests' texture tests on N2, validation on; (3) kernel_bench B, N, N2, the
# step rows; (4) frame and step times B and N2 alternating; (5) compute-sanitizer on N2; (6) ncu DRAM bytes, traffic T=1,4.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runv2; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-560} ]; }
R=$PWD/.run4; for b in B KB N KN; do [ -f $R/$b ] || xz -dk $R/$b.xz; chmod +x $R/$b; done
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
  printf '%-28s rc=%s %s\n' "$tag" $rc "$(capstat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
dump() { local bin=$1 d=$2; shift 2; bash $X $bin --headless --dump-vertices $d "$@" > $d.txt 2>&1; echo -n "rc=$? "; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) vertex dumps, N2 against B"
for cfg in "cuda" "cuda-nvx" "cuda --memory-owner cuda"; do for g in 333 1000; do
  a="--backend $cfg --grid $g --frames 60"
  dump $R/B $logs/b.bin $a; dump vkcuda-sim $logs/n.bin $a
  echo "$cfg grid $g: $(cmp $logs/b.bin $logs/n.bin >/dev/null 2>&1 && echo identical || echo DIFFER) $(stat -c %s $logs/n.bin 2>/dev/null)"
done; done
echo "== (2) gpu_tests, N2, texture tests, validation on ($(el) s)"
VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 120 bash $X gpu_tests --gtest_filter='CudaTexture*:*QueueTexture*:KernelVariants*' > $logs/gpu_tests.txt 2>&1
echo "gpu_tests rc=$? $(grep -E '^\[  PASSED|^\[  FAILED|tests ran' $logs/gpu_tests.txt | tr '\n' ' ')"; grep -E '^\[  FAILED' $logs/gpu_tests.txt | head
echo "== (3) kernel_bench, mean of 20 ($(el) s)"
f='deviceCopy/(4096|8192)/|rippleStep/(4096|8192)/|rippleTexelsStepAlone|rippleTexturedStep/(4096|8192)/'
for r in 1; do for who in B N N2; do fits 40 || continue
  bin=$R/K$who; [ $who = N2 ] && bin=kernel_bench
  timeout 40 bash $X $bin --benchmark_filter="$f" > $logs/kbench-$who-$r.txt 2>&1
  echo "$who r$r rc=$? $(el) s"; grep -E "^(deviceCopy|rippleStep/|rippleTex)" $logs/kbench-$who-$r.txt | awk '{printf "  %-58s %s %s\n", $1, $2, $3}'
done; done
echo "== (4) times, 300 frames, median of frames 30-299 ($(el) s)"
for cfg in "cuda 8192" "cuda 4096" "cuda-nvx 8192"; do set -- $cfg; for r in 1 2; do
  fits 25 || continue
  one "B $1 $2 r$r" $R/B --backend $1 --grid $2 --frames 300 --texture on
  one "N2 $1 $2 r$r" vkcuda-sim --backend $1 --grid $2 --frames 300 --texture on
done; done
echo "== (5) compute-sanitizer, N2, cuda ($(el) s)"
fits 45 && { timeout 40 bash $X /usr/local/cuda/bin/compute-sanitizer --tool racecheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 333 --frames 20 > $logs/racecheck.txt 2>&1
  echo "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' $logs/racecheck.txt)"; }
fits 45 && { timeout 40 bash $X /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 1000 --frames 20 > $logs/memcheck.txt 2>&1
  echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' $logs/memcheck.txt)"; }
echo "== (6) ncu, traffic kernel at 4096², DRAM bytes ($(el) s)"
for t in 1 4; do fits 50 || continue
  timeout 50 bash $X /usr/local/cuda/bin/ncu --clock-control none -k regex:rippleTrafficKernel --launch-skip 2 --launch-count 1 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum \
    kernel_bench --benchmark_filter="rippleTrafficTexels/4096/$t/" > $logs/ncu-T$t.txt 2>&1
  echo "T=$t rc=$? $(grep -E 'duration|bytes_|sectors' $logs/ncu-T$t.txt | awk '{print $1, $(NF-1), $NF}' | tr '\n' ' ')"
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='*.bin' --exclude='c.csv' -czf $out/runv2.tar.gz .
