#!/usr/bin/python3
"""Real-model ONNX fixtures for relaxgo's ONNX importer (package ir/onnx).

Run from the repository root:

    /usr/bin/python3 testdata/onnxmodels/make_models.py              # rewrite the committed fixtures
    /usr/bin/python3 testdata/onnxmodels/make_models.py --only decoder
    /usr/bin/python3 testdata/onnxmodels/make_models.py --bench-out /tmp/onnxbench
                          # full-weight exports for node /work/shared/bench/ort/bench.js --dir /tmp/onnxbench
                          # (not committed; does not touch the committed fixtures)

Needs Debian's python3-torch, python3-torchvision, python3-onnx and python3-numpy (made with
torch 1.13, torchvision 0.14, onnx 1.12, numpy 1.24). No network and no pretrained weights:
every model is randomly initialised from fixed seeds, in eval mode, and exported with
torch.onnx.export(opset_version=17, do_constant_folding=True).

For each model it writes <model>/model.onnx, inputs.npz (keyed by the ONNX graph input names),
expected.npz (keyed by the graph output names; torch float32 eager outputs on those inputs) and
meta.json. The .npz files are written with fixed zip timestamps so reruns are byte-identical on
the same machine (torch's CPU kernels may round differently on another CPU; expect last-bit
changes in expected.npz and in the calibrated BatchNorm statistics there).

resnet18 and mobilenet_v2 would be 47 MB and 14 MB: in their committed model.onnx every float
initializer with more than 4096 elements is replaced by an in-graph generator (see gen_values and
README.md), and the torch model is loaded with exactly those values before expected.npz is made.
"""

import argparse
import io
import json
import math
import os
import sys
import zipfile

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 17
SEED = 20261123
ATOL = 1e-3
RTOL = 1e-3
GEN_MIN_ELEMS = 4096  # float initializers with more elements than this are generated in-graph
GEN_M = 1048573  # prime < 2**20: the index is reduced mod this before Sin, so |Sin's argument| < 1.1e4


# ---------------------------------------------------------------- deterministic .npz

def write_npz(path, arrays):
    """Like numpy.savez (uncompressed, entries <key>.npy) but with fixed zip timestamps."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for k, v in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(v), allow_pickle=False)
            zi = zipfile.ZipInfo(k + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_STORED
            zi.external_attr = 0o644 << 16
            z.writestr(zi, buf.getvalue())


# ---------------------------------------------------------------- models

def seeded(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)


class GPTBlock(nn.Module):
    """Pre-LN GPT block with the attention written out (no nn.MultiheadAttention)."""

    def __init__(self, d, nhead, seq):
        super().__init__()
        self.nhead, self.hd = nhead, d // nhead
        self.ln1 = nn.LayerNorm(d)
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        # True above the diagonal: position t may not attend to s > t.
        self.register_buffer("causal", torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1))

    def forward(self, x):
        B, T, D = x.shape
        h = self.ln1(x)
        q = self.q(h).view(B, T, self.nhead, self.hd).transpose(1, 2)  # B,H,T,hd
        k = self.k(h).view(B, T, self.nhead, self.hd).transpose(1, 2)
        v = self.v(h).view(B, T, self.nhead, self.hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hd))
        att = att.masked_fill(self.causal[:T, :T], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, D)
        x = x + self.proj(y)
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return x


class GPTDecoder(nn.Module):
    def __init__(self, vocab=256, d=128, nhead=4, seq=32, nlayer=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.02)
        self.blocks = nn.ModuleList([GPTBlock(d, nhead, seq) for _ in range(nlayer)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        # Scales chosen so that attention scores are O(1) (softmax neither uniform nor one-hot)
        # and logits have std ~1, so the 1e-3 tolerance is meaningful.
        with torch.no_grad():
            self.tok.weight.normal_(0, 1.0)
            self.pos.normal_(0, 0.5)
            for n, p in self.named_parameters():
                if n.endswith(".weight") and p.dim() == 2 and n != "tok.weight":
                    p.normal_(0, 1.0 / math.sqrt(p.shape[1]))
                elif n.endswith(".bias"):
                    p.normal_(0, 0.05)  # non-zero so bias adds are really tested
                elif p.dim() == 1 and n.endswith("weight"):  # LayerNorm gamma
                    p.uniform_(0.8, 1.2)

    def forward(self, ids):
        T = ids.shape[1]
        x = self.tok(ids) + self.pos[:T]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


class FloatIds(nn.Module):
    """Bench-only wrapper: bench.js feeds float32, so take float token ids and cast inside."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x.long())


def build_encoder():
    layer = nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=512, dropout=0.0,
                                       activation="gelu", batch_first=True, norm_first=False)
    enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
    # _get_clones deep-copies one layer, so both layers would start identical: re-initialise
    # every parameter independently; non-zero biases and LayerNorm affine so they are really tested.
    with torch.no_grad():
        for n, p in enc.named_parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
            elif n.endswith("bias"):
                p.normal_(0, 0.02)
            elif ".norm" in n and n.endswith("weight"):
                p.uniform_(0.8, 1.2)
    return enc


def randomize_bn(model, seed, calib_batches=4, batch=8, hw=224):
    """Non-trivial BatchNorm: random gamma/beta, then running stats calibrated on random images
    (train-mode passes with cumulative averaging), so activations stay O(1) through the network."""
    g = torch.Generator().manual_seed(seed)
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    with torch.no_grad():
        for m in bns:
            m.weight.copy_(torch.rand(m.weight.shape, generator=g) * 0.8 + 0.6)
            m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)
            m.reset_running_stats()
            m.momentum = None
        model.train()
        for _ in range(calib_batches):
            model(torch.randn(batch, 3, hw, hw, generator=g))
        for m in bns:
            m.momentum = 0.1
            # keep the stats non-trivial but exact float32 values
            m.running_var.clamp_(min=1e-3)
    model.eval()


# ---------------------------------------------------------------- in-graph weight generator

def gen_params(j, std):
    """Per-tensor generator constants for the j-th generated tensor."""
    p = 40503 + 1298 * j  # multiplier of the index (0 < p < GEN_M, so never a multiple of it)
    a = float(np.float32(0.0101 + 0.000137 * (j % 29)))  # radians per unit of the reduced index
    s = float(np.float32(std * math.sqrt(2.0)))  # Sin of a well-spread phase has std 1/sqrt(2)
    return p, a, s


def gen_values(n, p, a, s, shape):
    """numpy float32 mirror of the ONNX generator (all integer steps exact in int64):
        k1 = Mod(Range(0, n*p, p), M)          # i*p mod M, < 2**20
        k  = Mod(Mul(k1, k1), M)               # (i*p)^2 mod M: the square makes rows/columns
                                               # look independent (a linear phase i*p*a would give
                                               # a rank-2 matrix sin(r*C*t + c*t); see README.md)
        W  = Reshape(Mul(Sin(Mul(Cast<float>(k), a)), s), shape)"""
    k = np.arange(0, n * p, p, dtype=np.int64) % np.int64(GEN_M)
    k = (k * k) % np.int64(GEN_M)
    x = k.astype(np.float32) * np.float32(a)
    return (np.sin(x).astype(np.float32) * np.float32(s)).astype(np.float32).reshape(shape)


def gen_nodes(name, n, p, a, s, shape):
    def c(suffix, arr):
        out = f"gen/{name}/{suffix}"
        return out, helper.make_node("Constant", [], [out], name=out + "_const",
                                     value=numpy_helper.from_array(np.asarray(arr), out))

    nodes = []
    start, n0 = c("start", np.array(0, dtype=np.int64)); nodes.append(n0)
    limit, n1 = c("limit", np.array(n * p, dtype=np.int64)); nodes.append(n1)
    delta, n2 = c("delta", np.array(p, dtype=np.int64)); nodes.append(n2)
    mod, n3 = c("m", np.array(GEN_M, dtype=np.int64)); nodes.append(n3)
    ca, n4 = c("a", np.array(a, dtype=np.float32)); nodes.append(n4)
    cs, n5 = c("s", np.array(s, dtype=np.float32)); nodes.append(n5)
    shp, n6 = c("shape", np.array(shape, dtype=np.int64)); nodes.append(n6)
    t = lambda s_: f"gen/{name}/{s_}"
    nodes += [
        helper.make_node("Range", [start, limit, delta], [t("range")], name=t("Range")),
        helper.make_node("Mod", [t("range"), mod], [t("k1")], name=t("Mod1"), fmod=0),
        helper.make_node("Mul", [t("k1"), t("k1")], [t("k1sq")], name=t("Square")),
        helper.make_node("Mod", [t("k1sq"), mod], [t("k")], name=t("Mod2"), fmod=0),
        helper.make_node("Cast", [t("k")], [t("kf")], name=t("Cast"), to=TensorProto.FLOAT),
        helper.make_node("Mul", [t("kf"), ca], [t("x")], name=t("MulA")),
        helper.make_node("Sin", [t("x")], [t("sin")], name=t("Sin")),
        helper.make_node("Mul", [t("sin"), cs], [t("flat")], name=t("MulS")),
        helper.make_node("Reshape", [t("flat"), shp], [name], name=t("Reshape")),
    ]
    return nodes


def load_generated_weights(model, skip=(), only=None, std=None, j0=0):
    """Replace every float parameter/buffer with > GEN_MIN_ELEMS elements (or just those in
    `only`) by generator values whose std is the torch init's (or `std`).
    Returns {param name: (p, a, s, shape)}."""
    plan = {}
    j = j0
    with torch.no_grad():
        for name, t in list(model.named_parameters()) + list(model.named_buffers()):
            if t.dtype != torch.float32 or t.numel() <= GEN_MIN_ELEMS or name in skip:
                continue
            if only is not None and name not in only:
                continue
            std_ = float(t.std()) if std is None else std
            p, a, s = gen_params(j, std_)
            j += 1
            shape = list(t.shape)
            t.copy_(torch.from_numpy(gen_values(t.numel(), p, a, s, shape)))
            plan[name] = (p, a, s, shape)
    return plan


def rewrite_with_generators(mp, model, plan):
    """Replace the matching large initializers in the exported ONNX model by generator subgraphs."""
    by_shape = {}
    sd = dict(list(model.named_parameters()) + list(model.named_buffers()))
    for pname, (p, a, s, shape) in plan.items():
        by_shape.setdefault(tuple(shape), []).append((pname, sd[pname].detach().numpy()))
    g = mp.graph
    keep, new_nodes, done = [], [], []
    for init in g.initializer:
        arr = numpy_helper.to_array(init)
        if init.data_type != TensorProto.FLOAT or arr.size <= GEN_MIN_ELEMS:
            keep.append(init)
            continue
        match = [pn for pn, v in by_shape.get(arr.shape, []) if np.array_equal(v, arr)]
        if len(match) != 1:
            raise SystemExit(f"initializer {init.name} {arr.shape}: {len(match)} matching generated params "
                             "(the exporter transformed it?)")
        p, a, s, shape = plan[match[0]]
        new_nodes += gen_nodes(init.name, arr.size, p, a, s, shape)
        done.append((init.name, match[0]))
    if len(done) != len(plan):
        raise SystemExit(f"only {len(done)} of {len(plan)} generated params found as initializers")
    del g.initializer[:]
    g.initializer.extend(keep)
    old = list(g.node)
    del g.node[:]
    g.node.extend(new_nodes + old)
    return done


# ---------------------------------------------------------------- export helpers

def export(model, args, path, input_names, output_names, preserve=False):
    kw = {}
    if preserve:
        # Keep BatchNormalization nodes (EVAL mode would fold BN into the conv weights, which
        # would destroy the generator weights); the model is in eval mode so BN is inference BN.
        kw["training"] = torch.onnx.TrainingMode.PRESERVE
    torch.onnx.export(model, args, path, opset_version=OPSET, do_constant_folding=True,
                      input_names=input_names, output_names=output_names, **kw)


def op_types(mp):
    return sorted({n.op_type for n in mp.graph.node})


def op_counts(mp):
    c = {}
    for n in mp.graph.node:
        c[n.op_type] = c.get(n.op_type, 0) + 1
    return dict(sorted(c.items()))


def count_flops(model, args):
    """2*MACs of Conv2d and Linear layers (attention matmuls are added by the caller)."""
    total = [0]

    def conv_hook(m, i, o):
        total[0] += 2 * o.numel() * (m.in_channels // m.groups) * m.kernel_size[0] * m.kernel_size[1]

    def lin_hook(m, i, o):
        total[0] += 2 * o.numel() * m.in_features

    hs = []
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            hs.append(m.register_forward_hook(conv_hook))
        elif isinstance(m, nn.Linear):
            hs.append(m.register_forward_hook(lin_hook))
    with torch.no_grad():
        model(*args)
    for h in hs:
        h.remove()
    return total[0]


# ---------------------------------------------------------------- model specs

def spec(name):
    """Returns (model, example inputs dict name->np array, output names, description, extra flops)."""
    seeded(SEED)
    g = torch.Generator().manual_seed(SEED + 1)
    if name in ("resnet18", "mobilenet_v2", "squeezenet1_1"):
        model = getattr(torchvision.models, name)(weights=None)
        if name == "squeezenet1_1":
            # torchvision zero-initialises every conv bias: make them non-zero so bias adds are
            # tested (and the final conv's positive so fewer logits are clamped to 0 by its ReLU).
            with torch.no_grad():
                for n, p in model.named_parameters():
                    if n.endswith("bias"):
                        p.normal_(0.3 if n.startswith("classifier") else 0.0, 0.05)
        x = torch.randn(1, 3, 224, 224, generator=g)
        desc = f"torchvision.models.{name}(weights=None), random init (seed {SEED}), eval, x: 1x3x224x224"
        return model, {"input": x}, ["logits"], desc, 0
    if name == "encoder":
        model = build_encoder()
        x = torch.randn(1, 32, 128, generator=g)
        # counted analytically (eager eval takes torch's fused fast path, which the Linear hooks
        # of count_flops do not see): per layer in_proj + out_proj + FF, plus QK^T and AV
        extra = 2 * (2 * 32 * 128 * (3 * 128 + 128 + 2 * 512) + 2 * 2 * 32 * 32 * 128)
        desc = ("nn.TransformerEncoder: 2 post-LN layers, d_model 128, 4 heads, FF 512 GELU, "
                "batch_first, dropout 0; x: 1x32x128")
        return model, {"input": x}, ["last_hidden_state"], desc, extra
    if name == "decoder":
        model = GPTDecoder()
        ids = torch.randint(0, 256, (1, 32), generator=g, dtype=torch.int64)
        extra = 2 * 2 * (2 * 32 * 32 * 128)
        desc = ("GPT-style causal decoder with written-out attention: vocab 256, d 128, 4 heads, "
                "2 pre-LN blocks, MLP 512 GELU, seq 32; input int64 token ids 1x32")
        return model, {"input_ids": ids}, ["logits"], desc, extra
    raise KeyError(name)


MODELS = ["resnet18", "mobilenet_v2", "squeezenet1_1", "encoder", "decoder"]
GENERATED = {"resnet18", "mobilenet_v2"}
HAS_BN = {"resnet18", "mobilenet_v2"}
HEADS = {"resnet18": "fc", "mobilenet_v2": "classifier.1"}


def run_torch(model, inputs):
    with torch.no_grad():
        out = model(*inputs.values())
    return out


def make_fixture(name, outdir):
    model, inputs, out_names, desc, _ = spec(name)
    model.eval()
    plan = None
    head = HEADS.get(name)
    if name in GENERATED:
        plan = load_generated_weights(model, skip={head + ".weight"})
    if name in HAS_BN:
        randomize_bn(model, SEED + 2)
    model.eval()
    if name in GENERATED:
        # The torchvision classifier inits give logits of ~0.05: generate the classifier weight
        # with a std that makes the logits ~N(0,1) on the pooled features of the fixture input.
        lin = model.get_submodule(head)
        feats = []
        h = lin.register_forward_hook(lambda m, i, o: feats.append(i[0]))
        run_torch(model, inputs)
        h.remove()
        rms = float(feats[0].pow(2).mean().sqrt())
        plan.update(load_generated_weights(model, only={head + ".weight"}, j0=len(plan),
                                           std=1.0 / (rms * math.sqrt(lin.in_features))))
    y = run_torch(model, inputs)
    y2 = run_torch(model, inputs)
    assert torch.equal(y, y2), "torch output not reproducible"
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    export(model, tuple(inputs.values()), path, list(inputs), out_names, preserve=name in HAS_BN)
    mp = onnx.load(path)
    replaced = []
    if plan is not None:
        replaced = rewrite_with_generators(mp, model, plan)
    mp.producer_name = "relaxgo testdata/onnxmodels/make_models.py (torch " + torch.__version__ + ")"
    onnx.checker.check_model(mp, full_check=True)
    onnx.save(mp, path)
    # torch after export must still give the same numbers (export must not have mutated the model)
    y3 = run_torch(model, inputs)
    assert torch.equal(y, y3), "torch output changed after export"
    in_np = {k: v.numpy() for k, v in inputs.items()}
    out_np = {out_names[0]: y.numpy().astype(np.float32)}
    assert [i.name for i in mp.graph.input] == list(in_np), [i.name for i in mp.graph.input]
    assert [o.name for o in mp.graph.output] == list(out_np)
    write_npz(os.path.join(d, "inputs.npz"), in_np)
    write_npz(os.path.join(d, "expected.npz"), out_np)
    n_params = sum(p.numel() for p in model.parameters())
    meta = {
        "model": name,
        "description": desc,
        "inputs": [{"name": k, "shape": list(v.shape), "dtype": str(v.dtype)} for k, v in in_np.items()],
        "outputs": [{"name": k, "shape": list(v.shape), "dtype": str(v.dtype)} for k, v in out_np.items()],
        "tolerance": {"atol": ATOL, "rtol": RTOL, "rule": "abs(got-want) <= atol + rtol*abs(want)"},
        "opset": OPSET,
        "seed": SEED,
        "torch": torch.__version__,
        "torchvision": torchvision.__version__,
        "onnx": onnx.__version__,
        "numpy": np.__version__,
        "export": {"do_constant_folding": True,
                   "training": "PRESERVE (BatchNormalization kept)" if name in HAS_BN else "EVAL"},
        "parameters": n_params,
        "onnx_ops": op_types(mp),
        "onnx_op_counts": op_counts(mp),
        "output_stats": {"min": float(y.min()), "max": float(y.max()), "std": float(y.std())},
    }
    if plan is not None:
        meta["generator"] = {
            "scheme": "k1 = Mod(Range(0, n*p, p), m); W = Reshape(Mul(Sin(Mul(Cast<float>(Mod(Mul(k1, k1), m)), a)), s), shape)",
            "m": GEN_M,
            "min_elements": GEN_MIN_ELEMS + 1,
            "tensors": {init: {"param": pn, "n": int(np.prod(plan[pn][3])), "p": plan[pn][0], "a": plan[pn][1],
                               "s": plan[pn][2], "shape": plan[pn][3]} for init, pn in replaced},
        }
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    sz = {fn: os.path.getsize(os.path.join(d, fn)) for fn in sorted(os.listdir(d))}
    print(f"{name}: ops {op_types(mp)}; sizes {sz}; out {tuple(y.shape)} range [{float(y.min()):.3g}, {float(y.max()):.3g}]"
          + (f"; {len(replaced)} generated tensors" if plan is not None else ""))


def make_bench(name, outdir):
    """Full-weight export in the format of /work/shared/bench/ort/models/manifest.json."""
    model, inputs, out_names, desc, extra = spec(name)
    model.eval()
    if name in HAS_BN:
        randomize_bn(model, SEED + 2)
    model.eval()
    x_name = "input"
    if name == "decoder":  # bench.js feeds float32 only: take float ids, Cast inside the graph
        model = FloatIds(model).eval()
        inputs = {x_name: inputs["input_ids"].float()}
        desc += " (bench variant: float32 ids, Cast to int64 in the graph)"
    y = run_torch(model, inputs)
    path = os.path.join(outdir, name + ".onnx")
    export(model, tuple(inputs.values()), path, [x_name], out_names)  # standard EVAL export (BN folded)
    mp = onnx.load(path)
    onnx.checker.check_model(mp)
    x = inputs[x_name].numpy().astype(np.float32)
    yn = y.numpy().astype(np.float32)
    x.tofile(os.path.join(outdir, f"{name}.0.x.bin"))
    yn.tofile(os.path.join(outdir, f"{name}.0.y.bin"))
    flops = extra if name == "encoder" else count_flops(model, tuple(inputs.values())) + extra
    return {
        "name": name, "onnx": name + ".onnx", "desc": desc, "source": "relaxgo-fixtures-fullsize",
        "gflop": flops / 1e9, "onnx_bytes": os.path.getsize(path), "onnx_ops": [n.op_type for n in mp.graph.node],
        "checks": [{"what": "torch eager", "x": f"{name}.0.x.bin", "x_shape": list(x.shape),
                    "y": f"{name}.0.y.bin", "y_shape": list(yn.shape), "rtol": RTOL, "atol": ATOL,
                    "torch_ok": True, "torch_max_abs_err": 0.0}],
        "time_check": 0, "time_shape": list(x.shape),
    }


def make_gen_check(name, fixtures, outdir):
    """Generator-only model (no inputs; outputs = the generated weights) plus numpy's values of
    them as expected.npz, to measure how far another Sin implementation is from numpy's."""
    mp = onnx.load(os.path.join(fixtures, name, "model.onnx"))
    with open(os.path.join(fixtures, name, "meta.json")) as f:
        gens = json.load(f)["generator"]["tensors"]
    nodes = [n for n in mp.graph.node if n.name.startswith("gen/")]
    outs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, v["shape"]) for k, v in gens.items()]
    g = helper.make_model(helper.make_graph(nodes, name + "_weights", [], outs),
                          opset_imports=[helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(g)
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    onnx.save(g, os.path.join(d, "model.onnx"))
    write_npz(os.path.join(d, "expected.npz"),
              {k: gen_values(v["n"], v["p"], v["a"], v["s"], v["shape"]) for k, v in gens.items()})
    print(f"{name}: {len(gens)} generated tensors -> {d}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", help="comma-separated subset of " + ",".join(MODELS))
    ap.add_argument("--out", default=HERE, help="fixture directory (default: this script's folder)")
    ap.add_argument("--bench-out", help="write full-weight bench exports + manifest.json here instead")
    ap.add_argument("--gen-check", metavar="DIR",
                    help="write generator-only models of the committed resnet18/mobilenet_v2 and numpy's "
                         "weights, for: node check_ort.js --tol 1e-6 DIR/resnet18 DIR/mobilenet_v2")
    a = ap.parse_args()
    names = a.only.split(",") if a.only else MODELS
    torch.set_num_threads(1)  # one thread: reproducible reductions
    if a.gen_check:
        for n in sorted(GENERATED):
            make_gen_check(n, a.out, a.gen_check)
        return
    if a.bench_out:
        os.makedirs(a.bench_out, exist_ok=True)
        entries = [make_bench(n, a.bench_out) for n in names]
        man = {"opset": OPSET, "torch": torch.__version__, "onnx": onnx.__version__, "models": entries}
        with open(os.path.join(a.bench_out, "manifest.json"), "w") as f:
            json.dump(man, f, indent=1)
        for e in entries:
            print(f"{e['name']}: {e['onnx_bytes'] / 1e6:.1f} MB, {e['gflop']:.3f} GFLOP")
        return
    for n in names:
        make_fixture(n, a.out)


if __name__ == "__main__":
    main()
