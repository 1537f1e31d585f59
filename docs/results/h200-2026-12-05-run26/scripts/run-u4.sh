#!/usr/bin/env bash
# Session 2026-12-05g (run 26), call 4 (<= 240 s). N7 = 15d5fce (.gpu; its vkcuda-sim is 3a2da90's, byte for byte).
# (1) opencl's overlay: bench --overlay both at 512² and 2048² twice, and 1200-frame captures with and without
# --overlay interleaved, two rounds; (2) the two frame goals nearest their line: cuda 4096² and vulkan 8192²,
# texture on, 300-frame captures, three rounds.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runu4; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }
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
one() { local tag=$1; shift; rm -f $logs/c.csv; bash $X vkcuda-sim --headless "$@" --capture $logs/c.csv > $logs/one.txt 2>&1; local rc=$?
  printf '%-34s rc=%s %s\n' "$tag" $rc "$(stat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) opencl and the overlay"
for r in 1 2; do
  bash $X vkcuda-sim --backend opencl bench --overlay both --grids 512,2048 --sync binary --wait-strategy poll --frames 300 \
    --json $logs/opencl-overlay-r$r.json > $logs/opencl-overlay-r$r.txt 2>&1
  echo "bench r$r rc=$? $(el) s"; grep -E "^ +[0-9]+ " $logs/opencl-overlay-r$r.txt | cut -c1-130
  for g in 512 2048; do
    one "opencl $g overlay r$r" --backend opencl --sync binary --grid $g --frames 1200 --overlay
    one "opencl $g none r$r" --backend opencl --sync binary --grid $g --frames 1200
  done
done
echo "== (2) goals nearest the line ($(el) s)"
for r in 1 2 3; do
  one "cuda 4096 on r$r" --backend cuda --grid 4096 --frames 300
  one "vulkan 8192 on r$r" --backend vulkan --grid 8192 --frames 300
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='c.csv' -czf $out/runu4.tar.gz .
