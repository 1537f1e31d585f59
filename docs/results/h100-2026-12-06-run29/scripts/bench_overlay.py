#!/usr/bin/env python3
# Run 29: the bench's --overlay both rows side by side. For each JSON: per grid, the row with the overlay and the
# one without: P50 on / off and the difference, P99/mean of the frame time (host) and of the render ends (GPU),
# and the difference in the render's GPU time.
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path)); rows = d['results']
    for grid in sorted({r['grid'] for r in rows}):
        on = [r for r in rows if r['grid'] == grid and r.get('overlay') == 'on' and r['transfer'] == 'zero-copy']
        off = [r for r in rows if r['grid'] == grid and r.get('overlay') == 'off' and r['transfer'] == 'zero-copy']
        if not on or not off: continue
        a, b = on[0], off[0]
        ge = lambda r: (r['renderEndP99Ms'] / r['meanMs']) if r.get('renderEndP99Ms') is not None else float('nan')
        print('%-28s %-8s %5d  P50 on/off %.3f / %.3f  diff %.3f  P99/mean on %.3f off %.3f  render-end P99/mean on %.3f off %.3f  render GPU diff %.3f'
              % (path.split('/')[-1], a['backend'], grid, a['p50Ms'], b['p50Ms'], a['p50Ms'] - b['p50Ms'],
                 a['p99Ms'] / a['meanMs'], b['p99Ms'] / b['meanMs'], ge(a), ge(b), a['renderGpuMs'] - b['renderGpuMs']))
