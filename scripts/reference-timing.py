#!/usr/bin/env python3
"""Times a PyTorch SoftShape built from ../shared/reference/softshape-reference-notes.md.

The authors' repository is not available on this project's machines, so this is a
model written from the notes' code-level spec of the authors' SoftShapeNet
(models/SoftShapeModel.py at 79b3b47): Conv1d shape embedding, zero positional
embedding + dropout, one shared attention head Linear(d,8)-Tanh-Linear(8,1)-Sigmoid,
RMSNorm via F.normalize, per layer norm1/score/Inception (bottleneck + k=39/19/9 +
max-pool branch, InstanceNorm1d, GELU) and, in merging layers, top-k + sort with the
dropped complement found by a per-sample Python loop, the fused token as the sum of
the dropped score-weighted tokens appended last, and one MoE shared by all layers
(zero-initialised router, top-1, gate p/(p+1e-6), Shazeer-style sparse dispatch to
Linear-GELU-Dropout-Linear experts, residual, RMSNorm, GELU, cv² aux loss); head
Linear(d,C) per token, pooled by the final scores. It reproduces the notes' parameter
count (239,635 at C=2, L=500, m=16, q=4), which the script checks.

It times what the notes' §4 times, at the same configuration (batch 16, L=500, C=2,
m=16, q=4, d=128, depth 2, η=0.5): a training step (forward, backward, Adam) of the
warm-up (dense) path and of the sparse path, and an inference forward (no_grad), each
with 1 and 2 intra-op threads, median and minimum over --steps steps after warm-up.
Same-machine figures for the Go benchmarks' ratios (docs/performance.md, "Speed, and what to compare it with").

    apt-get install python3-torch        # Debian 12: torch 1.13, as the notes used
    python3 scripts/reference-timing.py [--steps 30] [--threads 1,2] [--json FILE]
"""
import argparse
import json
import math
import statistics
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def rms_norm(x, gamma):
    return F.normalize(x, dim=-1) * gamma * math.sqrt(x.shape[-1])


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return rms_norm(x, self.gamma)


class Inception(nn.Module):
    """The 'shared expert': ni=128 channels, nf=32, kernels 39/19/9, along the token axis."""

    def __init__(self, ni=128, nf=32):
        super().__init__()
        self.bottleneck = nn.Conv1d(ni, nf, 1, bias=False)
        self.convs = nn.ModuleList([nn.Conv1d(nf, nf, k, padding=k // 2, bias=False) for k in (39, 19, 9)])
        self.pool = nn.MaxPool1d(3, stride=1, padding=1)
        self.pool_conv = nn.Conv1d(ni, nf, 1, bias=False)
        self.norm = nn.InstanceNorm1d(4 * nf)

    def forward(self, v):  # v: [B, n, d]
        x = v.transpose(1, 2)
        b = self.bottleneck(x)
        y = torch.cat([c(b) for c in self.convs] + [self.pool_conv(self.pool(x))], dim=1)
        return F.gelu(self.norm(y)).transpose(1, 2)


class Expert(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc1, self.fc2, self.drop = nn.Linear(d, d), nn.Linear(d, d), nn.Dropout(0.15)

    def forward(self, x):
        return self.fc2(self.drop(F.gelu(self.fc1(x))))


def cv_squared(x):
    if x.shape[0] == 1:
        return torch.zeros((), dtype=x.dtype)
    x = x.float()
    return x.var() / (x.mean() ** 2 + 1e-10)


class MoE(nn.Module):
    """Top-1 MoE over flattened tokens with sparse (per-expert) dispatch."""

    def __init__(self, d, experts):
        super().__init__()
        self.w_gate = nn.Parameter(torch.zeros(d, experts))
        self.experts = nn.ModuleList([Expert(d) for _ in range(experts)])
        self.norm = RMSNorm(d)

    def forward(self, v):  # v: [B, n, d]
        B, n, d = v.shape
        vt = v.reshape(B * n, d)
        p = F.softmax(vt @ self.w_gate, dim=1)
        top_p, top_i = p.topk(min(2, p.shape[1]), dim=1)
        g = top_p[:, :1] / (top_p[:, :1].sum(1, keepdim=True) + 1e-6)
        gates = torch.zeros_like(p).scatter(1, top_i[:, :1], g)
        # Sparse dispatch: tokens grouped by expert, each expert runs on its own rows.
        nz = torch.nonzero(gates)
        order = nz[:, 1].sort(0).indices
        token_idx, expert_idx = nz[order, 0], nz[order, 1]
        sizes = (gates > 0).sum(0).tolist()
        outs = [e(x) for e, x in zip(self.experts, torch.split(vt[token_idx], sizes, dim=0))]
        stitched = torch.cat(outs, 0) * gates[token_idx, expert_idx].unsqueeze(1)
        y = torch.zeros_like(vt).index_add(0, token_idx, stitched)
        out = F.gelu(self.norm(vt + y)).reshape(B, n, d)
        aux = cv_squared(gates.sum(0)) + cv_squared((gates > 0).sum(0))
        return out, aux


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm1, self.norm2, self.inception = RMSNorm(d), RMSNorm(d), Inception(d, d // 4)

    def forward(self, h, attn, moe, remain):
        u = self.norm1(h)
        s = attn(u)
        if remain >= 1.0:
            u = u * s
            return F.gelu(u + self.inception(self.norm2(u))), torch.zeros(())
        B, n, d = u.shape
        K = math.ceil(remain * n)
        keep = s.squeeze(-1).topk(K, dim=1).indices.sort(dim=1).values
        drop = []
        for b in range(B):  # the complement, per sample, on the CPU (as the notes describe)
            kept = set(keep[b].tolist())
            drop.append([j for j in range(n) if j not in kept])
        drop = torch.tensor(drop, dtype=torch.long)
        w = u * s
        kept_tokens = torch.gather(w, 1, keep.unsqueeze(-1).expand(-1, -1, d))
        fused = torch.gather(w, 1, drop.unsqueeze(-1).expand(-1, -1, d)).sum(1, keepdim=True)
        u = torch.cat([kept_tokens, fused], dim=1)
        v = self.norm2(u)
        m, aux = moe(v)
        return F.gelu(u + m + self.inception(v)), aux


class SoftShape(nn.Module):
    def __init__(self, length, classes, m=16, q=4, d=128, depth=2, eta=0.5):
        super().__init__()
        self.n = int((length - m) / q + 1)
        self.embed = nn.Conv1d(1, d, m, stride=q)
        self.pos = nn.Parameter(torch.zeros(1, self.n, d))
        self.drop = nn.Dropout(0.15)
        self.attn = nn.Sequential(nn.Linear(d, 8), nn.Tanh(), nn.Linear(8, 1), nn.Sigmoid())
        self.layers = nn.ModuleList([Layer(d) for _ in range(depth)])
        self.moe = MoE(d, classes)
        self.head = nn.Linear(d, classes)
        self.ratios = [x.item() for x in torch.linspace(0, eta, depth)]
        for mod in self.modules():
            if isinstance(mod, nn.Linear):
                with torch.no_grad():
                    mod.weight.copy_(torch.randn_like(mod.weight).fmod(2) * 0.02)
                    mod.bias.zero_()

    def forward(self, x, sparse):
        h = self.drop(self.embed(x).transpose(1, 2) + self.pos)
        aux = torch.zeros(())
        for layer, r in zip(self.layers, self.ratios):
            h, a = layer(h, self.attn, self.moe, 1.0 - r if sparse else 1.0)
            aux = aux + a
        h = self.drop(h)
        s = self.attn(h)
        return (self.head(h) * s).mean(1), aux


def timed(fn, steps, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--json", help="also write the results as JSON to this file")
    args = ap.parse_args()
    torch.manual_seed(42)
    L, C = 500, 2
    model = SoftShape(L, C)
    params = sum(p.numel() for p in model.parameters())
    if params != 239635:
        sys.exit(f"parameter count {params} != 239,635 (the notes' count at C=2, L=500, m=16, q=4)")
    x = torch.randn(args.batch, 1, L)
    y = torch.arange(args.batch) % C
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def train_step(sparse):
        def step():
            opt.zero_grad()
            logits, aux = model(x, sparse)
            loss = F.cross_entropy(logits, y) + 0.001 * aux
            loss.backward()
            opt.step()
        return step

    def infer(sparse):
        def run():
            with torch.no_grad():
                model(x, sparse)
        return run

    results = {"torch": torch.__version__, "params": params, "batch": args.batch, "timings": []}
    print(f"torch {torch.__version__}, {params} parameters, batch {args.batch}, L={L}, C={C}, m=16, q=4, d=128, depth 2, eta 0.5")
    print(f"{'threads':>7}  {'what':<22} {'median ms':>9} {'min ms':>7}")
    for threads in [int(t) for t in args.threads.split(",")]:
        torch.set_num_threads(threads)
        for what, fn in [("train step, dense", train_step(False)), ("train step, sparse", train_step(True)),
                         ("inference, dense", infer(False)), ("inference, sparse", infer(True))]:
            model.train(what.startswith("train"))
            med, lo = timed(fn, args.steps)
            print(f"{threads:>7}  {what:<22} {med:9.1f} {lo:7.1f}")
            results["timings"].append({"threads": threads, "what": what, "median_ms": med, "min_ms": lo})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
