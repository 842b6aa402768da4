"""benchmark(out_dir=) writes Neuron Explorer's profile tables (docs/profile-tables.md):
the docs' DuckDB queries run on them, every instruction names the kernel's source
line and call stack, and each instruction's waits add up to its issue gap."""
import json
import os
import re

import duckdb
import numpy as np
import pyarrow.parquet as pq
import pytest

import nsim.nki as nki
import nsim.nki.language as nl

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "profile-tables.md")
TABLES = ("Instruction", "DmaPacket", "DmaPacketAggregated", "ActiveTime", "Summary", "TensorInfo", "Metadata",
          "SchemaFields")


def _scale_rows(x, out, i):  # a helper: its lines must show in the call stack
    t = nl.load(x[i * 128:(i + 1) * 128, :])
    nl.store(out[i * 128:(i + 1) * 128, :], value=nl.exp(nl.multiply(t, 2.0)))


@nki.jit
def scale_exp(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        _scale_rows(x, out, i)
    return out


def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("prof"))
    x = np.random.default_rng(0).standard_normal((512, 256)).astype(np.float32)
    r = nki.benchmark(scale_exp, x, config="trn2", out_dir=out)
    np.testing.assert_allclose(r.outputs, np.exp(2 * x), rtol=1e-5)
    return out, r


def _doc_queries():
    return re.findall(r"```sql\n(.*?)```", open(DOC).read(), re.S)


def _query(sql, out):
    return duckdb.sql(sql.replace("'prof/", "'%s/" % out)).fetchall()


def test_every_table_is_written_with_explorer_names(run):
    out, _ = run
    for name in TABLES:
        assert os.path.isfile(os.path.join(out, name + ".parquet")), name
    cols = pq.read_schema(os.path.join(out, "Instruction.parquet")).names
    for c in ("id", "start_ts", "end_ts", "duration_ns", "engine", "opcode", "operands", "pc", "evt_wait_time_ns",
              "nki_source_location"):
        assert c in cols
    meta = pq.read_table(os.path.join(out, "Metadata.parquet")).to_pylist()[0]
    assert meta["profile_schema_version"] == "7.4.0" and meta["is_simulation"]
    fields = pq.read_table(os.path.join(out, "SchemaFields.parquet")).to_pylist()
    listed = {(f["table_name"], f["field_name"]) for f in fields}
    for name in TABLES[:-1]:  # SchemaFields describes every column of every other table
        for c in pq.read_schema(os.path.join(out, name + ".parquet")).names:
            assert (name, c) in listed, (name, c)
    assert {f["field_unit"] for f in fields if f["field_name"] == "start_ts"} == {"nanoseconds"}


def test_time_per_source_line_query_names_the_kernels_lines(run):
    out, r = run
    per_line, _ = _doc_queries()
    rows = _query(per_line, out)
    lines = {row[0]: row for row in rows}
    here = os.path.basename(__file__)
    load = "%s:%d" % (here, _line_of(_scale_rows, "nl.load"))
    compute = "%s:%d" % (here, _line_of(_scale_rows, "nl.store"))
    assert set(lines) == {load, compute}
    assert lines[load][2] == "sync"                      # the loads are triggered from Sync
    assert lines[compute][2] == "gpsimd,scalar,vector"  # multiply on VectorE, exp on ScalarE, the store from
    # GpSimd (its output queue, passes/dma_queues.py)
    assert lines[load][1] + lines[compute][1] == len(r.instructions)
    # device_ns: the instructions' exact durations, which the records carry too
    total = sum(end - start for _, _, start, end, _ in r.instructions)
    assert sum(row[3] for row in rows) == pytest.approx(total, abs=1e-6)


def test_dma_efficiency_query(run):
    out, r = run
    _, per_queue = _doc_queries()
    rows = _query(per_queue, out)
    assert {row[0] for row in rows} == {q["queue"] for q in r.summary["total"]["dma_queues"]}
    assert sum(row[2] for row in rows) == r.summary["total"]["dma_transfer_total_bytes"]
    for row in rows:
        assert 0 < row[5] <= 100.0 + 1e-9  # no piece moves faster than one DMA engine


README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def test_readme_one_line_queries_give_time_per_line_and_per_queue(run):
    """The README's shell one-liners, as written (with `prof/` replaced by the run's directory)."""
    out, r = run
    lines = [l for l in open(README).read().splitlines() if l.startswith('python3 -c "import duckdb')]
    assert len(lines) == 2
    sqls = [re.search(r'duckdb\.sql\(\\"(.*)\\"\)\)"$', l).group(1) for l in lines]
    per_line, per_queue = (_query(sql, out) for sql in sqls)
    here = os.path.basename(__file__)
    assert {row[0] for row in per_line} == {"%s:%d" % (here, _line_of(_scale_rows, t)) for t in ("nl.load", "nl.store")}
    assert {row[0] for row in per_queue} == {q["queue"] for q in r.summary["total"]["dma_queues"]}


def test_every_instruction_carries_its_call_stack(run):
    out, _ = run
    rows = pq.read_table(os.path.join(out, "Instruction.parquet")).to_pylist()
    for row in rows:
        frames = row["nsim_source_stack"].split(" < ")
        assert frames[0].endswith("_scale_rows") and frames[1].endswith("scale_exp"), frames
        assert row["nki_source_location"] == os.path.basename(frames[0].split(" ")[0])
    for p in pq.read_table(os.path.join(out, "DmaPacket.parquet")).to_pylist():
        assert p["nsim_source_location"] == rows[p["nsim_instruction_id"]]["nki_source_location"]
    with open(os.path.join(out, "instructions.csv")) as f:
        header = f.readline().rstrip("\n").split(",")
        sources = [line.split(",")[header.index("source")] for line in f]
    assert sources and all(sources)
    trace = json.load(open(os.path.join(out, "trace.json")))
    slices = [e for e in trace["traceEvents"] if e.get("cat") == "neuron_instruction"]
    assert len(slices) == len(rows) and all("_scale_rows" in e["args"]["source_stack"] for e in slices)


def test_waits_add_up_to_the_issue_gap(run):
    out, _ = run
    rows = pq.read_table(os.path.join(out, "Instruction.parquet")).to_pylist()
    summary = json.load(open(os.path.join(out, "summary.json")))
    launch_ps = round(summary["launch_ns"] * 1000)
    previous = {}
    waited = 0
    for row in sorted(rows, key=lambda r: (r["engine"], r["pc"])):
        parts = row["nsim_semaphore_wait_ps"] + row["nsim_engine_busy_wait_ps"] + row["nsim_dependency_wait_ps"]
        assert row["nsim_wait_ps"] == parts == row["nsim_start_ps"] - row["nsim_ready_ps"]
        # could issue when the engine's previous instruction issued (the first: at launch)
        assert row["nsim_ready_ps"] == previous.get(row["engine"], launch_ps), row
        previous[row["engine"]] = row["nsim_start_ps"]
        assert row["evt_wait_time_ns"] == row["nsim_semaphore_wait_ps"] // 1000
        if row["nsim_signalled_by_id"] is not None:
            waited += 1
            signaller = rows[row["nsim_signalled_by_id"]]
            assert row["nsim_semaphore_wait_ps"] > 0 and signaller["nsim_start_ps"] < row["nsim_start_ps"]
    assert waited > 0
    # one trace arrow per released wait, from the signaller's lane to the waiter's
    trace = json.load(open(os.path.join(out, "trace.json")))["traceEvents"]
    starts = [e for e in trace if e.get("ph") == "s" and e.get("cat") == "semaphore"]
    ends = [e for e in trace if e.get("ph") == "f" and e.get("cat") == "semaphore"]
    assert len(starts) == len(ends) == waited
    assert {e["id"] for e in starts} == {e["id"] for e in ends}


def test_explorer_summary_of_a_matmul(tmp_path):
    @nki.jit
    def mm(a_t, b):  # a_t: [K, M], b: [K, N]
        out = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        ps = nl.matmul(nl.load(a_t), nl.load(b), transpose_x=True)
        nl.store(out, value=nl.copy(ps))
        return out

    a = np.ones((128, 128), np.float32)
    b = np.ones((128, 512), np.float32)
    r = nki.benchmark(mm, a, b, config="trn2", out_dir=str(tmp_path))
    s = pq.read_table(str(tmp_path / "Summary.parquet")).to_pylist()[0]
    total = r.summary["total"]
    assert s["model_flops"] == 2 * 128 * 128 * 512 and s["matmul_instruction_count"] == 1
    assert s["total_time"] == pytest.approx(total["total_time_ns"] * 1e-9)
    peak = total["peak_flops_per_s"]
    assert s["mfu_estimated_percent"] == pytest.approx(100 * s["model_flops"] / (peak * s["total_time"]))
    assert s["hfu_estimated_percent"] >= s["mfu_estimated_percent"]
    hbm = s["hbm_read_bytes"] + s["hbm_write_bytes"]
    assert hbm == 4 * (128 * 128 + 128 * 512 + 128 * 512)
    assert s["mm_arithmetic_intensity"] == pytest.approx((s["hardware_flops"] - s["transpose_flops"]) / hbm)
    assert s["mbu_estimated_percent"] == pytest.approx(100 * hbm / s["total_time"] / total["peak_hbm_bytes_per_s"])
    assert s["tensor_engine_instruction_count"] == 1
