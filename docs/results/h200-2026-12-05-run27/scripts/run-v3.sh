#!/usr/bin/env bash
# Session 2026-12-05h (run 27), call 3 (an H100, warm after call 2), run inline as one command line:
# B (205f61d), N (level 0 from shared memory) and N2 (level 0 paired in registers), cuda and cuda-nvx, 8192² and 4096²,
# texture on, 300 frames, two rounds, the three builds in turn; median frame and MsSimGpu of frames 30-299.
R=$PWD/.run4; for b in B N; do [ -f $R/$b ] || xz -dk $R/$b.xz; chmod +x $R/$b; done; logs=/tmp/v3; mkdir -p $logs; st() { python3 -c "
import csv,sys,statistics as s
r=list(csv.DictReader(open(sys.argv[1])))[30:]
c=lambda n:[float(x[n]) for x in r if x.get(n) not in (None,'','NA')]
print('p50=%.3f sgpu=%.3f'%(s.median(c('MsBetweenPresents')),s.median(c('MsSimGpu'))))" $1; }; nvidia-smi --query-gpu=name --format=csv,noheader; for g in 8192 4096; do for be in cuda cuda-nvx; do for r in 1 2; do for w in B N N2; do bin=$R/$w; [ $w = N2 ] && bin=vkcuda-sim; rm -f $logs/c.csv; timeout 30 bash .gpu/enter.sh $bin --headless --backend $be --grid $g --frames 300 --texture on --capture $logs/c.csv > /dev/null 2>&1; echo "$w $be $g r$r rc=$? $(st $logs/c.csv 2>&1 | tail -1)"; done; done; done; done 2>&1 | tee $OUT/v3.txt
