#!/usr/bin/env bash
# Run 31 (if an H200 comes): issue 42 part 3's bench on the H200, three rounds; exits at once on any other card.
set -u
out=${OUT:-/tmp/out}; cd "$(dirname "$0")/.."
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "$name" | tee $out/summary-live.txt
case "$name" in *H200*) ;; *) echo "not an H200: nothing run"; exit 0 ;; esac
LIMIT=560 bash .r/run-h200.sh
