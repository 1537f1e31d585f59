#!/usr/bin/env bash
# Run 30, call 5 (<= 120 s). Where does the host's extra 0.017 ms with the overlay go on opencl 2048² with the
# texture off (call 2)? .r/xp2 = main 0068308 + phase marks on every path (the patch in the run's folder);
# VKSIM_X_PHASES=2 prints each phase's median over frames 30 on, at exit. Pairs with and without --overlay.
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runq; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
[ -f $R/xp2 ] || xz -dk $R/xp2.xz; chmod +x $R/xp2
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for cfg in "opencl 2048 off" "opencl 512 off" "opencl 2048 on" "cuda 2048 off"; do set -- $cfg
  for o in on off; do f=""; [ $o = on ] && f=--overlay
    VKSIM_X_PHASES=2 timeout 60 bash $X $R/xp2 --headless --backend $1 --grid $2 --frames 1200 --texture $3 $f --capture $logs/q-$1-$2-tex$3-$o-$r.csv > $logs/q-$1-$2-tex$3-$o-$r.txt 2>&1
    echo "== $1 $2 texture $3 overlay $o r$r rc=$? ($(el) s)"; grep XMEDIANS $logs/q-$1-$2-tex$3-$o-$r.txt
  done; done; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
tar -C $logs -czf $out/runq.tar.gz .
