#!/usr/bin/env bash
# Session 2026-12-05g (run 26), call 2 (<= 560 s). N6 (.gpu) = 0614d8f; A = afa0d0d (.run2/A, the issue's "before").
# (1) frame and step times, 300 frames, 4096² and 8192², texture on and off, timeline, lod on; N6 two rounds, A one;
# (2) the sweep: bench every GPU backend, texture both, 512²-8192², both syncs (opencl binary), 120 frames;
# (3) bench --overlay both, 512² and 2048², 300 frames, the GPU backends.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runu2; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-550} ]; }
A=$PWD/.run2/A/vkcuda-sim-A; [ -f $A ] || xz -dk $A.xz; chmod +x $A
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
  printf '%-34s rc=%s %s\n' "$tag" $rc "$(stat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) times, 300 frames, median of frames 30-299"
for g in 4096 8192; do for b in cuda cuda-nvx vulkan; do
  one "A $b $g on" $A --backend $b --grid $g --frames 300 --texture on
  for r in 1 2; do for t in on off; do
    one "N6 $b $g $t r$r" vkcuda-sim --backend $b --grid $g --frames 300 --texture $t
  done; done
done; done
for g in 4096 8192; do one "N6 opencl $g on (binary)" vkcuda-sim --backend opencl --sync binary --grid $g --frames 300 --texture on
  one "N6 cuda $g on --memory-owner cuda" vkcuda-sim --backend cuda --memory-owner cuda --grid $g --frames 300 --texture on; done
echo "== (3) overlay both ($(el) s)"
for b in cuda-nvx vulkan cuda opencl; do
  fits 35 || { echo "skipped overlay $b: out of time"; continue; }
  s=timeline; [ $b = opencl ] && s=binary
  bash $X vkcuda-sim --backend $b bench --overlay both --grids 512,2048 --sync $s --wait-strategy poll --frames 300 \
    --json $logs/N6-$b-overlay.json > $logs/N6-$b-overlay.txt 2>&1
  echo "N6 $b overlay both rc=$? $(el) s"; grep -E "^ +[0-9]+ " $logs/N6-$b-overlay.txt | cut -c1-130
done
echo "== (2) sweep ($(el) s)"
for b in cuda vulkan cuda-nvx opencl "cuda --memory-owner cuda"; do
  fits 60 || { echo "skipped $b: out of time"; continue; }
  n=$(echo $b | tr ' ' '_'); s=both; [ "$b" = opencl ] && s=binary
  bash $X vkcuda-sim --backend $b bench --texture both --grids 512,1024,2048,4096,8192 --sync $s --wait-strategy poll \
    --frames 120 --json $logs/N6-$n.json > $logs/N6-$n.txt 2>&1
  echo "N6 $b rc=$? $(el) s"; grep -E "^ +[0-9]+ " $logs/N6-$n.txt | cut -c1-120
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='*.bin' --exclude='c.csv' -czf $out/runu2.tar.gz .
