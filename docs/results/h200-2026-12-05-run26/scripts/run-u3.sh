#!/usr/bin/env bash
# Session 2026-12-05g (run 26), call 3 (<= 300 s). N7 = 15d5fce (.gpu, packed with lavapipe as a second device).
# (1) CudaDeviceChoice with lavapipe present (no validation layer: the pack must stay under 64 MiB); (2) racecheck, cuda 333²; (3) the overlay's GPU time against the image
# size (cuda-nvx 512², 300 frames, --size 640x360 / 1280x720 / 2560x1440, with and without --overlay, two rounds);
# (4) bench cuda --memory-owner cuda --transfer zero-copy, texture both, 4096² and 8192².
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runu3; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
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
one() { local tag=$1; shift; rm -f $logs/c.csv; bash $X vkcuda-sim --headless "$@" --capture $logs/c.csv > $logs/one.txt 2>&1; local rc=$?
  printf '%-34s rc=%s %s\n' "$tag" $rc "$(stat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) CudaDeviceChoice, lavapipe packed"
bash $X vkcuda-sim --list-devices > $logs/list-devices.txt 2>&1; echo "list-devices rc=$?"; cat $logs/list-devices.txt | head -20
VKSIM_REQUIRE_CUDA=1 timeout 60 bash $X gpu_tests --gtest_filter='CudaDeviceChoice*' > $logs/choice.txt 2>&1
echo "CudaDeviceChoice rc=$?: $(grep -E '^\[  PASSED|^\[  FAILED' $logs/choice.txt | tr '\n' ' ') validation IDs: $(grep -c 'VUID\|SYNC-' $logs/choice.txt)"
echo "== (2) racecheck ($(el) s)"
timeout 90 bash $X /usr/local/cuda/bin/compute-sanitizer --tool racecheck --print-limit 5 vkcuda-sim --headless --backend cuda --grid 333 --frames 20 > $logs/racecheck.txt 2>&1
echo "racecheck rc=$? $(grep 'RACECHECK SUMMARY' $logs/racecheck.txt)"
echo "== (3) overlay against the image size ($(el) s)"
for r in 1 2; do for s in 640x360 1280x720 2560x1440; do
  one "cuda-nvx 512 $s overlay r$r" --backend cuda-nvx --grid 512 --frames 300 --size $s --overlay
  one "cuda-nvx 512 $s none r$r" --backend cuda-nvx --grid 512 --frames 300 --size $s
done; done
echo "== (4) memory owner cuda ($(el) s)"
bash $X vkcuda-sim --backend cuda --memory-owner cuda bench --transfer zero-copy --texture both --grids 4096,8192 --sync timeline \
  --wait-strategy poll --frames 120 --json $logs/N7-cuda-memory-owner-cuda.json > $logs/N7-cuda-memory-owner-cuda.txt 2>&1
echo "rc=$? $(el) s"; grep -E "^ +[0-9]+ " $logs/N7-cuda-memory-owner-cuda.txt | cut -c1-120; tail -2 $logs/N7-cuda-memory-owner-cuda.txt
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='c.csv' -czf $out/runu3.tar.gz .
