#!/usr/bin/env bash
# Session 2026-12-06 #13: issue 42's capture before and after on any card, then call 2's overlay runs if an H200.
cd "$(dirname "$0")/.."; bash .r/run-s3.sh > /dev/null 2>&1; echo "s3 done"; LIMIT=${LIMIT:-400} bash .r/run-s2.sh
