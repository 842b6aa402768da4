"""Running sweeps (docs/sweep.md): serial and parallel tables are equal, the
content cache runs only new points, an NKI kernel sweeps like its
nki.benchmark, a failing point is a row with its error, and Ctrl-C leaves a
table that a rerun completes."""
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pandas as pd
import pytest

import nsim
from nsim import nki
from nsim.sweeps import api, kernels, spec as specs

from sweep_data.chain import chain_kernel

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(__file__).resolve().parent / "sweep_data"
RMSNORM = ROOT / "sim" / "kernel" / "examples" / "rmsnorm.nk"
MATMUL = ROOT / "sim" / "kernel" / "examples" / "matmul.nk"
GRID = """
kernels: [{nk: %s}, {nk: %s}]
overrides:
  grid: {vector.freq: [0.96GHz, 1.4GHz%%s], dma.bytes_per_ns: [23B/ns, 46B/ns]}
cost: {vector.freq: 1.0e-9, dma.bytes_per_ns: 0.05}
""" % (RMSNORM, MATMUL)


def spec_file(tmp_path, text, name="spec.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_serial_and_parallel_tables_are_equal(tmp_path):
    path = spec_file(tmp_path, GRID % "")
    serial = nsim.sweep(path, jobs=1, cache=tmp_path / "c1")
    parallel = nsim.sweep(path, jobs=2, cache=tmp_path / "c2")
    pd.testing.assert_frame_equal(serial, parallel)
    assert len(serial) == 8 and serial["point"].is_unique and (serial["error"] == "").all()
    rms = serial[serial["kernel"] == "rmsnorm"].set_index("overrides")["total_time_ns"]
    # rmsnorm waits on VectorE: a faster VectorE clock or faster DMA shortens it
    assert rms["vector.freq=1.4GHz dma.bytes_per_ns=23B/ns"] < rms["vector.freq=0.96GHz dma.bytes_per_ns=23B/ns"]
    assert rms["vector.freq=0.96GHz dma.bytes_per_ns=46B/ns"] < rms["vector.freq=0.96GHz dma.bytes_per_ns=23B/ns"]
    assert list(serial["cost"]) == pytest.approx([0.96 + 1.15, 0.96 + 2.3, 1.4 + 1.15, 1.4 + 2.3] * 2)
    for column in ("kernel_hash", "config_hash", "nsim_version", "VectorE.active_time_ns", "roofline.verdict"):
        assert column in serial


def test_cache_reruns_only_new_points_and_a_new_model_invalidates(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    first = nsim.sweep(spec_file(tmp_path, GRID % ""), jobs=1, cache=cache)
    assert first.attrs["sweep"]["ran"] == 8
    again = nsim.sweep(spec_file(tmp_path, GRID % ""), jobs=1, cache=cache)
    assert again.attrs["sweep"]["cache_hits"] == 8 and again.attrs["sweep"]["ran"] == 0
    pd.testing.assert_frame_equal(first, again)
    extended = nsim.sweep(spec_file(tmp_path, GRID % ", 2GHz"), jobs=1, cache=cache)
    assert extended.attrs["sweep"]["ran"] == 4 and len(extended) == 12
    monkeypatch.setattr(kernels, "build_id", lambda kind: "another-build")
    rebuilt = nsim.sweep(spec_file(tmp_path, GRID % ""), jobs=1, cache=cache)
    assert rebuilt.attrs["sweep"]["ran"] == 8 and set(rebuilt["nsim_version"]) == {nsim.__version__ + "+another-build"}


def test_nki_kernel_sweeps_as_it_benchmarks(tmp_path):
    path = spec_file(tmp_path, """
        kernels: [{nki: %s:scale, args: build_args}]
        configs: [trn1, trn2]
        overrides: {list: [{dma.bytes_per_ns: 23B/ns}, {dma.bytes_per_ns: 92B/ns}]}
        metrics: [total_time_ns, "*.active_time_ns"]
        """ % (DATA / "scale_nki.py"))
    df = nsim.sweep(path, jobs=1, cache=tmp_path / "cache")
    assert list(df["kernel"]) == ["scale"] * 4 and (df["error"] == "").all()
    module = kernels.load_module(str(DATA / "scale_nki.py"))
    for _, row in df.iterrows():
        expected = nki.benchmark(module.scale, *module.build_args(), config=row["config"],
                                 overrides=(row["overrides"],), timing_only=True)
        assert row["total_time_ns"] == expected.device_time_ns and row["kernel_hash"] == expected.kernel_hash
    assert df.loc[1, "total_time_ns"] < df.loc[0, "total_time_ns"]  # 4x the DMA bandwidth
    metrics = set(df.columns) - set(api.table.IDENTITY) - {"dma.bytes_per_ns"}
    assert "total_time_ns" in metrics and "VectorE.active_time_ns" in metrics
    assert all(m == "total_time_ns" or m.endswith(".active_time_ns") for m in metrics)


def test_a_failing_point_is_a_row_with_its_error(tmp_path):
    path = spec_file(tmp_path, "kernels: [{nk: %s}]\noverrides: {grid: {memory.sbuf_per_partition: [1KiB, 192KiB]}}\n"
                     % RMSNORM)
    df = nsim.sweep(path, jobs=1, cache=tmp_path / "cache")
    assert df.attrs["sweep"]["failed"] == 1
    assert "SBUF" in df.loc[0, "error"] or "sbuf" in df.loc[0, "error"], df.loc[0, "error"]
    assert pd.isna(df.loc[0, "total_time_ns"]) and df.loc[1, "error"] == "" and df.loc[1, "total_time_ns"] > 0
    again = nsim.sweep(path, jobs=1, cache=tmp_path / "cache")
    assert again.attrs["sweep"]["ran"] == 1  # failures are not cached: a rerun tries them again


def chain_spec(tmp_path, points):
    (tmp_path / "chain.nk").write_text(chain_kernel(10000))
    freqs = ", ".join("%dMHz" % (900 + 10 * i) for i in range(points))
    return spec_file(tmp_path, "kernels: [{nk: chain.nk}]\noverrides: {grid: {vector.freq: [%s]}}\n" % freqs)


@pytest.fixture(scope="module")
def chain_serial(tmp_path_factory):
    """The serial table of the 12-point chain sweep (no paths in it: any copy of the spec gives it)."""
    tmp = tmp_path_factory.mktemp("chain_serial")
    return nsim.sweep(chain_spec(tmp, 12), jobs=1, cache=tmp / "cache")


def cli(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    return [sys.executable, "-m", "nsim", *map(str, args)], env


def cached_points(out):
    return sum(f.endswith(".json") for _, _, files in os.walk(out / "cache") for f in files)


def sweep_with_a_fault(cmd, env, out, after, points, fault):
    """Runs `cmd` (an `nsim sweep` of `points` points) and, once `after` points
    are done while it still runs, calls fault(proc); returns (points done
    before the fault, exit code, stderr)."""
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while cached_points(out) < after and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        done_before = cached_points(out)
        assert proc.poll() is None and after <= done_before < points, "the sweep ended before the fault"
        fault(proc)
        _, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    return done_before, proc.returncode, stderr


def assert_complete(out, expected):
    df = pd.read_parquet(out / "results.parquet")
    assert len(df) == len(expected) and df["point"].is_unique and (df["error"] == "").all()
    pd.testing.assert_frame_equal(df, expected)


def test_ctrl_c_leaves_a_resumable_table(tmp_path, chain_serial):
    path, out = chain_spec(tmp_path, 12), tmp_path / "out"
    cmd, env = cli("sweep", path, "--out", out, "--jobs", "2")
    _, returncode, stderr = sweep_with_a_fault(cmd, env, out, 2, 12, lambda proc: proc.send_signal(signal.SIGINT))
    assert returncode == 130, stderr
    assert "rerun the same command to resume" in stderr
    partial = pd.read_parquet(out / "results.parquet")
    assert 2 <= len(partial) < 12 and len(partial) == cached_points(out) and partial["point"].is_unique
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "(%d cache hits, %d run" % (len(partial), 12 - len(partial)) in done.stderr
    assert_complete(out, chain_serial)


def test_spec_errors_exit_2_naming_the_line(tmp_path):
    path = spec_file(tmp_path, "kernels:\n  - nk: nowhere.nk\n")
    cmd, env = cli("sweep", path, "--out", tmp_path / "out")
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "spec.yaml:2: kernels[0].nk: no such file" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_spec_is_validated_before_anything_runs(tmp_path):
    with pytest.raises(specs.SpecError, match="spec.yaml:3: overrides.grid"):
        nsim.sweep(spec_file(tmp_path, "kernels: [{nk: %s}]\noverrides:\n  grid: {vector.frq: [1GHz]}\n" % RMSNORM),
                   jobs=1, cache=tmp_path / "cache")
    assert not (tmp_path / "cache").exists() or cached_points(tmp_path) == 0


def test_cost_names_a_column_of_the_results(tmp_path):
    text = "kernels: [{nk: %s}]\noverrides: {grid: {vector.freq: [1GHz, 2GHz]}}\ncost: %s\n"
    df = nsim.sweep(spec_file(tmp_path, text % (RMSNORM, "vector.freq")), jobs=1, cache=tmp_path / "cache",
                    out=tmp_path / "out")
    assert "cost" not in df and "Pareto: device time against vector.freq" in (tmp_path / "out" / "report.html").read_text()
    with pytest.raises(specs.SpecError, match=r"spec.yaml: cost: no column dollars in the results"):
        nsim.sweep(spec_file(tmp_path, text % (RMSNORM, "dollars")), jobs=1, cache=tmp_path / "cache")


def pool_workers(pid):
    """The worker processes of a sweep's local pool (spawned children running spawn_main)."""
    children = pathlib.Path("/proc/%d/task/%d/children" % (pid, pid)).read_text().split()
    return [int(c) for c in children
            if b"spawn_main" in pathlib.Path("/proc/%s/cmdline" % c).read_bytes()]


def test_a_killed_local_worker_loses_no_point(tmp_path, chain_serial):
    path, out = chain_spec(tmp_path, 12), tmp_path / "out"
    cmd, env = cli("sweep", path, "--out", out, "--jobs", "2", "--no-progress")
    _, returncode, stderr = sweep_with_a_fault(cmd, env, out, 2, 12,
                                               lambda proc: os.kill(pool_workers(proc.pid)[0], signal.SIGKILL))
    assert returncode == 0, stderr
    assert_complete(out, chain_serial)


def test_an_absent_ray_head_is_an_error_not_a_hang(tmp_path):
    # Ray's own connect retries for minutes; the sweep checks the GCS port first (port 1: nothing listens)
    path = spec_file(tmp_path, "kernels: [{nk: %s}]\n" % RMSNORM)
    cmd, env = cli("sweep", path, "--out", tmp_path / "out", "--ray", "127.0.0.1:1", "--no-progress")
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "--ray 127.0.0.1:1: no Ray head node answers there" in done.stderr, done.stderr
