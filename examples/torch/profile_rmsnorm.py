"""The RMSNorm profiling study (shared/reference/seed-study.md) as a PyTorch
user writes it, on the simulated NeuronCore: RMSNorm over a 4x512 bf16
input three ways — op by op, torch.nn.functional.rms_norm, and
torch.compile(backend="neuron") — each profiled with
schedule(wait=2, warmup=1, active=1), torch.neuron.synchronize() in the loop,
DEVICE and RUNTIME modes on NC 0, and its key_averages() table printed.

    python3 examples/torch/profile_rmsnorm.py [--config trn2] [--out DIR] [--no-device-capture]
"""
import argparse
import os
import sys


import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

import torch_nsim
from torch_nsim.profiler import NeuronConfig, NeuronProfiler, ProfileMode

EPS = 1e-6
# Each path rounds to bf16 (8 significant bits) after up to six steps: a few
# units of 2^-8 of the largest output; a wrong value is off by far more.
BF16_TOLERANCE = 2 ** -5


def rmsnorm_op_by_op(x, w):
    x_sq = x * x                              # aten::mul
    mean_sq = x_sq.mean(-1, keepdim=True)     # aten::mean
    shifted = mean_sq + EPS                   # aten::add (the scalar starts on the CPU)
    inv = torch.rsqrt(shifted)                # aten::rsqrt
    return x * inv * w                        # aten::mul (normalise), aten::mul (scale)


def rmsnorm_fused(x, w):
    return F.rms_norm(x, [x.shape[-1]], w, EPS)


rmsnorm_compiled = torch.compile(rmsnorm_op_by_op, backend="neuron", fullgraph=True)


def run(name, fn, x, w, args):
    cfg = NeuronConfig(
        modes=[ProfileMode.RUNTIME] + ([ProfileMode.DEVICE] if args.device_capture else []),
        capture_enabled_for_nc="0",
        correlate_device_time=True,
        profile_output_dir=os.path.join(args.out, name.replace(" ", "_")),
    )
    with profile(
        activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1],
        schedule=schedule(wait=2, warmup=1, active=1),
        experimental_config=cfg,
        on_trace_ready=NeuronProfiler(cfg).export_trace,
    ) as prof:
        for _ in range(4):
            y = fn(x, w)
            torch.neuron.synchronize()
            prof.step()
    print(f"\n=== {name} ===")
    print(prof.key_averages().table(sort_by="self_privateuse1_time_total", row_limit=-1))
    return prof, y


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default=os.environ.get(torch_nsim.CONFIG_ENV, "trn2"))
    p.add_argument("--shape", default="4,512")
    p.add_argument("--out", default="profile_output/torch_rmsnorm")
    p.add_argument("--no-device-capture", dest="device_capture", action="store_false")
    args = p.parse_args()
    torch_nsim.set_config(args.config)

    shape = [int(s) for s in args.shape.split(",")]
    torch.manual_seed(0)
    x_cpu = torch.randn(shape, dtype=torch.bfloat16)
    w_cpu = torch.randn(shape[-1], dtype=torch.bfloat16)
    x, w = x_cpu.to("neuron"), w_cpu.to("neuron")

    reference = rmsnorm_op_by_op(x_cpu.float(), w_cpu.float())
    for name, fn in [("op by op", rmsnorm_op_by_op), ("rms_norm", rmsnorm_fused), ("compiled", rmsnorm_compiled)]:
        _, y = run(name, fn, x, w, args)
        err = (y.cpu().float() - reference).abs().max().item()
        print(f"{name}: max |error| vs CPU fp32 reference = {err:.4f} (bf16 rounding)")
        bound = BF16_TOLERANCE * max(1.0, reference.abs().max().item())
        if not err <= bound:
            sys.exit(f"profile_rmsnorm: {name} differs from the CPU reference by {err:.4f} (more than {bound:.4f})")
    print(f"\nwall time spent simulating: {torch_nsim.wall_time()['simulate_seconds']:.3f} s "
          f"(real time; all times in the tables' NEURON columns are simulated device time)")


if __name__ == "__main__":
    main()
