#!/usr/bin/env bash
# Shell-level check of scripts/plot-capture and scripts/plot-bench: each makes a
# PNG from a small synthetic input, and each refuses a missing or malformed
# input with exit status 2 and one line on stderr.
# Usage: tests/scripts/test_plots.sh   (exit 0 = pass; needs python3-matplotlib)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/vksim-plots.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# A PNG file starts with the 8-byte signature 89 50 4E 47 0D 0A 1A 0A.
expect_png() {
  local file=$1
  if [ ! -s "$file" ]; then
    fail "$file missing or empty"
    return
  fi
  local signature
  signature=$(head -c 8 "$file" | od -An -tx1 | tr -d ' \n')
  [ "$signature" = "89504e470d0a1a0a" ] || fail "$file is not a PNG (starts with $signature)"
}

# Runs a command that must fail with status 2 and exactly one line on stderr.
expect_refusal() {
  local what=$1
  shift
  local status=0
  "$@" >"$work/out" 2>"$work/err" || status=$?
  [ "$status" -eq 2 ] || fail "$what: exit status $status, expected 2"
  [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$what: stderr is not one line: $(cat "$work/err")"
}

# Two captures, the second with a stutter, an NA row and this app's columns.
python3 - "$work" <<'EOF'
import math, sys
work = sys.argv[1]
header = ("Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,Dropped,"
          "TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,MsUntilRenderComplete,"
          "Frame,SyncMode,Backend,Model,Grid,MsCpuFrame,MsRenderGpu,MsSimGpu,MsSimWait,TimelineValue")
for name, base in (("timeline.csv", 16.7), ("binary.csv", 8.3)):
    with open(f"{work}/{name}", "w") as f:
        f.write(header + "\n")
        t = 0.0
        for k in range(200):
            ms = base + 0.5 * math.sin(k / 7.0) + (30.0 if name == "binary.csv" and k == 120 else 0.0)
            t += ms / 1000.0
            present = "NA" if k == 50 else f"{ms:.4f}"
            f.write(f"vkcuda-sim,42,0x0000000000000000,Vulkan,1,0,0,{t:.6f},{present},NA,0.1000,2.0000,"
                    f"{k},timeline,cuda,ripple,512,1.5,2.0,NA,NA,{2 * k + 2}\n")
EOF

cat >"$work/bench.json" <<'EOF'
{"machine": {"gpu": "synthetic", "driver": "0"},
 "results": [
  {"grid": 64,   "vertices": 4096,    "sync": "timeline", "transfer": "zero-copy", "backend": "cuda", "frames": 100, "meanMs": 0.8, "p99Ms": 1.1, "simGpuMs": 0.05, "renderGpuMs": 0.2, "unexplainedMs": 0.55},
  {"grid": 256,  "vertices": 65536,   "sync": "timeline", "transfer": "zero-copy", "backend": "cuda", "frames": 100, "meanMs": 1.0, "p99Ms": 1.3, "simGpuMs": 0.1, "renderGpuMs": 0.4, "unexplainedMs": 0.5},
  {"grid": 1024, "vertices": 1048576, "sync": "timeline", "transfer": "zero-copy", "backend": "cuda", "frames": 100, "meanMs": 2.5, "p99Ms": 3.0, "simGpuMs": 0.6, "renderGpuMs": 1.4, "unexplainedMs": 0.5},
  {"grid": 64,   "vertices": 4096,    "sync": "binary",   "transfer": "copy",      "backend": "cpu",  "frames": 100, "meanMs": 1.2, "p99Ms": 1.9, "simGpuMs": null, "renderGpuMs": 0.2, "unexplainedMs": 1.0},
  {"grid": 256,  "vertices": 65536,   "sync": "binary",   "transfer": "copy",      "backend": "cpu",  "frames": 100, "meanMs": 9.0, "p99Ms": 11.0, "simGpuMs": null, "renderGpuMs": 0.4, "unexplainedMs": 8.6},
  {"grid": 1024, "sync": "binary", "transfer": "copy", "backend": "cpu", "frames": 100, "meanMs": 140.0, "p99Ms": 150.0, "simGpuMs": null, "renderGpuMs": 1.4, "unexplainedMs": 138.6}
 ]}
EOF

"$root/scripts/plot-capture" "$work/timeline.csv" "$work/binary.csv" -o "$work/capture.png" >/dev/null ||
  fail "plot-capture exited $?"
expect_png "$work/capture.png"
"$root/scripts/plot-capture" "$work/timeline.csv" >/dev/null || fail "plot-capture (default output) exited $?"
expect_png "$work/timeline.png"
"$root/scripts/plot-bench" "$work/bench.json" -o "$work/bench-plot.png" >/dev/null || fail "plot-bench exited $?"
expect_png "$work/bench-plot.png"

# The same rows with the switch probe's figures: a budget line per vertex
# count of the zero-copy rows (3), and a malformed switchUs is refused.
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
bench = json.load(open(f"{work}/bench.json"))
for row in bench["results"]:
    row["switchUs"] = {"vulkanToSim": 162.0, "simToVulkan": 166.0, "pair": 328.0} if row["backend"] == "cuda" else None
json.dump(bench, open(f"{work}/bench-switch.json", "w"))
bench["results"][0]["switchUs"] = {"pair": "fast"}
json.dump(bench, open(f"{work}/bad-switch.json", "w"))
EOF
"$root/scripts/plot-bench" "$work/bench-switch.json" -o "$work/bench-switch.png" >"$work/switch.out" ||
  fail "plot-bench with switchUs exited $?"
expect_png "$work/bench-switch.png"
grep -q "budget line: render + sim + 2 switches, 3 point(s)" "$work/switch.out" ||
  fail "plot-bench drew no budget line from switchUs: $(cat "$work/switch.out")"
"$root/scripts/plot-bench" "$work/bench.json" -o "$work/bench-plot.png" >"$work/plain.out"
! grep -q "budget line" "$work/plain.out" || fail "plot-bench drew a budget line without switchUs"
expect_refusal "plot-bench, malformed switchUs" "$root/scripts/plot-bench" "$work/bad-switch.json" -o "$work/x.png"

# Two files, one per backend: the budget bars take the cuda rows' measured
# switches and none for a render-queue backend, and "the rest" is what the
# mean leaves after render, sim and switches (0.8 - 0.2 - 0.05 - 0.328).
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
rows = [{"grid": 64, "sync": "timeline", "transfer": "zero-copy", "waitStrategy": "poll", "backend": "vulkan",
         "frames": 100, "meanMs": 0.5, "p99Ms": 0.6, "simGpuMs": 0.04, "renderGpuMs": 0.2, "unexplainedMs": 0.26}]
json.dump({"machine": {}, "results": rows}, open(f"{work}/bench-vulkan.json", "w"))
EOF
"$root/scripts/plot-bench" "$work/bench-switch.json" "$work/bench-vulkan.json" -o "$work/bench-two.png" \
  >"$work/two.out" || fail "plot-bench with two files exited $?"
expect_png "$work/bench-two.png"
grep -Eq "^ +64 cuda +timeline +0\.800 +0\.200 +0\.050 +0\.328 +0\.222$" "$work/two.out" ||
  fail "plot-bench's budget row for cuda at 64 is wrong: $(cat "$work/two.out")"
grep -Eq "^ +64 vulkan +timeline +0\.500 +0\.200 +0\.040 +0\.000 +0\.260$" "$work/two.out" ||
  fail "plot-bench's budget row for vulkan at 64 is wrong: $(cat "$work/two.out")"

# The same file twice is one configuration twice: refused without labels, two
# series with them, the table's last column naming each bar's label.
expect_refusal "plot-bench, one configuration twice without labels" "$root/scripts/plot-bench" \
  "$work/bench-vulkan.json" "$work/bench-vulkan.json" -o "$work/x.png"
"$root/scripts/plot-bench" "before=$work/bench-vulkan.json" "after=$work/bench-vulkan.json" \
  -o "$work/bench-labels.png" >"$work/labels.out" || fail "plot-bench with labels exited $?"
expect_png "$work/bench-labels.png"
grep -Eq "^ +64 vulkan +timeline +0\.500 .* +before$" "$work/labels.out" && grep -Eq " +after$" "$work/labels.out" ||
  fail "plot-bench's table has no before and after rows: $(cat "$work/labels.out")"

echo "not,a,capture" >"$work/bad.csv"
echo '{"results": [{"grid": 64, "sync": "sometimes", "transfer": "copy", "backend": "cpu", "meanMs": 1}]}' \
  >"$work/bad.json"
echo '{"results": [' >"$work/truncated.json"
expect_refusal "plot-capture, missing file" "$root/scripts/plot-capture" "$work/absent.csv" -o "$work/x.png"
expect_refusal "plot-capture, no frame-time columns" "$root/scripts/plot-capture" "$work/bad.csv" -o "$work/x.png"
expect_refusal "plot-capture, no arguments" "$root/scripts/plot-capture"
expect_refusal "plot-bench, missing file" "$root/scripts/plot-bench" "$work/absent.json" -o "$work/x.png"
expect_refusal "plot-bench, bad sync value" "$root/scripts/plot-bench" "$work/bad.json" -o "$work/x.png"
expect_refusal "plot-bench, truncated JSON" "$root/scripts/plot-bench" "$work/truncated.json" -o "$work/x.png"
expect_refusal "plot-bench, unwritable output" "$root/scripts/plot-bench" "$work/bench.json" -o /nonexistent-dir/x.png
[ ! -e "$work/x.png" ] || fail "a refused run left $work/x.png"
if ls "$work"/*.tmp-* >/dev/null 2>&1; then fail "temporary files left: $(ls "$work"/*.tmp-*)"; fi

if [ "$failures" -ne 0 ]; then
  echo "test_plots: $failures failure(s)" >&2
  exit 1
fi
echo "test_plots: passed"
