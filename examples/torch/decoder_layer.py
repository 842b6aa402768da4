"""One Llama-style decoder layer on the simulated NeuronCore, eager and
torch.compile(backend="neuron"), each profiled (one recorded step) with its
key_averages() table: RMSNorm, Q/K/V projections, rotary embedding, causal
attention with softmax, output projection, SiLU-gated MLP, residuals.

    python3 examples/torch/decoder_layer.py [--config trn2] [--seq 128] [--hidden 256]
"""
import argparse
import math
import os
import sys


import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch.profiler import ProfilerActivity, profile, schedule  # noqa: E402

import torch_nsim  # noqa: E402

# fp32 throughout: the device sums in another order than the CPU (observed
# ~5e-7 at the default size); a wrong value is off by far more.
TOLERANCE = 1e-4


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


class DecoderLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate, eps=1e-6):
        super().__init__()
        self.heads, self.head_dim, self.eps = heads, hidden // heads, eps
        self.input_norm = nn.Parameter(torch.ones(hidden))
        self.post_norm = nn.Parameter(torch.ones(hidden))
        self.q_proj = nn.Linear(hidden, hidden, bias=False)
        self.k_proj = nn.Linear(hidden, hidden, bias=False)
        self.v_proj = nn.Linear(hidden, hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)
        self.gate_proj = nn.Linear(hidden, intermediate, bias=False)
        self.up_proj = nn.Linear(hidden, intermediate, bias=False)
        self.down_proj = nn.Linear(intermediate, hidden, bias=False)

    def attention(self, x, cos, sin, mask):
        s = x.shape[0]
        q = self.q_proj(x).view(s, self.heads, self.head_dim).transpose(0, 1)
        k = self.k_proj(x).view(s, self.heads, self.head_dim).transpose(0, 1)
        v = self.v_proj(x).view(s, self.heads, self.head_dim).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        scores = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(self.head_dim) + mask
        probs = torch.softmax(scores.float(), dim=-1).to(x.dtype)
        out = torch.matmul(probs, v).transpose(0, 1).reshape(s, -1)
        return self.o_proj(out)

    def forward(self, x, cos, sin, mask):
        h = x + self.attention(F.rms_norm(x, [x.shape[-1]], self.input_norm, self.eps), cos, sin, mask)
        n = F.rms_norm(h, [h.shape[-1]], self.post_norm, self.eps)
        return h + self.down_proj(F.silu(self.gate_proj(n)) * self.up_proj(n))


def rotary(seq, dim):
    inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
    freqs = torch.outer(torch.arange(seq).float(), inv)
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos(), emb.sin()


def profiled(name, fn, args):
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1],
                 schedule=schedule(wait=1, warmup=1, active=1)) as prof:
        for _ in range(3):
            out = fn(*args)
            torch.neuron.synchronize()
            prof.step()
    print(f"\n=== decoder layer, {name} ===")
    print(prof.key_averages().table(sort_by="self_privateuse1_time_total", row_limit=25))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default=os.environ.get(torch_nsim.CONFIG_ENV, "trn2"))
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--intermediate", type=int, default=512)
    p.add_argument("--no-device-capture", dest="capture", action="store_false",
                   help="profile without device capture (its per-execution cost)")
    args = p.parse_args()
    torch_nsim.set_config(args.config)
    if not args.capture:
        torch_nsim.profiler.NeuronConfig(modes=[torch_nsim.profiler.ProfileMode.RUNTIME], profile_output_dir="")
        torch_nsim._C.set_neuron_config(["RUNTIME"], "", True, "", False)

    torch.manual_seed(0)
    layer = DecoderLayer(args.hidden, args.heads, args.intermediate).eval()
    x = torch.randn(args.seq, args.hidden)
    cos, sin = rotary(args.seq, args.hidden // args.heads)
    mask = torch.full((args.seq, args.seq), float("-inf")).triu(1)
    with torch.no_grad():
        reference = layer(x, cos, sin, mask)
        dev_layer = layer.to("neuron")
        dev_args = [t.to("neuron") for t in (x, cos, sin, mask)]
        eager = profiled("eager", dev_layer, dev_args)
        compiled_layer = torch.compile(dev_layer, backend="neuron")
        compiled = profiled("torch.compile", compiled_layer, dev_args)
    worst = 0.0
    for name, out in [("eager", eager), ("compiled", compiled)]:
        err = (out.cpu() - reference).abs().max().item()
        print(f"{name}: max |error| vs CPU = {err:.2e}")
        worst = max(worst, err)
    if not worst <= TOLERANCE:
        sys.exit(f"decoder_layer: max |error| {worst:.2e} exceeds {TOLERANCE:.0e}")


if __name__ == "__main__":
    main()
