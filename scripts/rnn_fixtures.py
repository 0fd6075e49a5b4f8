#!/usr/bin/python3
"""RNN/GRU/LSTM regression fixtures for relaxgo's ONNX importer (ir/onnx/ops_rnn.go).

Run from the repository root:

    /usr/bin/python3 scripts/rnn_fixtures.py ir/onnx/testdata/rnn

Needs Debian's python3-onnx and python3-numpy (made with onnx 1.12, numpy 1.24).
It writes one folder per case, <dir>/<name>/, holding model.onnx (one RNN, GRU
or LSTM node, opset 14; W, R and P are initializers, B an initializer or a
graph input as the case says), inputs.npz (keyed by graph input name) and
expected.npz (keyed by graph output name: Y, Y_h and for LSTM Y_c, float32).
TestONNXRecurrent (cmd/relaxgo/rnn_test.go) runs every folder in bytecode and
compiled mode; it needs no Python.

The cases cover what ONNX's node conformance tests leave out: GRU
linear_before_reset=1, B given as a graph input, bidirectional with layout=1,
initial_h/initial_c with layout=1, peepholes with two directions; plus each
kind forward, reverse and bidirectional, with and without B and initial states.
Sizes are tiny and S, B, I, H differ from each other (so a swapped axis shows).

Expected outputs come from a NumPy reference written from the operator spec's
formulas (onnx.ai/onnx/operators: RNN, GRU, LSTM; default activations),
computed in float64 from the float32 inputs and rounded to float32 once. Values
are drawn from a generator seeded by the case name, so a case's data do not
depend on the other cases, and .npz files are written with fixed zip
timestamps, so reruns are byte-identical. Folders of cases no longer listed
are not deleted.
"""
import io
import os
import sys
import zipfile
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def sig(x):
    return 1 / (1 + np.exp(-x))


def reference(kind, X, W, R, B, h0, c0, P, direction, lbr, layout):
    """The operator's outputs, computed in float64 and returned as float32."""
    if layout:  # X (B, S, I), states (B, dirs, H)
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    S, Bt, _ = X.shape
    dirs, GH, _ = W.shape
    H = GH // GATES[kind]
    Y = np.zeros((S, dirs, Bt, H))
    Yh = np.zeros((dirs, Bt, H))
    Yc = np.zeros((dirs, Bt, H))
    for d in range(dirs):
        w, r = W[d].astype(np.float64), R[d].astype(np.float64)
        b = B[d].astype(np.float64) if B is not None else np.zeros(2 * GH)
        wb, rb = b[:GH], b[GH:]
        h = h0[d].astype(np.float64) if h0 is not None else np.zeros((Bt, H))
        c = c0[d].astype(np.float64) if c0 is not None else np.zeros((Bt, H))
        p = P[d].astype(np.float64) if P is not None else np.zeros(3 * H)
        reverse = direction == "reverse" or d == 1
        for i in range(S):
            t = S - 1 - i if reverse else i
            x = X[t].astype(np.float64)
            if kind == "RNN":  # Ht = tanh(Xt*Wi^T + Ht-1*Ri^T + Wbi + Rbi)
                h = np.tanh(x @ w.T + h @ r.T + wb + rb)
            elif kind == "GRU":  # gates z, r, h
                def g(M, k):
                    return M[k * H:(k + 1) * H]
                z = sig(x @ g(w, 0).T + h @ g(r, 0).T + g(wb, 0) + g(rb, 0))
                rr = sig(x @ g(w, 1).T + h @ g(r, 1).T + g(wb, 1) + g(rb, 1))
                if lbr:  # ht = tanh(Xt*Wh^T + (rt (.) (Ht-1*Rh^T + Rbh)) + Wbh)
                    hh = np.tanh(x @ g(w, 2).T + rr * (h @ g(r, 2).T + g(rb, 2)) + g(wb, 2))
                else:  # ht = tanh(Xt*Wh^T + (rt (.) Ht-1)*Rh^T + Rbh + Wbh)
                    hh = np.tanh(x @ g(w, 2).T + (rr * h) @ g(r, 2).T + g(rb, 2) + g(wb, 2))
                h = (1 - z) * hh + z * h
            else:  # LSTM: gates i, o, f, c; peepholes P = [Pi, Po, Pf]
                gates = x @ w.T + h @ r.T + wb + rb
                gi, go, gf, gc = np.split(gates, 4, axis=1)
                pi, po, pf = np.split(p, 3)
                it = sig(gi + pi * c)
                ft = sig(gf + pf * c)
                c = ft * c + it * np.tanh(gc)
                ot = sig(go + po * c)  # the new cell
                h = ot * np.tanh(c)
            Y[t, d] = h
        Yh[d] = h
        Yc[d] = c
    if layout:  # Y (B, S, dirs, H), Y_h/Y_c (B, dirs, H)
        Y = Y.transpose(2, 0, 1, 3)
        Yh = Yh.transpose(1, 0, 2)
        Yc = Yc.transpose(1, 0, 2)
    outs = [Y, Yh] + ([Yc] if kind == "LSTM" else [])
    return [o.astype(np.float32) for o in outs]


def case(name, kind, direction, layout=0, lbr=0, bias="init", h0=False, c0=False, peep=False,
         S=5, B=3, I=2, H=4):
    """bias: "init" (initializer), "input" (graph input) or None (absent)."""
    return dict(name=name, kind=kind, direction=direction, layout=layout, lbr=lbr, bias=bias,
                h0=h0, c0=c0, peep=peep, S=S, B=B, I=I, H=H)


CASES = [
    case("rnn_forward_l0_binit", "RNN", "forward"),
    case("rnn_reverse_l0_binput_h0", "RNN", "reverse", bias="input", h0=True),
    case("rnn_bidir_l1_binit_h0", "RNN", "bidirectional", layout=1, h0=True),
    case("rnn_forward_l1_nobias_b1", "RNN", "forward", layout=1, bias=None, B=1),
    case("gru_forward_l0_lbr0_binit", "GRU", "forward"),
    case("gru_reverse_l1_lbr0_binput_h0", "GRU", "reverse", layout=1, bias="input", h0=True),
    case("gru_bidir_l0_lbr0_binput_h0", "GRU", "bidirectional", bias="input", h0=True),
    case("gru_forward_l0_lbr1_binput", "GRU", "forward", lbr=1, bias="input"),
    case("gru_reverse_l1_lbr1_binit_h0", "GRU", "reverse", layout=1, lbr=1, h0=True),
    case("gru_bidir_l1_lbr1_binit_h0", "GRU", "bidirectional", layout=1, lbr=1, h0=True),
    case("gru_forward_l0_lbr1_nobias_s1", "GRU", "forward", lbr=1, bias=None, h0=True, S=1),
    case("lstm_forward_l0_binit", "LSTM", "forward"),
    case("lstm_reverse_l1_binput_h0c0", "LSTM", "reverse", layout=1, bias="input", h0=True, c0=True),
    case("lstm_bidir_l1_binput_h0", "LSTM", "bidirectional", layout=1, bias="input", h0=True),
    case("lstm_bidir_l0_binit_h0c0_peep", "LSTM", "bidirectional", h0=True, c0=True, peep=True),
    case("lstm_bidir_l1_binput_h0c0_peep", "LSTM", "bidirectional", layout=1, bias="input", h0=True, c0=True, peep=True),
]


def write_npz(path, arrays):
    """np.savez with fixed zip timestamps (byte-identical reruns)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for k, v in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(v), allow_pickle=False)
            z.writestr(zipfile.ZipInfo(k + ".npy", date_time=(1980, 1, 1, 0, 0, 0)), buf.getvalue())


def build(c, out):
    kind, layout, S, Bt, I, H = c["kind"], c["layout"], c["S"], c["B"], c["I"], c["H"]
    G = GATES[kind]
    dirs = 2 if c["direction"] == "bidirectional" else 1
    rng = np.random.default_rng(zlib.crc32(c["name"].encode()))
    f32 = np.float32
    X = rng.standard_normal((Bt, S, I) if layout else (S, Bt, I)).astype(f32)
    W = (rng.standard_normal((dirs, G * H, I)) * 0.5).astype(f32)
    R = (rng.standard_normal((dirs, G * H, H)) * 0.5).astype(f32)
    Bv = (rng.standard_normal((dirs, 2 * G * H)) * 0.5).astype(f32) if c["bias"] else None
    state = (Bt, dirs, H) if layout else (dirs, Bt, H)
    h0 = rng.standard_normal(state).astype(f32) if c["h0"] else None
    c0 = rng.standard_normal(state).astype(f32) if c["c0"] else None
    P = (rng.standard_normal((dirs, 3 * H)) * 0.5).astype(f32) if c["peep"] else None

    inits = [numpy_helper.from_array(W, "W"), numpy_helper.from_array(R, "R")]
    ginputs, feeds = [], {}

    def graph_input(name, v):
        ginputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, v.shape))
        feeds[name] = v

    graph_input("X", X)
    if c["bias"] == "init":
        inits.append(numpy_helper.from_array(Bv, "B"))
    elif c["bias"] == "input":
        graph_input("B", Bv)
    # X, W, R, B, sequence_lens, initial_h, initial_c, P; trailing absent ones dropped.
    names = ["X", "W", "R", "B" if c["bias"] else "", ""]
    if h0 is not None:
        graph_input("initial_h", h0)
    if c0 is not None:
        graph_input("initial_c", c0)
    if P is not None:
        inits.append(numpy_helper.from_array(P, "P"))
    names += ["initial_h" if h0 is not None else "", "initial_c" if c0 is not None else "", "P" if P is not None else ""]
    while names[-1] == "":
        names.pop()

    outn = ["Y", "Y_h"] + (["Y_c"] if kind == "LSTM" else [])
    attrs = dict(hidden_size=H, direction=c["direction"])
    if layout:
        attrs["layout"] = 1
    if kind == "GRU":
        attrs["linear_before_reset"] = c["lbr"]
    node = helper.make_node(kind, names, outn, **attrs)
    want = reference(kind, X, W, R, Bv, h0, c0, P, c["direction"], c["lbr"], layout)
    gouts = [helper.make_tensor_value_info(n, TensorProto.FLOAT, w.shape) for n, w in zip(outn, want)]
    g = helper.make_graph([node], c["name"], ginputs, gouts, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)], producer_name="scripts/rnn_fixtures.py")
    m.ir_version = 7
    onnx.checker.check_model(m, full_check=True)

    d = os.path.join(out, c["name"])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "model.onnx"), "wb") as fp:
        fp.write(m.SerializeToString())
    write_npz(os.path.join(d, "inputs.npz"), feeds)
    write_npz(os.path.join(d, "expected.npz"), dict(zip(outn, want)))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: /usr/bin/python3 scripts/rnn_fixtures.py DIR   (the committed fixtures: ir/onnx/testdata/rnn)")
    out = sys.argv[1]
    for c in CASES:
        build(c, out)
    print(f"{len(CASES)} cases in {out}")


if __name__ == "__main__":
    main()
