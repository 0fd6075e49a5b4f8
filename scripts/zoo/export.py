# export.py OUT_DIR [name,...]: twenty-one PyTorch models (torchvision's with
# random weights, small GPT-, BERT-, RNN-, U-Net- and audio-style modules)
# exported to ONNX (opset 17) with an input and PyTorch's output each, one
# folder a model, for scripts/zoo/check.sh and scripts/onnx_bench.sh -d.
# Downloads nothing; needs Debian's python3-torch, -torchvision and -onnx.
import sys, os, json
import numpy as np
import torch, torchvision
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
torch.set_num_threads(1)
out = sys.argv[1]
only = set(sys.argv[2].split(',')) if len(sys.argv) > 2 else None

class GPTBlock(nn.Module):
    def __init__(s, d=64, h=4, vocab=100, n=16):
        super().__init__()
        s.emb = nn.Embedding(vocab, d); s.pos = nn.Embedding(n, d)
        s.ln1 = nn.LayerNorm(d); s.ln2 = nn.LayerNorm(d); s.h = h
        s.qkv = nn.Linear(d, 3 * d); s.proj = nn.Linear(d, d)
        s.fc = nn.Linear(d, 4 * d); s.fc2 = nn.Linear(4 * d, d); s.head = nn.Linear(d, vocab)
        s.register_buffer('mask', torch.tril(torch.ones(n, n)).view(1, 1, n, n))
    def forward(s, idx):
        B, T = idx.shape
        x = s.emb(idx) + s.pos(torch.arange(T).unsqueeze(0))
        h = s.ln1(x)
        q, k, v = s.qkv(h).split(h.shape[-1], dim=2)
        hd = q.shape[-1] // s.h
        q = q.view(B, T, s.h, hd).transpose(1, 2); k = k.view(B, T, s.h, hd).transpose(1, 2); v = v.view(B, T, s.h, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / hd ** 0.5)
        att = att.masked_fill(s.mask[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, -1)
        x = x + s.proj(y)
        x = x + s.fc2(F.gelu(s.fc(s.ln2(x)), approximate='tanh'))
        return s.head(x)

class BertLike(nn.Module):
    def __init__(s):
        super().__init__()
        s.emb = nn.Embedding(100, 64)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True, activation='gelu')
        s.enc = nn.TransformerEncoder(layer, 2)
        s.pool = nn.Linear(64, 64)
    def forward(s, idx, mask):
        x = s.enc(s.emb(idx), src_key_padding_mask=mask)
        return torch.tanh(s.pool(x[:, 0]))

class RNNs(nn.Module):
    def __init__(s):
        super().__init__()
        s.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True)
        s.gru = nn.GRU(32, 24, batch_first=True, bidirectional=True)
        s.fc = nn.Linear(48, 5)
    def forward(s, x):
        y, _ = s.lstm(x); y, _ = s.gru(y)
        return s.fc(y[:, -1])

class UNetish(nn.Module):
    def __init__(s):
        super().__init__()
        s.c1 = nn.Conv2d(3, 16, 3, padding=1); s.gn = nn.GroupNorm(4, 16)
        s.c2 = nn.Conv2d(16, 32, 3, stride=2, padding=1); s.inorm = nn.InstanceNorm2d(32, affine=True)
        s.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
        s.c3 = nn.Conv2d(32, 8, 3, padding=1); s.ps = nn.PixelShuffle(2)
    def forward(s, x):
        a = F.silu(s.gn(s.c1(x)))
        b = F.leaky_relu(s.inorm(s.c2(a)), 0.1)
        u = s.up(b)
        c = s.c3(torch.cat([a, u], 1))
        d = F.interpolate(c, scale_factor=2, mode='bilinear', align_corners=False)
        return s.ps(d) + F.interpolate(c, scale_factor=4, mode='nearest')[:, :2]

class Audio(nn.Module):
    def __init__(s):
        super().__init__()
        s.c = nn.Sequential(nn.Conv1d(1, 16, 9, stride=2, padding=4), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
                            nn.Conv1d(16, 32, 5, padding=2, dilation=1, groups=2), nn.Hardswish(), nn.AdaptiveAvgPool1d(8))
        s.fc = nn.Linear(256, 10)
    def forward(s, x):
        return F.log_softmax(s.fc(s.c(x).flatten(1)), -1)

def tv(name, **kw):
    return lambda: getattr(torchvision.models, name)(weights=None, **kw)

img = lambda: (torch.randn(1, 3, 224, 224),)
models = {
    'resnet50': (tv('resnet50'), img),
    'mobilenet_v3_small': (tv('mobilenet_v3_small'), img),
    'mobilenet_v3_large': (tv('mobilenet_v3_large'), img),
    'efficientnet_b0': (tv('efficientnet_b0'), img),
    'shufflenet_v2_x1_0': (tv('shufflenet_v2_x1_0'), img),
    'densenet121': (tv('densenet121'), img),
    'googlenet': (tv('googlenet', aux_logits=False, init_weights=True), img),
    'inception_v3': (tv('inception_v3', aux_logits=False, init_weights=True), lambda: (torch.randn(1, 3, 299, 299),)),
    'alexnet': (tv('alexnet'), img),
    'vgg11_bn': (tv('vgg11_bn'), img),
    'mnasnet0_5': (tv('mnasnet0_5'), img),
    'regnet_y_400mf': (tv('regnet_y_400mf'), img),
    'convnext_tiny': (tv('convnext_tiny'), img),
    'vit_b_16': (tv('vit_b_16'), img),
    'swin_t': (tv('swin_t'), img),
    'fcn_resnet50': (lambda: torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None, aux_loss=False), lambda: (torch.randn(1, 3, 128, 128),)),
    'gpt_block': (lambda: GPTBlock(), lambda: (torch.randint(0, 100, (2, 16)),)),
    'bert_like': (lambda: BertLike(), lambda: (torch.randint(0, 100, (2, 12)), torch.tensor([[False]*10+[True]*2, [False]*12]))),
    'rnns': (lambda: RNNs(), lambda: (torch.randn(2, 7, 16),)),
    'unetish': (lambda: UNetish(), lambda: (torch.randn(1, 3, 32, 32),)),
    'audio': (lambda: Audio(), lambda: (torch.randn(2, 1, 256),)),
}
for name, (mk, inp) in models.items():
    if only and name not in only: continue
    d = os.path.join(out, name); os.makedirs(d, exist_ok=True)
    try:
        m = mk().eval(); x = inp()
        # Zero-initialized layers (ViT's head) would make the output all
        # zeros and the check vacuous: give them small random weights.
        for mod in m.modules():
            if isinstance(mod, nn.Linear) and not mod.weight.detach().any():
                nn.init.normal_(mod.weight, std=0.02)
        with torch.no_grad():
            y = m(*x)
            if isinstance(y, dict): y = y['out']
        names = ['in%d' % i for i in range(len(x))]
        torch.onnx.export(m, x, os.path.join(d, 'model.onnx'), opset_version=17, do_constant_folding=True, input_names=names, output_names=['out'])
        np.savez(os.path.join(d, 'inputs.npz'), **{n: t.numpy() for n, t in zip(names, x)})
        np.savez(os.path.join(d, 'expected.npz'), out=y.numpy())
        print(name, 'ok', tuple(y.shape), float(y.abs().max()))
    except Exception as e:
        print(name, 'EXPORT FAIL', repr(e)[:300])
