"""Inputs and expected outputs of the fidelity end-to-end tests.

Run with /usr/bin/python3 (Debian's python3-numpy and python3-torch) from this
directory; it rewrites <case>.in.npz and <case>.want.npz. The expected values
are computed here with NumPy/PyTorch, independently of relaxgo, following the
semantics of TVM's legalization of each op. The Go tests only read the files.
"""
import numpy as np
import torch

rng = np.random.default_rng(20261123)


def save(case, inputs, outputs):
    np.savez(case + ".in.npz", **inputs)
    np.savez(case + ".want.npz", **{"out_%d" % i: o for i, o in enumerate(outputs)})


def quantize(x, s, z, axis, dt):
    """clip(round(x / s) + z) with round half to even, per-tensor or per-channel."""
    info = np.iinfo(dt)
    shape = [1] * x.ndim
    if s.size > 1:
        shape[axis] = -1
    s = s.reshape(shape) if s.size > 1 else s.reshape(())
    zs = [1] * x.ndim
    if z.size > 1:
        zs[axis] = -1
    z = z.reshape(zs) if z.size > 1 else z.reshape(())
    v = x / s
    if x.dtype == np.float16 and s.dtype == np.float16:
        v = v.astype(np.float16)
        v = (np.round(v) + z.astype(np.float16)).astype(np.float16)
    else:
        v = (np.round(v.astype(np.float32)) + z.astype(np.float32)).astype(np.float32)
    return np.clip(v, info.min, info.max).astype(dt)


def dequantize(q, s, z, axis, dt):
    shape = [1] * q.ndim
    if s.size > 1:
        shape[axis] = -1
    s = s.reshape(shape) if s.size > 1 else s.reshape(())
    zs = [1] * q.ndim
    if z.size > 1:
        zs[axis] = -1
    z = z.reshape(zs) if z.size > 1 else z.reshape(())
    sub = (q.astype(np.int32) - z.astype(np.int32)).astype(np.float32)
    out = sub * s.astype(np.float32)
    if dt == np.float16:
        out = np.clip(out, -65504, 65504)
    return out.astype(dt)


def qdq():
    x = (rng.standard_normal((2, 3, 4)) * 3).astype(np.float32)
    x[0, 0, 0] = 0.25  # ties: round half to even
    x[0, 0, 1] = 0.75
    x[1, 2, 3] = 100.0  # clipped
    s = np.array([0.5, 0.1, 0.02], np.float32)
    z = np.array([0, -3, 5], np.int8)
    q = rng.integers(0, 256, (2, 3, 4)).astype(np.uint8)
    s1 = np.array([0.125], np.float32)
    z1 = np.array([128], np.uint8)
    xh = (rng.standard_normal((2, 3, 4)) * 2).astype(np.float16)
    sh = np.array([0.5, 0.25, 0.1, 0.03], np.float16)
    zh = np.array([1, 0, -2, 7], np.int8)
    a = quantize(x, s, z, 1, np.int8)
    e = quantize(xh, sh, zh, -1, np.int8)
    outs = [
        a,
        dequantize(a, s, z, 1, np.float32),
        dequantize(q, s1, z1, -1, np.float16),
        quantize(x, np.array(0.05, np.float32), np.array(3, np.int32), -1, np.uint8),
        e,
        dequantize(e, sh, zh, -1, np.float32),
    ]
    save("qdq", dict(x=x, s=s, z=z, q=q, s1=s1, z1=z1, xh=xh, sh=sh, zh=zh), outs)


if __name__ == "__main__":
    qdq()
