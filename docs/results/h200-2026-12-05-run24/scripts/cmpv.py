# cmpv.py A B GRID: where two vertex dumps (8 floats a vertex) differ, and by how many ULPs.
# Compares 64 KiB blocks as bytes first, so that large identical dumps cost little.
import sys, array, struct
A = open(sys.argv[1], 'rb').read(); B = open(sys.argv[2], 'rb').read(); g = int(sys.argv[3])
if len(A) != len(B): print("sizes", len(A), len(B)); sys.exit()
blk = 65536; bad = []
for o in range(0, len(A), blk):
    if A[o:o + blk] != B[o:o + blk]:
        a = array.array('f', A[o:o + blk]); b = array.array('f', B[o:o + blk])
        bad += [(o // 4 + k, a[k], b[k]) for k in range(len(a)) if a[k] != b[k]]
        if len(bad) > 2000000: break
if not bad: print("identical"); sys.exit()
def ordered(x):
    u = struct.unpack('<i', struct.pack('<f', x))[0]
    return u if u >= 0 else -(u & 0x7fffffff)
cells = sorted(set(k // 8 for k, _, _ in bad)); js = [c // g for c in cells]; is_ = [c % g for c in cells]
words = sorted(set(k % 8 for k, _, _ in bad)); ulp = {}; absd = {}
for k, x, y in bad:
    w = k % 8; ulp[w] = max(ulp.get(w, 0), abs(ordered(x) - ordered(y))); absd[w] = max(absd.get(w, 0), abs(x - y))
edge = sum(1 for c in cells if c % g >= (g // 32) * 32)
print("DIFFER %d vertices (%d in columns >= %d), i %d..%d, j %d..%d, words %s, max ulp %s, max abs %s, first %s" % (
    len(cells), edge, (g // 32) * 32, min(is_), max(is_), min(js), max(js), words,
    {w: ulp[w] for w in words}, {w: '%.3g' % absd[w] for w in words}, [(c % g, c // g) for c in cells[:5]]))
