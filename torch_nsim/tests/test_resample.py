"""Channel shuffle, reflection / replication padding and nearest / linear upsampling on device "neuron"
(torch_nsim/csrc/resample_ops.cc) against the CPU: copies exact, interpolation in fp32 rounded once."""
import pytest
import torch
import torch.nn.functional as F

from torch_testing import executions, mark

X = torch.randn(2, 6, 5, 7, generator=torch.Generator().manual_seed(4))


@pytest.mark.parametrize("fn", [
    lambda x: F.pad(x[:, :, 0], (2, 3), mode="reflect"),
    lambda x: F.pad(x, (2, 1, 4, 3), mode="reflect"),
    lambda x: F.pad(x, (2, 3, 1, 0), mode="replicate"),
    lambda x: F.pad(x[:, :, 0], (4, 6), mode="replicate"),
    lambda x: F.pad(x, (-1, 2, 3, -2), mode="replicate"),
    lambda x: F.channel_shuffle(x, 3),
    lambda x: F.interpolate(x, size=(9, 4), mode="nearest"),
    lambda x: F.interpolate(x, scale_factor=2.5, mode="nearest"),
    lambda x: F.interpolate(x[:, :, 0], size=11, mode="nearest-exact"),
    lambda x: F.interpolate(x, size=(3, 13), mode="nearest-exact"),
], ids=["reflect1d", "reflect2d", "replicate2d", "replicate1d", "replicate_negative", "channel_shuffle",
        "nearest2d", "nearest_scale", "nearest_exact1d", "nearest_exact2d"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_copies_equal_the_cpu_exactly(fn, dtype):
    x = X.to(dtype)
    mark()
    got = fn(x.to("neuron")).cpu()
    assert executions()  # device kernels, timed
    assert torch.equal(got, fn(x))


@pytest.mark.parametrize("fn", [
    lambda x: F.interpolate(x[:, :, 0], size=12, mode="linear"),
    lambda x: F.interpolate(x[:, :, 0], size=4, mode="linear", align_corners=True),
    lambda x: F.interpolate(x, size=(9, 4), mode="bilinear"),
    lambda x: F.interpolate(x, scale_factor=1.7, mode="bilinear", align_corners=True),
], ids=["linear_up", "linear_down_aligned", "bilinear", "bilinear_scale_aligned"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_linear_interpolation_equals_the_cpu(fn, dtype):
    x = X.to(dtype)
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == torch.float32 else dict(rtol=1e-2, atol=1e-2)
    torch.testing.assert_close(fn(x.to("neuron")).cpu(), fn(x), **tol)


def test_errors_name_the_op():
    with pytest.raises(RuntimeError, match="reflection_pad1d: Padding size should be less than"):
        F.pad(X[:, :, 0].to("neuron"), (7, 0), mode="reflect")
    with pytest.raises(NotImplementedError, match="aten::upsample_linear1d on neuron: floating dtypes"):
        torch.ops.aten.upsample_linear1d(torch.ones(1, 1, 4, dtype=torch.int32, device="neuron"), [8], False)
