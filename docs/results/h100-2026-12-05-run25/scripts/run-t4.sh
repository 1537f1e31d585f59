#!/usr/bin/env bash
# Session 2026-12-05f, call 3 (<= 560 s): N3 = texchain 3rd commit (.gpu); B = bf511b5, N2 = 2nd commit (.run3).
# (1) vulkan step times B / N2 / N3 alternating, 2 rounds; (2) N3 vulkan against B: dumps, QueueTextureOnGpu (validation);
# (3) N3 bench, cuda / cuda-nvx / vulkan, texture on and off, 512²-8192², both syncs; (4) bench --overlay both at 512²
# and 2048², the GPU backends.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runt4; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-440} ]; }
R=$PWD/.run3; for b in B N2; do [ -f $R/$b ] || xz -dk $R/$b.xz; chmod +x $R/$b; done
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
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== (1) vulkan step times, texture on, 300 frames, median of frames 30-299"
for r in 1 2; do for g in 4096 8192; do
  one "B vulkan $g r$r" $R/B --backend vulkan --grid $g --frames 300
  one "N2 vulkan $g r$r" $R/N2 --backend vulkan --grid $g --frames 300
  one "N3 vulkan $g r$r" vkcuda-sim --backend vulkan --grid $g --frames 300
done; done
echo "== (2) N3 vulkan against B ($(el) s)"
for g in 1100 4096; do a="--backend vulkan --grid $g --frames 60"
  bash $X $R/B --headless --dump-vertices $logs/b.bin $a > /dev/null 2>&1; bash $X vkcuda-sim --headless --dump-vertices $logs/n.bin $a > /dev/null 2>&1
  echo "vulkan grid $g dump: $(cmp $logs/b.bin $logs/n.bin >/dev/null 2>&1 && echo identical || echo DIFFER)"
done
VKSIM_VALIDATION=1 VKSIM_REQUIRE_CUDA=1 timeout 120 bash $X gpu_tests --gtest_filter='*QueueTextureOnGpu*' > $logs/qt.txt 2>&1
echo "QueueTextureOnGpu rc=$? $(el) s: $(grep -E '^\[  PASSED|^\[  FAILED' $logs/qt.txt | tr '\n' ' ') validation IDs: $(grep -c 'VUID\|SYNC-' $logs/qt.txt)"
echo "== (3) N3 bench ($(el) s)"
for t in on off; do for b in vulkan cuda-nvx cuda; do
  fits 60 || { echo "skipped $b texture $t: out of time"; continue; }
  bash $X vkcuda-sim --backend $b bench --texture $t --grids 512,1024,2048,4096,8192 --sync both --wait-strategy poll \
    --frames 120 --json $logs/N3-$b-texture-$t.json > $logs/N3-$b-texture-$t.txt 2>&1
  echo "N3 $b texture $t rc=$? $(el) s"; grep -E "^ +[0-9]+ " $logs/N3-$b-texture-$t.txt | cut -c1-110
done; done
echo "== (4) overlay both ($(el) s)"
for b in cuda-nvx vulkan cuda opencl; do
  fits 40 || { echo "skipped overlay $b: out of time"; continue; }
  sync=timeline; [ $b = opencl ] && sync=binary
  bash $X vkcuda-sim --backend $b bench --overlay both --grids 512,2048 --sync $sync --wait-strategy poll --frames 300 \
    --json $logs/N3-$b-overlay.json > $logs/N3-$b-overlay.txt 2>&1
  echo "N3 $b overlay both rc=$? $(el) s"; grep -E "^ +[0-9]+ " $logs/N3-$b-overlay.txt | cut -c1-130
done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt
tar -C $logs --exclude='*.bin' --exclude='c.csv' -czf $out/runt4.tar.gz .
