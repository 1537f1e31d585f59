#!/usr/bin/env python3
# Samples every thread of a process every PERIOD s until it exits: time, tid, name, state, CPU ticks, last CPU.
import os, sys, time
pid, out, period = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
t0 = time.monotonic(); rows = []
while os.path.exists('/proc/%d' % pid):
    t = time.monotonic() - t0
    try: tids = os.listdir('/proc/%d/task' % pid)
    except OSError: break
    for tid in tids:
        try: s = open('/proc/%d/task/%s/stat' % (pid, tid)).read()
        except OSError: continue
        comm = s[s.index('(') + 1:s.rindex(')')].replace(' ', '_'); f = s[s.rindex(')') + 2:].split()
        rows.append('%.4f %s %s %s %d %s' % (t, tid, comm, f[0], int(f[11]) + int(f[12]), f[36]))
    time.sleep(period)
open(out, 'w').write('\n'.join(rows) + '\n')
