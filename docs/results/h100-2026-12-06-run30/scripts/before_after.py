#!/usr/bin/env python3
# Run 30, call 2: issue 42's capture before (afa0d0d) and after (main 2da4d82), each with and without --overlay.
# For each backend, grid and build, over both rounds (frames 50-1199 of each capture, as the issue counted):
# the median frame with and without the overlay and their difference, P99/mean with the overlay (each round), and
# the frames over twice the median with the overlay (each round). Usage: before_after.py FOLDER
import csv, glob, statistics as st, sys
def stats(p):
    v = [float(r['MsBetweenPresents']) for r in list(csv.DictReader(open(p)))[50:]]
    s = sorted(v); md = st.median(v); mn = st.mean(v)
    return md, s[int(.99 * (len(s) - 1))] / mn, sum(x > 2 * md for x in v)
d = sys.argv[1]
print('| H100 | grid | build | median with / without, ms (round 1; round 2) | P99/mean with the overlay | frames over twice the median with it |')
print('| --- | --- | --- | --- | --- | --- |')
for b in ('cuda', 'cuda-nvx', 'vulkan', 'opencl'):
    for g in (512, 2048):
        for v in ('before', 'after'):
            on = [stats('%s/c-%s-%d-%s-on-%d.csv' % (d, b, g, v, r)) for r in (1, 2)]
            off = [stats('%s/c-%s-%d-%s-off-%d.csv' % (d, b, g, v, r)) for r in (1, 2)]
            med = '; '.join('%.3f / %.3f' % (a[0], c[0]) for a, c in zip(on, off))
            print('| %s | %d² | %s | %s | %s | %s |' % (b, g, 'afa0d0d' if v == 'before' else '2da4d82', med,
                  ', '.join('%.3f' % a[1] for a in on), ', '.join(str(a[2]) for a in on)))
