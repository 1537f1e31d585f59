#!/usr/bin/env python3
# Per thread of a sampler file: CPU seconds used, share of samples running, the CPUs it ran on; then, for the
# main thread's running samples, how often another running thread sat on the same CPU or on its core's sibling.
import sys, collections
topo = {}
for line in open(sys.argv[2]):
    if line[0] != '#': c = line.strip().split(','); topo[c[0]] = c[1]
byt = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, tid, comm, st, ticks, cpu = line.split(); byt[tid].append((float(t), comm, st, int(ticks), cpu))
main = min(byt, key=int)
for tid, s in sorted(byt.items(), key=lambda kv: -(kv[1][-1][3] - kv[1][0][3])):
    used = (s[-1][3] - s[0][3]) / 100.0; dur = s[-1][0] - s[0][0] or 1
    run = sum(x[2] == 'R' for x in s) / len(s); cpus = collections.Counter(x[4] for x in s).most_common(4)
    print('%7s %-16s cpu %.2f s of %.2f s  running %.2f  cpus %s' % (tid, s[0][1], used, dur, run, cpus))
# co-location by sample time (rounded to the sampling pass)
bytime = collections.defaultdict(dict)
for tid, s in byt.items():
    for x in s: bytime[round(x[0], 3)][tid] = x
same = sib = n = 0
for t, d in bytime.items():
    if main not in d or d[main][2] != 'R': continue
    n += 1; mc = d[main][4]
    others = [x for tid, x in d.items() if tid != main and x[2] == 'R']
    same += any(x[4] == mc for x in others); sib += any(x[4] != mc and topo.get(x[4]) == topo.get(mc) for x in others)
print('main running in %d passes: another running thread on its CPU in %d, on its core sibling in %d' % (n, same, sib))
