#!/usr/bin/env python3
# Session 2026-12-06 #13: the bench's --overlay both rows, old build (Simulation open at start) beside new (closed).
# Per backend, grid, round: render GPU with minus without the overlay (the draw), the median frame with minus without,
# and P99/mean of the frame with and without the overlay. Usage: ab_overlay.py DIR (bench-B-V-R.json files).
import json, sys, glob, re
rows = []
for path in sorted(glob.glob(sys.argv[1] + '/bench-*.json')):
    m = re.search(r'bench-(.+)-(old|new)-(\d)\.json$', path); b, v, r = m.group(1), m.group(2), int(m.group(3))
    res = json.load(open(path))['results']
    for g in sorted({x['grid'] for x in res}):
        on = [x for x in res if x['grid'] == g and x.get('overlay') == 'on'][0]
        off = [x for x in res if x['grid'] == g and x.get('overlay') == 'off'][0]
        rows.append((b, g, r, v, on['renderGpuMs'] - off['renderGpuMs'], on['p50Ms'] - off['p50Ms'],
                     on['p99Ms'] / on['meanMs'], off['p99Ms'] / off['meanMs'], on.get('overlayVertices'), on.get('hostStealMs'), off.get('hostStealMs')))
print('%-9s %5s %2s %4s %8s %8s %8s %8s %6s %s' % ('backend', 'grid', 'r', 'v', 'drawGPU', 'dP50', 'p99/m+', 'p99/m-', 'verts', 'steal on/off'))
for x in sorted(rows, key=lambda x: (x[0], x[1], x[2], x[3] != 'old')):
    print('%-9s %5d %2d %4s %8.4f %8.4f %8.3f %8.3f %6s %s/%s' % x)
