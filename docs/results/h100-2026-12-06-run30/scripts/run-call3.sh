#!/usr/bin/env bash
# Run 30, call 3 (<= 300 s). Where do the render-queue routes' fixed-frame hitches go (cuda-nvx frames 513 and 586,
# vulkan 549, in every 1,200-frame capture of runs 29 and 30, both builds)? .r/xp = main 0068308 + phase marks
# (VKSIM_X_PHASES=1 prints each frame over 1.5 ms with the time between marks); .r/st = strace, packed.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runp; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
[ -f $R/xp ] || xz -dk $R/xp.xz; chmod +x $R/xp; bash $R/st/enter.sh true
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for cfg in "cuda-nvx 512 off" "cuda-nvx 512 on" "vulkan 512 off" "cuda-nvx 2048 off" "cuda 512 off"; do set -- $cfg
  f=""; [ $3 = on ] && f=--overlay
  VKSIM_X_PHASES=1 timeout 60 bash $X $R/xp --headless --backend $1 --grid $2 --frames 700 $f --capture $logs/xp-$1-$2-$3.csv > $logs/xp-$1-$2-$3.txt 2>&1
  echo "== xp $cfg rc=$? ($(el) s)"; grep XSLOW $logs/xp-$1-$2-$3.txt | head -8
done
echo "== strace, cuda-nvx 512², 700 frames ($(el) s)"
timeout 120 bash $X bash -c "LD_LIBRARY_PATH=$R/st/lib:\$LD_LIBRARY_PATH $R/st/bin/strace -f -tt -T -o $logs/st-nvx.txt env VKSIM_X_PHASES=1 $R/xp --headless --backend cuda-nvx --grid 512 --frames 700 --capture $logs/st-nvx.csv" > $logs/st-run.txt 2>&1
echo "strace rc=$? ($(el) s), $(wc -l < $logs/st-nvx.txt) lines"; grep XSLOW $logs/st-run.txt | head -8
echo "-- syscalls over 0.5 ms after the first frame"
python3 - $logs/st-nvx.txt <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
first = next((i for i, l in enumerate(lines) if 'st-nvx.csv' in l), 0)
for l in lines[first:]:
    m = re.search(r'<(\d+\.\d+)>$', l)
    if m and float(m.group(1)) > 0.0005 and 'futex' not in l and 'poll' not in l and 'nanosleep' not in l: print(l[:220])
PY
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
gzip -9 $logs/st-nvx.txt; tar -C $logs -czf $out/runp.tar.gz .
