"""Index-producing ops on the device against PyTorch's CPU kernels, exactly:
argmax / argmin and max.dim / min.dim (int64, the first index of ties, the
first NaN wins, -0.0 ties +0.0, any dim, keepdim, out=), cumsum / cumprod, arange (the values the CPU computes,
every dtype; ranges the device cannot compute bit for bit are refused
naming the op) and masked_select (the CPU's values in its order). Each runs
as device kernels, timed."""
import pytest
import torch

from torch_testing import executions, mark

NAN, INF = float("nan"), float("inf")
ROWS = torch.tensor([[0.5, 2.0, 2.0, -1.0, 2.0, 0.0],       # ties: the first
                     [1.0, NAN, 3.0, NAN, -INF, INF],       # the first NaN
                     [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0],     # signed zeros tie
                     [-INF, -INF, -INF, -INF, -INF, -INF],
                     [3.0, 1.0, 4.0, 1.0, 5.0, -9.0]])


def _same(got, want):
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(got, want), (got, want)


@pytest.mark.parametrize("fn", [torch.argmax, torch.argmin])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": 0}, {"dim": -1, "keepdim": True},
                                {"dim": None, "keepdim": True}], ids=str)
def test_arg_extremum_matches_cpu(fn, dtype, kw):
    x = ROWS.to(dtype)
    mark()
    _same(fn(x.to("neuron"), **kw), fn(x, **kw))
    assert executions(), "ran no device kernel"


@pytest.mark.parametrize("fn", [torch.argmax, torch.argmin])
def test_arg_extremum_of_a_strided_view_and_out(fn):
    x = torch.randn(4, 5, 6).to(torch.bfloat16)  # bf16: many ties
    d = x.to("neuron")
    for dim in range(3):
        _same(fn(d.transpose(0, 2), dim), fn(x.transpose(0, 2), dim))
    out = torch.empty(0, dtype=torch.long, device="neuron")
    fn(d, 1, out=out)
    _same(out, fn(x, 1))


@pytest.mark.parametrize("fn", [torch.max, torch.min])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, False), (-1, True)])
def test_max_min_dim_values_and_indices(fn, dtype, dim, keepdim):
    x = ROWS.to(dtype)
    mark()
    got, want = fn(x.to("neuron"), dim, keepdim), fn(x, dim, keepdim)
    assert executions(), "ran no device kernel"
    assert torch.equal(got.values.cpu().isnan(), want.values.isnan())
    assert torch.equal(got.values.cpu().nan_to_num(0), want.values.nan_to_num(0))
    _same(got.indices, want.indices)
    values = torch.empty(0, dtype=dtype, device="neuron")
    indices = torch.empty(0, dtype=torch.long, device="neuron")
    fn(x.to("neuron"), dim, keepdim, out=(values, indices))  # the two-output out= variant
    _same(indices, want.indices)
    assert torch.equal(values.cpu().nan_to_num(0), want.values.nan_to_num(0))


def test_arg_extremum_refuses_an_empty_input_without_dim():
    with pytest.raises(RuntimeError, match="argmax"):
        torch.argmax(torch.empty(0, device="neuron"))


RANGES = [(0, 10, 1), (0, 5, 0.5), (-2.5, 0.5, 0.5), (3, -7, -2), (0, 1, 0.25), (1e6, 1e6 + 100, 1),
          (0, 1000, 1), (5, 6, 0.125), (0, 0, 1), (-3, 3, 1), (2 ** 20, 2 ** 20 + 8, 1)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.int64, torch.int16])
@pytest.mark.parametrize("start,end,step", RANGES)
def test_arange_matches_cpu(dtype, start, end, step):
    if not dtype.is_floating_point and step != int(step):
        pytest.skip("integer aranges take integer steps here")
    if dtype == torch.int16 and max(abs(start), abs(end)) > 32767:
        pytest.skip("beyond int16")
    mark()
    _same(torch.arange(start, end, step, dtype=dtype, device="neuron"), torch.arange(start, end, step, dtype=dtype))
    if torch.arange(start, end, step).numel():
        assert any("arange" in k for k, _, _ in executions()), executions()


def test_arange_out_is_resized():
    out = torch.empty(3, device="neuron")
    torch.arange(0, 4, out=out)
    _same(out, torch.arange(0, 4, dtype=torch.float32))


@pytest.mark.parametrize("start,end,step,dtype", [(0, 1, 0.1, torch.float32),            # 0.1 is not dyadic
                                                  (0, 2 ** 25, 2 ** 23, torch.int32),     # beyond 2^24
                                                  (2 ** 24, 2 ** 24 + 4, 1, torch.float32)])
def test_arange_refuses_what_fp32_cannot_match(start, end, step, dtype):
    with pytest.raises(NotImplementedError, match="arange.start_out"):
        torch.arange(start, end, step, dtype=dtype, device="neuron")


@pytest.mark.parametrize("fn", [torch.cumsum, torch.cumprod])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_scan_matches_cpu(fn, dtype, dim):
    """bf16 carries in fp32 as the CPU's float accumulator: equal. fp32: the
    CPU accumulates in double, the device in fp32 (within a few ulp)."""
    torch.manual_seed(0)
    x = (torch.rand(3, 4, 9) + 0.5).to(dtype)
    x[0, 1, 2], x[2, 3, 4] = NAN, INF
    mark()
    got, want = fn(x.to("neuron"), dim).cpu(), fn(x, dim)
    assert any(fn.__name__ in k for k, _, _ in executions()), executions()
    assert got.dtype == want.dtype and got.shape == want.shape
    if dtype == torch.bfloat16:
        assert torch.equal(got.isnan(), want.isnan()) and torch.equal(got.nan_to_num(0), want.nan_to_num(0))
    else:
        torch.testing.assert_close(got, want, rtol=4e-6, atol=0, equal_nan=True)


def test_cumsum_dtype_out_and_0_dim():
    x = torch.randn(5, 6).to(torch.bfloat16)
    torch.testing.assert_close(torch.cumsum(x.to("neuron"), 1, dtype=torch.float32).cpu(),
                               torch.cumsum(x, 1, dtype=torch.float32), rtol=4e-6, atol=1e-6)
    out = torch.empty(0, device="neuron")
    torch.cumsum(torch.ones(7, device="neuron"), 0, out=out)
    _same(out, torch.arange(1, 8, dtype=torch.float32))
    _same(torch.cumprod(torch.tensor(3.0, device="neuron"), 0), torch.tensor(3.0))



def test_cumsum_of_one_element_rows_adds_to_zero_as_the_cpu():
    """The scan starts from 0, so a row of one -0.0 sums to +0.0 (a copy of x would keep -0.0)."""
    x = torch.tensor([[-0.0], [2.5], [float("nan")]])
    got = torch.cumsum(x.to("neuron"), 1).cpu()
    want = torch.cumsum(x, 1)
    assert torch.equal(got.signbit(), want.signbit()) and torch.equal(got.isnan(), want.isnan())

def test_integer_cumsum_is_refused_by_name():
    with pytest.raises(Exception, match="cumsum"):
        torch.cumsum(torch.arange(5, dtype=torch.int32, device="neuron"), 0)


def _same_bits(got, want):
    """Equal including where the NaNs are and the signs of zeros."""
    got = got.cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(got.nan_to_num(0), want.nan_to_num(0)) and torch.equal(got.isnan(), want.isnan())
    assert torch.equal(got.signbit(), want.signbit()), (got, want)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_gather_matches_cpu(dtype, index_dtype):
    x = ROWS.to(dtype)  # NaN and infinities are picked, never multiplied
    i1 = torch.tensor([[5, 0, 5], [1, 4, 3], [0, 0, 1], [2, 2, 2], [5, 4, 3]]).to(index_dtype)
    i0 = torch.tensor([[4, 0, 1, 3, 2, 1]]).to(index_dtype)
    mark()
    _same_bits(torch.gather(x.to("neuron"), 1, i1.to("neuron")), torch.gather(x, 1, i1))
    assert executions(), "ran no device kernel"
    _same_bits(torch.gather(x.to("neuron"), 0, i0.to("neuron")), torch.gather(x, 0, i0))
    out = torch.empty(0, dtype=dtype, device="neuron")
    torch.gather(x.to("neuron"), -1, i1.to("neuron"), out=out)
    _same_bits(out, torch.gather(x, -1, i1))


def test_gather_refuses_an_index_out_of_range_by_name():
    with pytest.raises(RuntimeError, match=r"aten::gather: index out of bounds for dimension 1 with size 6"):
        torch.gather(ROWS.to("neuron"), 1, torch.tensor([[6]] * 5).to("neuron"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int32, torch.bool])
def test_masked_select_matches_cpu(dtype):
    # The broadcast mask read on the host, each run of selected elements one
    # device copy: the CPU's values (bit for bit, NaN and -0.0 included) in its order.
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(6, 1, 9, generator=g) * 10).to(dtype)
    if dtype == torch.float32:
        x[0, 0, :3] = torch.tensor([float("nan"), -0.0, float("-inf")])
    mask = torch.rand(4, 9, generator=g) > 0.4  # broadcast against x: [6, 4, 9]
    want = torch.masked_select(x, mask)
    got = torch.masked_select(x.to("neuron"), mask.to("neuron")).cpu()
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(got.view(torch.uint8), want.view(torch.uint8))
    out = torch.empty(0, dtype=dtype).to("neuron")
    torch.masked_select(x.to("neuron"), mask.to("neuron"), out=out)
    assert torch.equal(out.cpu().view(torch.uint8), want.view(torch.uint8))


def test_masked_select_empty_and_full_masks():
    x = torch.arange(12.0).reshape(3, 4)
    for mask in (torch.zeros(3, 4, dtype=torch.bool), torch.ones(4, dtype=torch.bool)):
        assert torch.equal(torch.masked_select(x.to("neuron"), mask.to("neuron")).cpu(), torch.masked_select(x, mask))


def test_masked_select_refuses_a_non_bool_mask_naming_the_op():
    with pytest.raises(RuntimeError, match="aten::masked_select on neuron: expected a bool mask"):
        torch.masked_select(torch.ones(3).to("neuron"), torch.ones(3, dtype=torch.uint8).to("neuron"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.bool])
def test_nonzero_and_nonzero_static_match_cpu(dtype):
    # NaN is true, -0.0 false; int64 coordinates in row-major order; the
    # static form pads with fill_value or truncates, as on the CPU.
    x = torch.tensor([[0.0, NAN, -0.0, 2.0], [-INF, 0.0, 0.0, 1e-30], [0.0, 0.0, 0.0, 0.0]]).to(dtype)
    want = torch.nonzero(x)
    got = torch.nonzero(x.to("neuron"))
    assert got.device.type == "neuron" and got.dtype == torch.int64
    assert torch.equal(got.cpu(), want)
    assert torch.equal(torch.argwhere(x.to("neuron")).cpu(), torch.argwhere(x))
    for size in (2, 9):
        assert torch.equal(torch.nonzero_static(x.to("neuron"), size=size, fill_value=-7).cpu(),
                           torch.nonzero_static(x, size=size, fill_value=-7))


def test_narrow_copy_matches_cpu():
    x = torch.randn(5, 7, generator=torch.Generator().manual_seed(0))
    want = torch.narrow_copy(x, 1, 2, 4)
    assert torch.equal(torch.narrow_copy(x.to("neuron"), 1, 2, 4).cpu(), want)
    out = torch.empty(0).to("neuron")
    torch.narrow_copy(x.to("neuron"), 1, 2, 4, out=out)
    assert torch.equal(out.cpu(), want) and out.is_contiguous()
