# Compares raw vertex dumps (--dump-vertices: 8 float32 a vertex, position
# xyzw then normal xyzw) pairwise: the largest difference in the positions'
# x, y, z and the normals' x, y, z, and how many floats differ at all.
import sys
from array import array

def load(path):
    values = array('f')
    values.frombytes(open(path, 'rb').read())
    return values

dumps = {name: load(name + '.bin') for name in sys.argv[1:]}
names = sys.argv[1:]
for i, first in enumerate(names):
    for second in names[i + 1:]:
        a, b = dumps[first], dumps[second]
        largest = [0.0, 0.0]
        differing = 0
        for k in range(len(a)):
            d = abs(a[k] - b[k])
            differing += d > 0
            if k % 8 < 3:
                largest[0] = max(largest[0], d)
            elif 4 <= k % 8 < 7:
                largest[1] = max(largest[1], d)
        print(first, second, 'max position diff', largest[0], 'max normal diff', largest[1],
              'floats differing', differing, 'of', len(a))
