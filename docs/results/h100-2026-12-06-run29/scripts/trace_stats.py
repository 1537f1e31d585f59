#!/usr/bin/env python3
# Run 29's trace summary. For each run BASE (BASE.csv from --capture, BASE.json from --trace), frames 30 on:
#  - the host's frame time (the capture's MsBetweenPresents: present point to present point; headless, a host time)
#  - the GPU's: from one render's end to the next's (the trace's Render GPU spans, on the host's clock)
#  each as median, P99/mean, and the frames over 1.08 x its median ("slow"); then, on the host's slow frames,
#  the median of each host track's span against all frames, and how many are over twice the median; and how
#  long after its frame's host span began each render started on the GPU (the host's lead), at the median.
import json, sys, csv, statistics as st
def p99_over_mean(v): s = sorted(v); return s[int(.99 * (len(s) - 1))] / st.mean(v)
for base in sys.argv[1:]:
    t = json.load(open(base + '.json'))
    names = {e['tid']: e['args']['name'] for e in t['traceEvents'] if e['ph'] == 'M' and e['name'] == 'thread_name'}
    sp = {}
    for e in t['traceEvents']:
        if e['ph'] == 'X': sp.setdefault(names[e['tid']], {})[e['args']['frame']] = (e['ts'], e['dur'])
    rows = list(csv.DictReader(open(base + '.csv')))
    fr = {int(r['Frame']): r for r in rows}
    R = sp['Render GPU']
    ks = [k for k in sorted(R)[30:] if k - 1 in R and k in fr]
    host = {k: float(fr[k]['MsBetweenPresents']) for k in ks}
    gpu = {k: (R[k][0] + R[k][1] - R[k - 1][0] - R[k - 1][1]) / 1000 for k in ks}
    out = base.split('/')[-1]
    for label, d in (('host', host), ('GPU', gpu)):
        v = list(d.values()); md = st.median(v)
        out += ' | %s median %.3f P99/mean %.3f slow %d' % (label, md, p99_over_mean(v), sum(x > 1.08 * md for x in v))
    print(out)
    H = sp['Host frame']
    lead = [(R[k][0] - H[k][0]) / 1000 for k in ks if k in H]
    print('    the render starts %.3f ms after its frame\'s host span began (median)' % st.median(lead))
    md = st.median(host.values()); slow = [k for k in ks if host[k] > 1.08 * md]
    for track in ('Host frame', 'Host overlay build', 'Host overlay record', 'Render GPU'):
        d = sp.get(track, {}); allv = [d[k][1] for k in ks if k in d]; sv = [d[k][1] for k in slow if k in d]
        if not allv or not sv: continue
        m = st.median(allv)
        print('    %-19s us: median %.1f, on the host\'s slow frames %.1f, %d of %d of those > 2 x median'
              % (track, m, st.median(sv), sum(x > 2 * m for x in sv), len(sv)))
