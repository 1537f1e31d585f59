#!/usr/bin/env bash
# One fuzz target's smoke run: every input of its committed corpus once (the
# regression inputs among them), then SECONDS of fuzzing from there. Fails on
# a crash, a sanitizer report, a broken promise (the target aborts) or an
# input slower than the timeout; the input is kept in WORKDIR.
# Usage: smoke.sh TARGET CORPUS WORKDIR SECONDS
set -euo pipefail
target=$1 corpus=$2 workdir=$3 seconds=$4
rm -rf "$workdir"
mkdir -p "$workdir/new"
# New inputs go to WORKDIR/new (libFuzzer writes to its first directory),
# never into the committed corpus. -timeout: an input over 10 s fails the
# run (a slow input is a bug here; 10 s leaves room for a loaded CI machine).
exec "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$workdir/" "$workdir/new" "$corpus" </dev/null
