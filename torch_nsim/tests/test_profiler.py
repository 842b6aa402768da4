"""torch.profiler on the neuron device: NEURON columns, rows, attribution,
the schedule, and the simulator's own trace files."""
import json
import os

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

from torch_nsim.profiler import NeuronConfig, NeuronProfiler, ProfileMode


def rmsnorm(x, w):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


def profiled(fn, steps=4, cfg=None):
    x = torch.randn(4, 512, dtype=torch.bfloat16).to("neuron")
    w = torch.randn(512, dtype=torch.bfloat16).to("neuron")
    kwargs = {} if cfg is None else {"experimental_config": cfg, "on_trace_ready": NeuronProfiler(cfg).export_trace}
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1],
                 schedule=schedule(wait=2, warmup=1, active=1), **kwargs) as prof:
        for _ in range(steps):
            fn(x, w)
            torch.neuron.synchronize()
            prof.step()
    return prof


def rows(prof):
    return {e.key: e for e in prof.key_averages()}


def test_table_has_neuron_columns_sorted_by_self_privateuse1():
    prof = profiled(rmsnorm)
    table = prof.key_averages().table(sort_by="self_privateuse1_time_total", row_limit=-1)
    header = [line for line in table.splitlines() if "Name" in line][0]
    for col in ["Self NEURON", "Self NEURON %", "NEURON total", "NEURON time avg"]:
        assert col in header
    assert "Self NEURON time total" in table
    data = [line.split() for line in table.splitlines()[3:] if line.strip() and not line.startswith("-")]
    assert data[0][0] == "nc_exec_running"  # every execution; then the ops by their device time
    assert data[1][0] == "aten::mul"


def test_op_by_op_rows_and_attribution():
    r = rows(profiled(rmsnorm))
    assert r["nc_exec_running"].count == 6  # six device executions, one recorded step
    assert r["aten::mul"].count == 3
    for op in ["aten::mul", "aten::mean", "aten::add", "aten::rsqrt"]:
        assert r[op].self_device_time_total > 0, op
    total = sum(r[op].self_device_time_total for op in ["aten::mul", "aten::mean", "aten::add", "aten::rsqrt"])
    assert abs(total - r["nc_exec_running"].self_device_time_total) < 1e-3


def test_device_capture_costs_what_the_config_says():
    """With DEVICE mode each execution carries capture.per_execution (382 µs)
    plus capture.per_record per instruction (configs/trn2.yaml); without it
    an eager op takes a few µs of device time."""
    on = rows(profiled(rmsnorm, cfg=NeuronConfig(modes=[ProfileMode.DEVICE, ProfileMode.RUNTIME],
                                                 capture_enabled_for_nc="0", profile_output_dir="/tmp/tn_prof_on")))
    off = rows(profiled(rmsnorm, cfg=NeuronConfig(modes=[ProfileMode.RUNTIME], capture_enabled_for_nc="0",
                                                  profile_output_dir="/tmp/tn_prof_off")))
    assert on["aten::mean"].self_device_time_total > 382
    assert off["aten::mean"].self_device_time_total < 10
    assert on["nc_exec_running"].count == off["nc_exec_running"].count == 6


def test_rms_norm_is_one_fused_execution():
    r = rows(profiled(lambda x, w: F.rms_norm(x, [512], w, 1e-6)))
    assert r["nc_exec_running"].count == 1
    assert r["aten::_fused_rms_norm"].self_device_time_total == r["nc_exec_running"].self_device_time_total
    assert r["aten::rms_norm"].self_device_time_total == 0  # its child launched it


def test_compiled_region_row():
    torch._dynamo.reset()
    f = torch.compile(rmsnorm, backend="neuron", fullgraph=True)
    r = rows(profiled(f))
    assert r["nc_exec_running"].count == 1
    assert r["Torch-Compiled Region: 0/0"].self_device_time_total == r["nc_exec_running"].self_device_time_total


def test_trace_files(tmp_path):
    cfg = NeuronConfig(capture_enabled_for_nc="0", profile_output_dir=str(tmp_path))
    profiled(rmsnorm, cfg=cfg)
    files = os.listdir(tmp_path)
    assert "trace.json" in files and "kineto_trace.json" in files and "summary.json" in files
    assert sum(f.endswith(".neff") for f in files) == 6 and sum(f.endswith(".ntff") for f in files) == 6
    kineto = json.load(open(tmp_path / "kineto_trace.json"))
    device = [e for e in kineto["traceEvents"] if e.get("name") == "nc_exec_running" and e.get("ph") == "X"]
    assert len(device) == 6 and all("kernel" in e["args"] for e in device)
    ours = json.load(open(tmp_path / "trace.json"))
    names = {e["args"]["name"] for e in ours["traceEvents"] if e.get("ph") == "M" and "name" in e.get("args", {})}
    assert any(n.startswith("neuron_hw/NC0") for n in names) and any("VectorE" in n for n in names)
