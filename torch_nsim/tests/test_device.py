"""The "neuron" device: registration, memory in simulated HBM, copies,
device module, streams and events, config selection."""
import pytest
import torch

import torch_nsim
from torch_testing import executions, mark


def test_device_is_registered_as_neuron():
    assert torch._C._get_privateuse1_backend_name() == "neuron"
    assert torch.neuron.is_available()
    assert torch.neuron.device_count() == 1
    assert torch.neuron.current_device() == 0
    t = torch.empty(3, device="neuron")
    assert t.device == torch.device("neuron", 0)
    assert t.is_neuron


def test_memory_is_simulated_hbm():
    before = torch.neuron.memory_allocated()
    t = torch.empty(1024, dtype=torch.float32, device="neuron")
    assert torch.neuron.memory_allocated() - before >= 4096
    # The data pointer is an HBM address of the simulated core, not host memory.
    assert t.data_ptr() < torch.neuron.memory_stats()["capacity"] + 4096
    del t
    assert torch.neuron.memory_allocated() == before


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int32, torch.int64])
def test_roundtrip_copy(dtype):
    x = (torch.arange(24) - 7).reshape(4, 6).to(dtype)
    y = x.to("neuron")
    assert y.dtype == dtype and y.shape == x.shape
    assert torch.equal(y.cpu(), x)


def test_copy_with_cast_and_strides():
    x = torch.randn(8, 16)
    y = x.to("neuron", dtype=torch.bfloat16)
    assert torch.equal(y.cpu(), x.to(torch.bfloat16))
    yt = x.to("neuron").t()
    assert not yt.is_contiguous()
    assert torch.equal(yt.contiguous().cpu(), x.t().contiguous())
    assert torch.equal(yt.cpu(), x.t())


def test_copy_into_device_tensor_and_item():
    d = torch.zeros(2, 3, device="neuron")
    d.copy_(torch.ones(2, 3))
    assert torch.equal(d.cpu(), torch.ones(2, 3))
    d.fill_(2.5)
    assert d.sum().item() == pytest.approx(15.0)


def test_views_share_memory():
    x = torch.arange(12, dtype=torch.float32).to("neuron")
    v = x.view(3, 4)
    assert v.data_ptr() == x.data_ptr()
    s = v[1]
    assert torch.equal(s.cpu(), torch.tensor([4.0, 5, 6, 7]))
    assert torch.equal(v.transpose(0, 1).cpu(), torch.arange(12.0).view(3, 4).t())
    assert torch.equal(v.unsqueeze(0).expand(2, 3, 4).cpu(), torch.arange(12.0).view(3, 4).expand(2, 3, 4))


def test_resize_keeps_data():
    x = torch.arange(4, dtype=torch.float32).to("neuron")
    x.resize_(16)
    assert torch.equal(x[:4].cpu(), torch.arange(4.0))


def test_synchronize_and_events_follow_the_simulated_clock():
    x = torch.randn(64, 512).to("neuron")
    start = torch.Event(device="neuron", enable_timing=True)
    end = torch.Event(device="neuron", enable_timing=True)
    start.record()
    y = x * x
    end.record()
    torch.neuron.synchronize()
    assert end.query()
    ms = start.elapsed_time(end)
    assert 0 < ms < 1.0  # one small kernel: microseconds of simulated device time
    assert torch.equal(y.cpu(), x.cpu() * x.cpu())


def _copy_time_us(stream_busy_with=None):
    """Host time from an event record on `stream_busy_with` (if given) to the
    end of a 4 KiB host->device copy queued after it on the default stream."""
    small = torch.ones(1024)
    t0 = torch_nsim._C.simulated_now_us()
    if stream_busy_with is not None:
        torch.Event(device="neuron").record(stream_busy_with)
        assert torch_nsim._C.simulated_now_us() == t0  # a record costs the host nothing
    small.to("neuron")
    copied = torch.Event(device="neuron")
    copied.record()
    copied.synchronize()
    return torch_nsim._C.simulated_now_us() - t0


def test_an_event_record_does_not_delay_work_on_another_stream():
    x = torch.randn(128, 65536).to("neuron")  # 32 MiB
    torch.neuron.synchronize()
    idle = _copy_time_us()
    # The copy alone: host set-up (host.copy_setup 8 us, trn2 as trn1) then on
    # the device host_link_latency 2 us + 4096 B / 16 B/ns = 2.256 us.
    assert idle >= 8 + 2.256

    s1 = torch.Stream(device="neuron")
    start = torch.Event(device="neuron", enable_timing=True)
    end = torch.Event(device="neuron", enable_timing=True)
    with torch.neuron.stream(s1):
        start.record(s1)
        y = x * x  # 32 MiB in and out through one core's DMA: hundreds of us
        end.record(s1)
    # Recording on s1 waited for nothing: the copy queued on the default
    # stream behind the record takes exactly the time it takes alone (30.956
    # us on trn2: the .to() dispatch and allocation, then the 8 + 2.256 us
    # above), and finishes while s1's kernel (about 366 us) still runs. When
    # a record synchronised the core, the host waited for that kernel first.
    busy = _copy_time_us(stream_busy_with=s1)
    # to the picosecond (the clock counts ps; differences of microsecond floats
    # taken at different absolute times round in the last bits)
    assert busy == pytest.approx(idle, abs=1e-6)
    assert not end.query()
    end.synchronize()
    assert end.query()
    ms = start.elapsed_time(end)
    assert ms * 1000 > busy  # the kernel outlasted the copy
    assert torch.equal(y.cpu(), x.cpu() * x.cpu())


def test_streams_are_runtime_streams():
    s = torch.Stream(device="neuron")
    assert s.stream_id != 0
    x = torch.randn(4, 8).to("neuron")
    with torch.neuron.stream(s):
        assert torch.neuron.current_stream().stream_id == s.stream_id
        y = x + 1
    assert torch.neuron.current_stream().stream_id == 0
    s.synchronize()
    assert torch.allclose(y.cpu(), x.cpu() + 1)


def test_bad_device_index_is_a_clear_error():
    with pytest.raises(RuntimeError, match="neuron:3 does not exist"):
        torch.empty(2, device="neuron:3")


def test_set_config_bad_name_is_a_clear_error():
    with pytest.raises(RuntimeError, match="no_such_part"):
        torch_nsim.set_config("no_such_part")
    assert torch_nsim.config_name() == "trn2"


def test_ops_run_on_the_device():
    mark()
    x = torch.randn(4, 512).to("neuron")
    (x * x).cpu()
    kernels = [k for k, _, _ in executions()]
    assert len(kernels) == 1 and "mul" in kernels[0]


def test_set_lnc_makes_devices_of_two_physical_cores():
    # Devices first used after set_lnc(2) are logical cores of two physical
    # cores: each op splits its rows over both, computing the same values.
    torch.neuron.set_lnc(2)
    torch.neuron.set_device_count(4)
    try:
        assert torch.neuron.lnc() == 2
        x = torch.randn(256, 512, dtype=torch.bfloat16)
        mark()
        y = (x.to("neuron:3") * 2).cpu()
        assert torch.equal(y, x * 2)
        with pytest.raises(RuntimeError, match="divisor"):
            torch.neuron.set_lnc(3)
    finally:
        torch.neuron.set_lnc(1)
        torch.neuron.set_device_count(1)


def test_all_reduce_sums_in_place_on_every_device():
    # torch_nsim.all_reduce_ (torch.ops.neuron.all_reduce_): a ring over DMA
    # between the devices' cores, 2(N-1) = 2 steps, each a record on each device.
    torch.neuron.set_device_count(2)
    try:
        a, b = torch.randn(8, 256), torch.randn(8, 256)
        xs = [a.to("neuron:0"), b.to("neuron:1")]
        torch.neuron.synchronize(0), torch.neuron.synchronize(1)
        for d in (0, 1):
            torch_nsim._C.mark_executions(d)
        torch_nsim.all_reduce_(xs)
        assert [len(torch_nsim._C.executions(d)) for d in (0, 1)] == [2, 2]
        for x in xs:
            torch.testing.assert_close(x.cpu(), a + b)
        with pytest.raises(RuntimeError, match=r"neuron::all_reduce_: tensor 1 is Float\[8, 128\], tensor 0 is Float\[8, 256\]"):
            torch_nsim.all_reduce_([a.to("neuron:0"), torch.zeros(8, 128, device="neuron:1")])
        with pytest.raises(RuntimeError, match="two tensors on neuron:0"):
            torch_nsim.all_reduce_([xs[0], xs[0]])
    finally:
        torch.neuron.set_device_count(1)


def test_rng_state_round_trips_and_seed_helpers_work():
    torch.neuron.manual_seed(1234)
    state = torch.neuron.get_rng_state()
    assert state.dtype == torch.uint8 and state.numel() == 16
    assert torch.neuron.initial_seed() == 1234
    torch.neuron.manual_seed(7)
    torch.neuron.set_rng_state(state)
    assert torch.neuron.initial_seed() == 1234
    with torch.random.fork_rng(device_type="neuron"):  # PyTorch's own helper reads and restores it
        torch.manual_seed(99)
        assert torch.neuron.initial_seed() == 99
    assert torch.neuron.initial_seed() == 1234
    with pytest.raises(TypeError, match="16-byte torch.uint8"):
        torch.neuron.set_rng_state(torch.zeros(3))
