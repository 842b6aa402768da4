"""What the training examples share: run a training loop on device "neuron" recording each step's
kernels and simulated device time, then print the losses beside the CPU's and fail (exit non-zero)
when they differ by more than the tolerance or the loss did not decrease."""
import sys
import warnings

import torch

import torch_nsim


def fit(model, opt, data, loss, on_step=None):
    """One optimizer step per batch; loss(model, batch) is the step's loss. The losses, as floats."""
    losses = []
    for batch in data:
        opt.zero_grad()
        value = loss(model, batch)
        value.backward()
        opt.step()
        losses.append(value.item())
        if on_step:
            on_step()
    return losses


def train_on_device(train):
    """Losses of train(on_step) on the device and, per step, (kernels, device time in ps)."""
    per_step = []

    def record():
        torch.neuron.synchronize()
        ex = torch_nsim._C.executions()
        per_step.append((len(ex), sum(ps for _, ps, _ in ex)))
        torch_nsim._C.mark_executions()

    torch.neuron.synchronize()
    torch_nsim._C.mark_executions()
    with warnings.catch_warnings():  # torch.compile names the ops it left out of fused kernels once per graph
        warnings.filterwarnings("ignore", message=r"torch.compile\(backend='neuron'\)")
        losses = train(record)
    return losses, per_step


def report(name, title, dev_losses, cpu_losses, per_step, tolerance):
    print(title)
    print(f"{'step':>4} {'loss (neuron)':>14} {'loss (cpu)':>12} {'kernels':>8} {'device time (us)':>17}")
    for i, (d, c, (kernels, ps)) in enumerate(zip(dev_losses, cpu_losses, per_step)):
        print(f"{i:>4} {d:>14.6f} {c:>12.6f} {kernels:>8} {ps / 1e6:>17.1f}")
    err = max(abs(d - c) for d, c in zip(dev_losses, cpu_losses))
    print(f"losses: max |error| vs CPU = {err:.2e} (tolerance {tolerance:.0e})")
    if not err <= tolerance:
        sys.exit(f"{name}: the device's losses differ from the CPU's by {err:.2e} > {tolerance:.0e}")
    if not dev_losses[-1] < dev_losses[0]:
        sys.exit(f"{name}: the loss did not decrease ({dev_losses[0]:.4f} -> {dev_losses[-1]:.4f})")
