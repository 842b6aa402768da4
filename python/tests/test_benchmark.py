"""nki.benchmark: device time, summary, profile files, and the emitted kernel
replayed by `nsim run` with the same device time."""
import json
import os
import subprocess

import numpy as np
from nki_testing import ROOT, bf16

import nsim.nki as nki
import vector_add

NSIM = os.path.join(ROOT, "bazel-bin", "tools", "nsim")


def inputs(rng):
    return bf16(rng.standard_normal((512, 256))), bf16(rng.standard_normal((512, 256)))


def test_profile_files(rng, tmp_path):
    r = nki.benchmark(vector_add.vector_add_tiled, *inputs(rng), config="trn1", out_dir=str(tmp_path))
    names = sorted(os.listdir(tmp_path))
    assert names == sorted(["trace.json", "trace.perfetto-trace", r.kernel_hash + ".neff", r.kernel_hash + ".ntff", "summary.json",
                            "summary.txt", "report.html", "instructions.csv"] +
                           [t + ".parquet" for t in ("Instruction", "DmaPacket", "DmaPacketAggregated", "ActiveTime",
                                                     "Summary", "TensorInfo", "Metadata", "SchemaFields")])
    trace = json.load(open(tmp_path / "trace.json"))
    slices = [e["name"] for e in trace["traceEvents"] if e.get("ph") == "X"]
    # one slice per instruction (8 load and 4 store triggers, 4 adds) and per DMA piece
    assert slices.count("tensor_tensor") == 4 and slices.count("dma_copy") == 12
    assert slices.count("dma_transfer") == len(r.dma)
    lanes = {e["args"]["name"] for e in trace["traceEvents"] if e.get("ph") == "M" and e["name"] == "thread_name"}
    assert {"VectorE", "Sync", "qSyncIO0"} <= lanes  # loads are triggered from Sync
    # the NEFF is the kernel's canonical text: the same kernel as the emitted text
    from nsim import _core
    neff = open(tmp_path / (r.kernel_hash + ".neff")).read()
    assert neff == _core.core().format_kernel(r.kernel_text, "k.nk")
    assert "VectorE" in open(tmp_path / "summary.txt").read()


def test_summary_and_records(rng):
    r = nki.benchmark(vector_add.vector_add_tiled, *inputs(rng))
    assert r.summary["total_time_ns"] == r.device_time_ns
    assert r.engines["VectorE"]["by_opcode"] == {"tensor_tensor": 4}
    assert r.engines["Sync"]["by_opcode"] == {"dma_copy": 8}     # loads (passes/dma_queues.py)
    assert r.engines["GpSimd"]["by_opcode"] == {"dma_copy": 4}   # stores
    assert r.summary["total"]["hbm_read_bytes"] == 2 * 512 * 256 * 2
    assert r.summary["total"]["hbm_write_bytes"] == 512 * 256 * 2
    assert len(r.instructions) == 16
    assert max(end for *_x, end, _b in [(d[0], d[1], d[2], d[3], d[4], d[5], d[6]) for d in r.dma]) \
        < r.device_time_ns


def test_deterministic(rng):
    a, b = inputs(rng)
    r1 = nki.benchmark(vector_add.vector_add_tiled, a, b)
    r2 = nki.benchmark(vector_add.vector_add_tiled, a, b)
    assert r1.kernel_text == r2.kernel_text and r1.device_time_ns == r2.device_time_ns
    assert r1.instructions == r2.instructions and r1.dma == r2.dma


def test_emitted_kernel_replays_with_nsim_run(rng, tmp_path):
    assert os.path.exists(NSIM), "build the CLI first: bazel build //tools:nsim"
    path = str(tmp_path / "k.nk")
    for config in ("trn1", "trn2"):
        r = nki.benchmark(vector_add.vector_add_tiled, *inputs(rng), config=config, emit=path)
        assert open(path).read() == r.kernel_text
        out = subprocess.run([NSIM, "run", path, "--config", config, "--json"], capture_output=True, text=True,
                             check=True, timeout=120).stdout
        report = json.loads(out)
        assert report["total_time_ns"] == r.device_time_ns
        assert report["kernel"]["hash"] == r.kernel_hash


def test_config_overrides_change_time(rng):
    a, b = inputs(rng)
    base = nki.benchmark(vector_add.vector_add_tiled, a, b, config="trn2").device_time_ns
    slow = nki.benchmark(vector_add.vector_add_tiled, a, b, config="trn2",
                         overrides=["vector.freq=0.5GHz"]).device_time_ns
    assert slow > base
    np.testing.assert_array_equal(vector_add.vector_add_tiled(a, b, config="trn2").astype(np.float32),
                                  (a.astype(np.float32) + b.astype(np.float32)).astype(a.dtype).astype(np.float32))


def test_timing_only_same_time_records_and_trace(rng, tmp_path):
    # issue 12: timing_only=True computes no values but times the kernel identically
    x = inputs(rng)
    full = nki.benchmark(vector_add.vector_add_tiled, *x, out_dir=str(tmp_path / "full"))
    fast = nki.benchmark(vector_add.vector_add_tiled, *x, out_dir=str(tmp_path / "fast"), timing_only=True)
    assert fast.outputs is None and full.outputs is not None
    assert fast.device_time_ns == full.device_time_ns
    assert fast.instructions == full.instructions and fast.dma == full.dma
    assert fast.summary == full.summary
    # the trace names its own directory; everything else is identical
    fast_trace = open(tmp_path / "fast" / "trace.json").read().replace(str(tmp_path / "fast"), "DIR")
    assert fast_trace == open(tmp_path / "full" / "trace.json").read().replace(str(tmp_path / "full"), "DIR")
