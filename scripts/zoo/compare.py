# compare.py EXPECTED.npz GOT.npz: the largest difference relative to the
# expected output's largest magnitude (OK at most 1e-3; check.sh runs it).
import sys, numpy as np
e = np.load(sys.argv[1]); g = np.load(sys.argv[2])
want = e['out'].astype(np.float64); got = g[g.files[0]].astype(np.float64)
if want.shape != got.shape: print('SHAPE', want.shape, got.shape); sys.exit(1)
scale = max(np.abs(want).max(), 1e-30)
err = np.abs(got - want).max()
print('maxabs %.3g rel %.3g' % (scale, err / scale), 'OK' if err <= 1e-3 * scale else 'MISMATCH')
