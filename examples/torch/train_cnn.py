"""A small CNN trained on the simulated NeuronCore: two convolutions (3x3,
padding 1), batch norm, ReLU, average pooling, global average pooling and a
linear classifier, fitted to one batch for a few SGD-with-momentum steps on device "neuron"
-- convolutions as im2col copies and TensorE matmuls, their backward as the
transposed matmuls and col2im adds, batch norm's statistics per channel --
and the same model trained on the CPU from the same weights and batches. The
losses must agree (TOLERANCE); the script prints both, the kernels each step
ran on the device and their simulated device time. With --compile the
device's model is torch.compile(backend="neuron")d.

    python3 examples/torch/train_cnn.py [--steps 4] [--config trn2] [--compile]
"""
import argparse
import copy
import os

import torch
import torch.nn.functional as F
from torch import nn

import torch_nsim

import device_training

# fp32 throughout: the device sums in another order than the CPU (~1e-7
# relative per reduction); a wrong gradient moves the loss by far more.
TOLERANCE = 1e-4


class SmallCNN(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        x = F.avg_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.bn2(self.conv2(x)))
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def cross_entropy(logits, target_one_hot):
    return -(F.log_softmax(logits, dim=-1) * target_one_hot).sum(-1).mean()


def batches(steps, batch, size, classes):
    """One deterministic (image, one-hot label) batch, every step (fitting it must lower the loss):
    noise plus a class-dependent pattern."""
    g = torch.Generator().manual_seed(1)
    pattern = torch.randn(classes, 3, size, size, generator=g)
    labels = torch.randint(0, classes, (batch,), generator=g)
    images = pattern[labels] + 0.5 * torch.randn(batch, 3, size, size, generator=g)
    return [(images, F.one_hot(labels, classes).float())] * steps


def train(model, device, data, lr, on_step=None, compiled=False):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    if compiled:
        model = torch.compile(model, backend="neuron")
    return device_training.fit(model, opt, data, lambda m, b: cross_entropy(m(b[0].to(device)), b[1].to(device)),
                               on_step)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--config", default=os.environ.get(torch_nsim.CONFIG_ENV, "trn2"))
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--size", type=int, default=16, help="image height and width")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--compile", action="store_true", help="torch.compile(backend='neuron') the device's model")
    args = p.parse_args(argv)
    torch_nsim.set_config(args.config)

    torch.manual_seed(0)
    model = SmallCNN()
    data = list(batches(args.steps, args.batch, args.size, 10))
    cpu_losses = train(copy.deepcopy(model), "cpu", data, args.lr)
    dev_losses, per_step = device_training.train_on_device(
        lambda on_step: train(copy.deepcopy(model), "neuron", data, args.lr, on_step, args.compile))
    title = (f"small CNN (2 conv + batch norm, {args.size}x{args.size} RGB, batch {args.batch}), SGD lr={args.lr}, "
             f"{'compiled' if args.compile else 'eager'}, config {args.config}")
    device_training.report("train_cnn", title, dev_losses, cpu_losses, per_step, TOLERANCE)


if __name__ == "__main__":
    main()
