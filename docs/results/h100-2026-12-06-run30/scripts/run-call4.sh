#!/usr/bin/env bash
# Run 30, call 4 (<= 400 s). Issue 41's table, before (afa0d0d, .r/before) and after (main 2da4d82, .gpu) in one
# call: the five rows of the issue at 8192² and 4096², 300-frame headless captures, level of detail on, timeline,
# the two builds alternating, two rounds. What each row computes differs between the builds where the issue says
# so (at afa0d0d only cuda's default route wrote the texture).
set -u
out=${OUT:-/tmp/out}; logs=/tmp/runt; mkdir -p $logs; cd "$(dirname "$0")/.."
started=$(date +%s); el() { echo $(( $(date +%s) - started )); }; X=".gpu/enter.sh"; R=$PWD/.r
[ -f $R/before ] || xz -dk $R/before.xz; chmod +x $R/before
stat() { python3 - "$1" <<'PY'
import csv, sys, statistics as st
r = list(csv.DictReader(open(sys.argv[1])))[30:]
f = [float(x['MsBetweenPresents']) for x in r]; s = sorted(f); m = st.mean(f)
g = lambda c: st.median(float(x[c]) for x in r if x[c] not in ('', 'NA'))
print('frame %.3f  MsSimGpu %.3f  MsRenderGpu %.3f  P99/mean %.3f' % (st.median(f), g('MsSimGpu'), g('MsRenderGpu'), s[int(.99 * (len(s) - 1))] / m))
PY
}
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for r in 1 2; do for g in 8192 4096; do for row in "cuda" "cuda --texture off" "cuda --memory-owner cuda" "cuda-nvx" "vulkan"; do
  for v in before after; do p=vkcuda-sim; [ $v = before ] && p=$R/before
    tag="$(echo $row | tr ' ' '_')-$g-$v-$r"
    timeout 60 bash $X $p --headless --backend $row --grid $g --frames 300 --capture $logs/$tag.csv > $logs/one.txt 2>&1
    rc=$?; printf '%-48s rc=%s %s\n' "$tag" $rc "$(stat $logs/$tag.csv 2>/dev/null)"; [ $rc = 0 ] || tail -2 $logs/one.txt
  done; done; done; echo "round $r ($(el) s)"; done
echo "total $(el) s"
} 2>&1 | tee $logs/summary.txt $out/summary-live.txt
rm -f $logs/one.txt; tar -C $logs -czf $out/runt.tar.gz .
