#!/usr/bin/env python3
# Run 30: the issue's own measure of a capture (frames 50 on): median, mean, P99, max of MsBetweenPresents,
# P99/mean, frames over twice the median; and the medians of MsCpuFrame and MsRenderGpu if present.
import csv, sys, statistics as st
for p in sys.argv[1:]:
    rows = list(csv.DictReader(open(p)))[50:]
    v = sorted(float(r['MsBetweenPresents']) for r in rows); md = st.median(v); mn = st.mean(v)
    p99 = v[int(.99 * (len(v) - 1))]
    extra = ''
    for c in ('MsCpuFrame', 'MsRenderGpu'):
        if c in rows[0]: extra += '  %s median %.3f' % (c, st.median(float(r[c]) for r in rows if r[c] not in ('', 'NA')))
    print('%-26s n %d median %.3f mean %.3f P99 %.3f max %.3f P99/mean %.3f over 2x median %d%s'
          % (p.split('/')[-1], len(v), md, mn, p99, v[-1], p99 / mn, sum(x > 2 * md for x in v), extra))
