#!/usr/bin/env bash
# Session 2026-12-06 #13: profiling.md's checks on any card, then call 2's overlay runs if the card is an H200.
cd "$(dirname "$0")/.."; bash .r/run-prof.sh > /dev/null 2>&1; echo "prof done"; LIMIT=${LIMIT:-400} bash .r/run-s2.sh
