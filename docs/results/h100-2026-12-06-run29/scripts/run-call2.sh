#!/usr/bin/env bash
# Run 28, call E: X2 = f5a9fea + X.patch + two switches: VKSIM_X_DYN_SMEM=D (cuda: the textured step launched
# with D bytes of dynamic shared memory, which it does not use) and VKSIM_X_NVX_SMEM=D (cuda-nvx: the textured
# step's vkCmdCuLaunchKernelNVX with sharedMemBytes D). Question: does the textured step run 4 blocks an SM in
# cuda and fewer in cuda-nvx?
set -u
out=${OUT:-/tmp/out}; logs=/tmp/rune; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
[ -f $R/X2 ] || xz -dk $R/X2.xz; chmod +x $R/X2
capstat() { python3 - "$@" <<'PY'
import csv,sys,statistics as st
rows=list(csv.DictReader(open(sys.argv[1])))[30:]
def col(n): return [float(r[n]) for r in rows if r.get(n) not in (None,'','NA')]
f=col('MsBetweenPresents'); s=sorted(f); m=st.mean(f)
md=lambda n: st.median(col(n)) if col(n) else float('nan')
print("p50=%.3f mean=%.3f p99/mean=%.3f sgpu=%.3f rgpu=%.3f"%(st.median(f),m,s[int(.99*(len(s)-1))]/m,md('MsSimGpu'),md('MsRenderGpu')))
PY
}
one() { local tag=$1 vars=$2; shift 2; rm -f $logs/c.csv; env $vars bash $X $R/X2 --headless --frames 300 --capture $logs/c.csv "$@" > $logs/one.txt 2>&1; local rc=$?
  printf '%-44s rc=%s %s\n' "$tag" $rc "$(capstat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1; do for g in 8192 4096; do
  one "cuda $g r$r" "VKSIM_X=0" --backend cuda --grid $g
  one "cuda carveout 58 $g r$r" "VKSIM_X_CARVEOUT=58" --backend cuda --grid $g
  one "cuda carveout 58 + 24 KiB dynamic $g r$r" "VKSIM_X_CARVEOUT=58 VKSIM_X_DYN_SMEM=24576" --backend cuda --grid $g
  one "cuda-nvx $g r$r" "VKSIM_X=0" --backend cuda-nvx --grid $g
  one "cuda-nvx sharedMemBytes 1024 $g r$r" "VKSIM_X_NVX_SMEM=1024" --backend cuda-nvx --grid $g
  one "cuda-nvx sharedMemBytes 16384 $g r$r" "VKSIM_X_NVX_SMEM=16384" --backend cuda-nvx --grid $g
  one "cuda-nvx sharedMemBytes 24576 $g r$r" "VKSIM_X_NVX_SMEM=24576" --backend cuda-nvx --grid $g
done; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
