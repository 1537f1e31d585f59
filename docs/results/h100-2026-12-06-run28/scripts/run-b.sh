#!/usr/bin/env bash
# Session 2026-12-06 (run 28), call B (<= 570 s): sections (3) and (4) of run-w1.sh. M (.gpu) = main c8fcd45; X (.r/X) = M plus three
# environment switches, each off unless set, one change each: VKSIM_X_NO_WINDOW_BG (the overlay's window
# background alpha 0), VKSIM_X_EXPORT_QUEUE_TEXTURE (the render-queue texture image created and allocated
# exportable, dedicated, as the cuda route's), VKSIM_X_QUEUE_TEXTURE_GENERAL (that image kept in GENERAL: no
# layout change around the step's writes), VKSIM_X_CARVEOUT=P (cuda: the textured step's preferred carveout).
# (1) bench --overlay both, every GPU backend, 512² and 2048²; (2) the overlay's draw against the pixels it covers;
# (3) cuda-nvx's textured step against cuda's: exported image, carveout; (4) ncu launch config of the textured step;
# (5) gpu_tests ForeignDisplay and LearnStepsGpu under an Xvfb, validation on.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runb; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; fits() { [ $(( $(el) + $1 )) -lt ${LIMIT:-480} ]; }
R=$PWD/.r; [ -f $R/X ] || xz -dk $R/X.xz; chmod +x $R/X
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
  printf '%-36s rc=%s %s\n' "$tag" $rc "$(capstat $logs/c.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt; }
{
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
echo "== (3) the textured step: cuda-nvx and cuda, 300 frames, texture on ($(el) s)"
for r in 1 2; do for g in 8192 4096; do fits 45 || continue
  one "M cuda-nvx $g r$r" vkcuda-sim --backend cuda-nvx --grid $g --frames 300
  one "X cuda-nvx $g r$r" $R/X --backend cuda-nvx --grid $g --frames 300
  VKSIM_X_EXPORT_QUEUE_TEXTURE=1 one "X cuda-nvx exported image $g r$r" $R/X --backend cuda-nvx --grid $g --frames 300
  VKSIM_X_QUEUE_TEXTURE_GENERAL=1 one "X cuda-nvx GENERAL throughout $g r$r" $R/X --backend cuda-nvx --grid $g --frames 300
  one "X cuda $g r$r" $R/X --backend cuda --grid $g --frames 300
  VKSIM_X_CARVEOUT=14 one "X cuda carveout 14 $g r$r" $R/X --backend cuda --grid $g --frames 300
done; done
echo "== (4) ncu: the textured step's launch ($(el) s)"
M="launch__shared_mem_config_size,launch__shared_mem_per_block_static,launch__occupancy_limit_shared_mem,launch__occupancy_limit_registers,launch__occupancy_per_block_size,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum"
for cfg in "cuda" "cuda-nvx"; do fits 60 || continue
  timeout 45 bash $X /usr/local/cuda/bin/ncu --clock-control none -k regex:rippleStepTexels --launch-skip 5 --launch-count 1 --metrics $M \
    vkcuda-sim --headless --backend $cfg --grid 4096 --frames 12 > $logs/ncu-$cfg.txt 2>&1
  echo "ncu $cfg rc=$? ($(el) s)"; grep -E "launch__|sm__warps|gpu__time|No kernels|==PROF==|==WARNING==" $logs/ncu-$cfg.txt | head -12
done
echo "== (6) compute-sanitizer racecheck, cuda 333², 20 frames ($(el) s)"
fits 60 && { timeout 55 bash $X /usr/local/cuda/bin/compute-sanitizer --tool racecheck vkcuda-sim --headless --backend cuda --grid 333 --frames 20 > $logs/race.txt 2>&1; echo "racecheck rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|hazard' $logs/race.txt | head -3 | tr '\n' ' ')"; }
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs --exclude='*.bin' --exclude='c.csv' -czf $out/runb.tar.gz .

