"""A tiny GPT trained on the simulated NeuronCore: token and position
embeddings, two pre-norm transformer blocks (causal self-attention, GELU
MLP), a language-model head and cross-entropy, trained a few AdamW steps on
device "neuron" -- forward, backward and optimizer step all as simulated
kernels -- and the same model trained on the CPU from the same weights and
batches. The losses must agree (TOLERANCE); the script prints both, the
kernels each step ran on the device and their simulated device time.
With --compile the device's model is torch.compile(backend="neuron")d:
AOTAutograd's forward and backward graphs run as fused kernels.

    python3 examples/torch/train_gpt.py [--steps 4] [--config trn2] [--compile]
"""
import argparse
import copy
import math
import os

import torch
import torch.nn.functional as F
from torch import nn

import torch_nsim

import device_training

# fp32 throughout. The device sums rows in another order than the CPU
# (~1e-7 relative per reduction); over a few AdamW steps the losses were
# observed to differ by less than 1e-5. A wrong gradient or update moves
# the loss by far more (one step moves it by ~1e-2).
TOLERANCE = 1e-4


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.proj = nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def attention(self, x, mask):
        b, t, d = x.shape
        split = lambda y: y.view(b, t, self.heads, d // self.heads).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(d // self.heads)) + mask
        y = F.softmax(scores, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x, mask):
        x = x + self.attention(self.ln1(x), mask)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class TinyGPT(nn.Module):
    def __init__(self, vocab=64, d=64, heads=2, layers=2, seq=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx, mask):
        x = self.tok(idx) + self.pos[: idx.shape[1]]
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.ln_f(x))


def cross_entropy(logits, target_one_hot):
    """Mean cross-entropy of next-token targets given as one-hot rows."""
    return -(F.log_softmax(logits, dim=-1) * target_one_hot).sum(-1).mean()


def batches(steps, batch, seq, vocab):
    """Deterministic (input, one-hot target) batches: a noisy counting sequence."""
    g = torch.Generator().manual_seed(1)
    for _ in range(steps):
        start = torch.randint(0, vocab, (batch, 1), generator=g)
        tokens = (start + torch.arange(seq + 1)) % vocab
        noise = torch.rand(tokens.shape, generator=g) < 0.1
        tokens = torch.where(noise, torch.randint(0, vocab, tokens.shape, generator=g), tokens)
        yield tokens[:, :-1], F.one_hot(tokens[:, 1:], vocab).float()


def train(model, device, data, mask, lr, foreach, on_step=None, compiled=False):
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01, foreach=foreach)
    if compiled:
        model = torch.compile(model, backend="neuron")
    mask = mask.to(device)
    return device_training.fit(
        model, opt, data, lambda m, b: cross_entropy(m(b[0].to(device), mask), b[1].to(device)), on_step)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default=os.environ.get(torch_nsim.CONFIG_ENV, "trn2"))
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--foreach", action="store_true", help="AdamW's foreach (multi-tensor) implementation")
    p.add_argument("--compile", action="store_true", help="torch.compile(backend='neuron') the device's model")
    args = p.parse_args(argv)
    torch_nsim.set_config(args.config)

    torch.manual_seed(0)
    model = TinyGPT(seq=args.seq)
    mask = torch.full((args.seq, args.seq), float("-inf")).triu(1)
    data = list(batches(args.steps, args.batch, args.seq, 64))

    cpu_losses = train(copy.deepcopy(model), "cpu", data, mask, args.lr, args.foreach)
    dev_losses, per_step = device_training.train_on_device(lambda on_step: train(
        copy.deepcopy(model), "neuron", data, mask, args.lr, args.foreach, on_step, args.compile))
    title = (f"tiny GPT (2 layers, d=64, vocab 64, seq {args.seq}, batch {args.batch}), AdamW lr={args.lr}, "
             f"foreach={args.foreach}, {'compiled' if args.compile else 'eager'}, config {args.config}")
    device_training.report("train_gpt", title, dev_losses, cpu_losses, per_step, TOLERANCE)


if __name__ == "__main__":
    main()
