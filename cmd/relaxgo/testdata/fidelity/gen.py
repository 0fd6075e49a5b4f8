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


def scatter_elements_ref(data, idx, upd, axis, red):
    """TVM's order: positions outside the axis row-major, then along the axis."""
    out = data.copy()
    axis %= data.ndim
    for pos in np.ndindex(*[1 if d == axis else s for d, s in enumerate(idx.shape)]):
        for k in range(idx.shape[axis]):
            p = list(pos)
            p[axis] = k
            p = tuple(p)
            q = list(p)
            q[axis] = idx[p] % data.shape[axis]
            q = tuple(q)
            u = upd[p]
            if red == "update":
                out[q] = u
            elif red == "add":
                out[q] = out[q] + u
            elif red == "mul":
                out[q] = out[q] * u
            elif red == "mean":
                out[q] = (out[q] + u) / 2
            elif red == "min":
                out[q] = min(out[q], u)
            elif red == "max":
                out[q] = max(out[q], u)
    return out


def scatter():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    ie = np.array([[1, 0, -1, 2], [1, -3, 0, 2]], np.int64)  # duplicates and negatives
    ue = rng.standard_normal((2, 4)).astype(np.float32)
    xi = rng.integers(-5, 6, (3, 4)).astype(np.int32)
    ui = rng.integers(-3, 4, (2, 4)).astype(np.int32)
    d = rng.standard_normal((4, 3)).astype(np.float32)
    ind = np.array([[2], [2]], np.int64)
    un = rng.standard_normal((2, 3)).astype(np.float32)
    ind2 = np.array([[0, 1], [3, 2]], np.int32)
    un2 = np.array([7.5, -1.25], np.float32)
    i0 = np.array([0, 2, 0], np.int64)
    i1 = np.array([1, 3, 1], np.int64)
    j0 = np.array([2, 0, -2], np.int64)
    v = np.array([1.5, 2.0, 4.0], np.float32)
    src = rng.standard_normal((3, 2)).astype(np.float32)
    xh = rng.standard_normal((3, 4)).astype(np.float16)
    uh = rng.standard_normal((2, 4)).astype(np.float16)

    a = scatter_elements_ref(x, ie, ue, 0, "update")
    b = scatter_elements_ref(x, ie, ue, 1, "add")
    # Cross-check the reductions without duplicates-order effects with torch.
    tb = torch.tensor(x).scatter_add(1, torch.tensor(ie % 4), torch.tensor(ue)).numpy()
    assert np.allclose(b, tb, atol=1e-6)
    c = scatter_elements_ref(xi, ie, ui, 0, "mul")
    tc = torch.tensor(xi).scatter_reduce(0, torch.tensor(ie % 3), torch.tensor(ui), "prod").numpy()
    assert (c == tc).all()
    e = scatter_elements_ref(x, ie, ue, -1, "max")
    te = torch.tensor(x).scatter_reduce(1, torch.tensor(ie % 4), torch.tensor(ue), "amax").numpy()
    assert (e == te).all()
    f = scatter_elements_ref(x, ie, ue, 0, "min")
    tf = torch.tensor(x).scatter_reduce(0, torch.tensor(ie % 3), torch.tensor(ue), "amin").numpy()
    assert (f == tf).all()
    g = scatter_elements_ref(x, ie, ue, 1, "mean")
    h = d.copy()
    for i in range(2):
        h[ind[i, 0]] += un[i]
    k = d.copy()
    k[tuple(ind2.T)] = un2
    l = d.copy()
    for i in range(2):
        l[ind[i, 0]] *= un[i]
    m = torch.tensor(x).index_put((torch.tensor(i0), torch.tensor(i1)), torch.tensor(v), accumulate=True).numpy()
    n = x.copy()
    n[j0, i1] = v  # distinct positions: replacement order does not matter
    o = torch.tensor(x).slice_scatter(torch.tensor(src), dim=1, start=1, end=4, step=2).numpy()
    p = scatter_elements_ref(xh, ie, uh, 1, "add")  # float16 arithmetic, rounded per step
    save("scatter", dict(x=x, ie=ie, ue=ue, xi=xi, ui=ui, d=d, ind=ind, un=un, ind2=ind2, un2=un2,
                         i0=i0, i1=i1, j0=j0, v=v, src=src, xh=xh, uh=uh),
         [a, b, c, e, f, g, h, k, l, m, n, o, p])


def misc():
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    c = rng.standard_normal((2, 3)).astype(np.float32)
    ai = rng.integers(-4, 5, (2, 3)).astype(np.int32)
    bounds = np.array([-1.0, 0.0, 0.5, 2.0], np.float32)
    v = np.array([[-2, -1, 0, 0.25, 0.5], [1, 2, 3, -0.5, 2]], np.float32)  # values on boundaries
    seq = rng.standard_normal((3, 4, 2)).astype(np.float32)
    lens = np.array([3, 1, 7], np.int64)
    prob = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.0, 0.25, 0.25]], np.float32)
    u = np.array([[0.35], [0.05], [0.999]], np.float32)
    sidx = np.array([[0], [1], [1]], np.int64)

    fma = (a * b).astype(np.float32) + c
    fi = ai * ai + ai
    k1 = torch.bucketize(torch.tensor(v), torch.tensor(bounds), right=False).numpy()
    k2 = torch.bucketize(torch.tensor(v), torch.tensor(bounds), right=True, out_int32=True).numpy()
    w1 = torch.hamming_window(8, periodic=True, alpha=0.54, beta=0.46).numpy()
    w2 = torch.hamming_window(5, periodic=False, alpha=0.5, beta=0.5).numpy()

    def revseq(x, lens, sa, ba):
        out = x.copy()
        for bi in range(x.shape[ba]):
            n = min(int(lens[bi]), x.shape[sa])
            if n <= 1:
                continue
            src = np.take(x, bi, axis=ba)
            s2 = sa - (1 if sa > ba else 0)
            part = np.flip(np.take(src, range(n), axis=s2), axis=s2)
            idx = [slice(None)] * x.ndim
            idx[ba] = bi
            idx[sa] = slice(0, n)
            out[tuple(idx)] = part
        return out

    r1 = revseq(seq, lens, 1, 0)
    # Cross-check r1 with torch: reverse each batch's prefix.
    t = torch.tensor(seq).clone()
    for bi, n in enumerate(lens):
        n = min(int(n), 4)
        t[bi, :n] = torch.flip(t[bi, :n], [0])
    assert np.array_equal(r1, t.numpy())
    lens4 = np.array([2, 0, 3, 5], np.int32)
    r2 = revseq(seq, lens4, 0, 1)
    st = np.array([3, 4, 2], np.int64)
    cs = np.cumsum(prob, axis=1, dtype=np.float32)
    m = np.array([[min(int(np.searchsorted(cs[sidx[i, 0]], u[i, 0], side="right")), 3)] for i in range(3)], np.int64)
    save("misc", dict(a=a, b=b, c=c, ai=ai, v=v, bounds=bounds, seq=seq, lens=lens, lens4=lens4, prob=prob, u=u, sidx=sidx),
         [fma, fi, k1, k2, w1, w2, r1, r2, st, m, a])


def loss_einsum():
    import torch.nn.functional as F
    pred = rng.standard_normal((4, 5)).astype(np.float32)
    tgt = np.array([1, 2, 4, 0], np.int64)
    w = rng.uniform(0.5, 2, 5).astype(np.float32)
    pred3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    tgt3 = np.array([[0, 2, 1, 1], [2, 2, 0, 1]], np.int32)
    lab = rng.uniform(0, 1, (4, 5)).astype(np.float32)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    bt = rng.standard_normal((5, 2, 3)).astype(np.float32)
    sq = rng.standard_normal((3, 3)).astype(np.float32)
    ia = rng.integers(-5, 6, (2, 3)).astype(np.int32)
    T = torch.tensor
    l1 = F.nll_loss(T(pred), T(tgt), T(w), reduction="mean", ignore_index=2).numpy()
    l2 = F.nll_loss(T(pred), T(tgt), reduction="sum").numpy()
    l3 = F.nll_loss(T(pred), T(tgt), T(w), reduction="none").numpy()
    l4 = F.nll_loss(T(pred3), T(tgt3).long(), reduction="mean").numpy()
    ce = np.float32(-(pred * lab).sum() / 4)
    outs = [l1, l2, l3, l4, ce,
            np.einsum("ij,jk->ik", a, b), np.einsum("bij->bji", bt), np.einsum("ii", sq),
            np.einsum("ii->i", sq), np.einsum("ij,jk->ijk", a, b), np.einsum("ij->ji", ia),
            np.einsum("...ij,jk->...ik", bt, b)]
    outs = [np.asarray(o, dtype=np.int32 if i == 10 else np.float32) for i, o in enumerate(outs)]
    save("loss_einsum", dict(pred=pred, tgt=tgt, w=w, pred3=pred3, tgt3=tgt3, lab=lab, a=a, b=b, bt=bt, sq=sq, ia=ia), outs)


def dynamic():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    x[x < 0.3] = 0
    m = np.array([[True, False, True], [False, False, True]])
    b = np.array([-1, 0], np.int64)
    e = np.array([-10, 10], np.int64)  # clamped
    s = np.array([-1, 3], np.int64)
    t = np.array([6, 2], np.int64)
    outs = [np.stack(np.nonzero(x)).astype(np.int64), np.stack(np.nonzero(m)).astype(np.int64),
            x[-1:-10:-1, 0:10:3], t, x.reshape(6, 2)]
    save("dynamic", dict(x=x, m=m, b=b, e=e, s=s, shp=t), outs)


def view():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = np.array([1.5, -2.0], np.float32)
    outs = [x.reshape(4, 3), x.reshape(-1)[4:8].reshape(2, 2), y.view(np.int32), y.view(np.int32),
            x.reshape(-1).view(np.uint8)[4:12]]
    save("view", dict(x=x, y=y), outs)


def pool3d():
    import torch.nn.functional as F
    x = rng.standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    m = rng.standard_normal((3, 4)).astype(np.float32)
    mi = np.array([[3, 1, 3, 0, 7], [2, 2, 9, 2, 1]], np.int32)  # ties: stable order
    X = torch.tensor(x)
    p1 = F.max_pool3d(X, 2, 2).numpy()
    p2 = F.avg_pool3d(X, 3, 2, 1, count_include_pad=True).numpy()
    p3 = F.avg_pool3d(X, 3, 2, 1, count_include_pad=False).numpy()
    p4 = F.adaptive_avg_pool3d(X, (2, 3, 4)).numpy()
    p5 = F.max_pool3d(X, 3, 1, 1).permute(0, 2, 3, 4, 1).numpy()
    md = torch.tensor(m).median().numpy()
    mv, mix = torch.tensor(m).median(dim=1)
    srt = np.argsort(mi, axis=-1, kind="stable")
    ii = srt[:, (5 - 1) // 2][:, None].astype(np.int64)
    iv = np.take_along_axis(mi, ii, axis=-1)
    outs = [p1, p2, p3, p4, p5, md, mv.numpy(), np.argsort(m, axis=1, kind="stable")[:, 1].astype(np.int64), iv, ii]
    assert np.array_equal(mv.numpy(), np.take_along_axis(m, outs[7][:, None], 1)[:, 0])
    save("pool3d", dict(x=x, m=m, mi=mi), outs)


def conv3d():
    import torch.nn.functional as F
    x = rng.standard_normal((1, 4, 5, 6, 7)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3, 2)).astype(np.float32)
    wt = rng.standard_normal((4, 3, 2, 3, 3)).astype(np.float32)
    X = torch.tensor(x, dtype=torch.float64)
    # asymmetric padding (front 1, back 1; top 0, bottom 0; left 1, right 0): pad explicitly.
    xp = F.pad(X, (1, 0, 0, 0, 1, 1))
    c = F.conv3d(xp, torch.tensor(w, dtype=torch.float64), stride=(2, 2, 1), dilation=(1, 1, 2), groups=2)
    # transpose with symmetric d/h padding 1 and w padding 0.
    t = F.conv_transpose3d(X, torch.tensor(wt, dtype=torch.float64), stride=2, padding=(1, 1, 0),
                           output_padding=(1, 0, 1), groups=2)
    save("conv3d", dict(x=x, w=w, wt=wt), [c.numpy().astype(np.float32), t.numpy().astype(np.float32)])


def affine_grid():
    import torch.nn.functional as F
    theta = rng.standard_normal((2, 2, 3)).astype(np.float32)
    theta3 = rng.standard_normal((1, 3, 4)).astype(np.float32)
    T = torch.tensor(theta, dtype=torch.float64)
    g1 = F.affine_grid(T, (2, 1, 4, 5), align_corners=True).permute(0, 3, 1, 2)
    g2 = F.affine_grid(T, (2, 1, 3, 6), align_corners=False).permute(0, 3, 1, 2)
    g3 = F.affine_grid(torch.tensor(theta3, dtype=torch.float64), (1, 1, 2, 3, 4), align_corners=False).permute(0, 4, 1, 2, 3)
    save("affine_grid", dict(theta=theta, theta3=theta3), [g.numpy().astype(np.float32) for g in (g1, g2, g3)])


def resize3d():
    import torch.nn.functional as F
    x = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    X = torch.tensor(x, dtype=torch.float64)
    a = F.interpolate(X, size=(5, 6, 3), mode="trilinear", align_corners=False)
    b = F.interpolate(X, size=(4, 7, 8), mode="trilinear", align_corners=True)
    c = F.interpolate(X, size=(6, 8, 10), mode="nearest")
    xh = x.astype(np.float16)
    h = F.interpolate(torch.tensor(xh, dtype=torch.float64), size=(5, 6, 3), mode="trilinear", align_corners=False)
    save("resize3d", dict(x=x, xh=xh), [h.numpy().astype(np.float16)] + [t.numpy().astype(np.float32) for t in (a, b, c)])


def grid_sample():
    import torch.nn.functional as F
    x = rng.standard_normal((2, 3, 5, 6)).astype(np.float32)
    g = rng.uniform(-1.3, 1.3, (2, 2, 4, 7)).astype(np.float32)  # some points outside [-1, 1]
    X, G = torch.tensor(x, dtype=torch.float64), torch.tensor(g, dtype=torch.float64).permute(0, 2, 3, 1)
    outs = [F.grid_sample(X, G, mode=m, padding_mode=p, align_corners=a).numpy().astype(np.float32)
            for m, p, a in [("bilinear", "zeros", False), ("bilinear", "border", True), ("bilinear", "reflection", False),
                            ("nearest", "zeros", True), ("bicubic", "zeros", False)]]
    x3 = rng.standard_normal((1, 2, 3, 4, 5)).astype(np.float32)
    g3 = rng.uniform(-1.2, 1.2, (1, 3, 2, 3, 4)).astype(np.float32)
    X3, G3 = torch.tensor(x3, dtype=torch.float64), torch.tensor(g3, dtype=torch.float64).permute(0, 2, 3, 4, 1)
    t1 = F.grid_sample(X3, G3, mode="bilinear", padding_mode="border", align_corners=False)
    t2 = F.grid_sample(X3, G3, mode="nearest", padding_mode="zeros", align_corners=True)
    outs = [t1.numpy().astype(np.float32), t2.numpy().astype(np.float32)] + outs
    save("grid_sample", dict(x=x, g=g, x3=x3, g3=g3), outs)


def roi_align_ref(x, rois, ph, pw, scale, ratio, aligned, mode):
    """TVM topi's roi_align (NCHW), written out in float64."""
    n, c, h, w = x.shape
    out = np.zeros((len(rois), c, ph, pw))

    def bilinear(img, y, xx):
        if y < -1 or xx < -1 or y > h or xx > w:
            return 0.0
        y, xx = min(max(y, 0), h - 1), min(max(xx, 0), w - 1)
        y0, x0 = int(np.floor(y)), int(np.floor(xx))
        v = 0.0
        for yp, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
            for xp, wx in ((x0, 1 - (xx - x0)), (x0 + 1, xx - x0)):
                if 0 <= yp < h and 0 <= xp < w:
                    v += wy * wx * img[yp, xp]
        return v

    for i, r in enumerate(rois.astype(np.float64)):
        b = int(r[0])
        x1, y1, x2, y2 = r[1:] * scale
        rh, rw = y2 - y1, x2 - x1
        if not aligned:
            rh, rw = max(rh, 1.0), max(rw, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = ratio if ratio > 0 else int(np.ceil(rh / ph))
        gw = ratio if ratio > 0 else int(np.ceil(rw / pw))
        for ch in range(c):
            for py in range(ph):
                for px in range(pw):
                    vals = [bilinear(x[b, ch], y1 + py * bh + (ry + 0.5) * bh / gh, x1 + px * bw + (rx + 0.5) * bw / gw)
                            for ry in range(gh) for rx in range(gw)]
                    out[i, ch, py, px] = max(vals) if mode == "max" else sum(vals) / (gh * gw)
    return out.astype(np.float32)


def roi_align():
    x = rng.standard_normal((2, 3, 8, 9)).astype(np.float32)
    rois = np.array([[0, 1.0, 2.0, 7.5, 6.0], [1, -1.0, 0.5, 4.0, 3.0], [1, 3.0, 3.0, 3.4, 3.2]], np.float32)
    a = roi_align_ref(x, rois, 2, 3, 0.5, 2, False, "avg")
    b = roi_align_ref(x, rois, 3, 3, 1.0, -1, True, "max")
    c = roi_align_ref(x, rois, 2, 2, 0.5, 2, False, "avg").transpose(0, 2, 3, 1)
    save("roi_align", dict(x=x, rois=rois), [a, b, c])


def layout():
    """relax.layout_transform: out[m(i)] = x[i], padding filled with pad_value (0 when None)."""
    x = rng.standard_normal((2, 10, 3, 5)).astype(np.float32)
    v = rng.integers(-50, 50, size=16).astype(np.int32)
    a = np.full((2, 3, 3, 5, 4), -1.5, np.float32)
    for i1 in range(10):
        a[:, i1 // 4, :, :, i1 % 4] = x[:, i1]
    b = np.zeros((2, 12, 3, 5), np.float32)
    for i1 in range(3):
        for i4 in range(4):
            b[:, i1 * 4 + i4] = a[:, i1, :, :, i4]
    c = v.reshape(4, 4)
    d = c.reshape(16)
    e = x.transpose(3, 0, 2, 1)
    f = np.full((3, 6), 7, np.int32)
    f.reshape(18)[:16] = v
    save("layout", dict(x=x, v=v), [a, b, c, d, e, f])


def nms_ref(boxes, scores, max_out, iou_thr, score_thr):
    """TVM topi's all_class_non_max_suppression, per batch and class, written out (float32 IoU)."""
    f = np.float32
    nb, nc, n = scores.shape
    sel = []  # (batch, class, box, score) in output order
    for b in range(nb):
        for c in range(nc):
            row = scores[b, c]
            order = sorted(range(n), key=lambda i: -row[i])  # stable: ties keep box order
            cur = [row[i] for i in order]
            valid = sum(1 for v in cur if v > score_thr)
            count = 0
            if iou_thr > 0 and valid > 0:
                for j in range(valid):
                    if not (cur[j] > -1 and count < max_out and cur[j] > score_thr):
                        continue
                    sel.append((b, c, order[j], cur[j]))
                    count += 1
                    for k in range(j + 1, valid):
                        if cur[k] > 0 and iou32(boxes[b, order[j]], boxes[b, order[k]]) >= iou_thr:
                            cur[k] = f(-1)
    onnx = np.zeros((nb * nc * n, 3), np.int64)
    for r, (b, c, i, _) in enumerate(sel):
        onnx[r] = (b, c, i)
    tf_idx = np.zeros((nb, nc * n, 2), np.int64)
    tf_sc = np.zeros((nb, nc * n), np.float32)
    counts = np.zeros((nb,), np.int64)
    for (b, c, i, s) in sel:
        tf_idx[b, counts[b]] = (c, i)
        tf_sc[b, counts[b]] = s
        counts[b] += 1
    return [onnx, np.array([len(sel)], np.int64), tf_idx, tf_sc, counts]


def iou32(a, b):
    f = np.float32
    al, at, ar, ab = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    bl, bt, br, bb = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    w = max(f(0), f(min(ar, br) - max(al, bl)))
    h = max(f(0), f(min(ab, bb) - max(at, bt)))
    area = f(h * w)
    u = f(f(f((ar - al) * (ab - at)) + f((br - bl) * (bb - bt))) - area)
    return f(0) if u <= 0 else f(area / u)


def nms():
    boxes = np.array([[[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [1, 10.1, 0, 11.1], [0, 100, 1, 101]],
                      [[0, 0, 2, 2], [1, 1, 3, 3], [0.5, 0.5, 2.5, 2.5], [5, 5, 6, 6], [5, 5, 6, 6], [0, 0, 0, 0]]], np.float32)
    scores = rng.random((2, 3, 6)).astype(np.float32)
    scores[0, 0] = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]
    scores[1, 1, 3] = scores[1, 1, 4] = 0.8  # a tie
    scores[1, 2] = [-0.5, 0.0, 0.2, 0.2, -2.0, 0.1]
    max_out, iou, thr = np.int64(3), np.float32(0.5), np.float32(0.1)
    save("nms", dict(boxes=boxes, scores=scores, max_out=max_out, iou=iou, thr=thr), nms_ref(boxes, scores, max_out, iou, thr))


if __name__ == "__main__":
    qdq()
    scatter()
    misc()
    loss_einsum()
    dynamic()
    view()
    pool3d()
    conv3d()
    affine_grid()
    resize3d()
    grid_sample()
    roi_align()
    layout()
    nms()
