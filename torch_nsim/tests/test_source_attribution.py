"""Every instruction a PyTorch program runs names the ATen op that launched
it and the user's Python line that called the op (docs/profile-tables.md):
in trace.json's args, instructions.csv, the Parquet tables (DuckDB's "time
per source line" query of the docs groups by those lines) and report.html."""
import csv
import inspect
import json
import os
import re
import runpy

import duckdb
import pyarrow.parquet as pq
import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from torch_nsim.profiler import NeuronConfig, NeuronProfiler, user_stack

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "profile-tables.md")

# A user's script: two helpers, each calling a different op.
SCRIPT = '''import torch


def scale(x):
    return x * 3.0


def shift(x):
    return x + 1.0


def model(x):
    return shift(scale(x))
'''
SCALE_LINE, SHIFT_LINE, MODEL_LINE = 5, 9, 13


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("attribution")
    script = root / "model.py"
    script.write_text(SCRIPT)
    model = runpy.run_path(str(script))["model"]
    out = root / "prof"
    cfg = NeuronConfig(capture_enabled_for_nc="0", profile_output_dir=str(out))
    x = torch.arange(512, dtype=torch.float32).reshape(4, 128).to("neuron")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1], experimental_config=cfg,
                 on_trace_ready=NeuronProfiler(cfg).export_trace):
        y = model(x)
        torch.neuron.synchronize()
    torch.testing.assert_close(y.cpu(), torch.arange(512, dtype=torch.float32).reshape(4, 128) * 3.0 + 1.0)
    return str(script), out


def _frame(script, line, function):
    return "%s:%d %s" % (script, line, function)


def test_every_csv_row_names_its_op_and_the_scripts_line(run):
    script, out = run
    rows = list(csv.DictReader(open(out / "instructions.csv")))
    assert len(rows) > 4
    by_op = {}
    for r in rows:
        by_op.setdefault(r["aten_op"], set()).add(r["source"])
        assert r["source_stack"].startswith(script + ":"), r
    assert by_op == {"aten::mul": {"model.py:%d" % SCALE_LINE}, "aten::add": {"model.py:%d" % SHIFT_LINE}}
    stacks = {r["aten_op"]: r["source_stack"].split(" < ")[:2] for r in rows}
    assert stacks["aten::mul"] == [_frame(script, SCALE_LINE, "scale"), _frame(script, MODEL_LINE, "model")]
    assert stacks["aten::add"] == [_frame(script, SHIFT_LINE, "shift"), _frame(script, MODEL_LINE, "model")]


def test_trace_args_name_op_and_frame(run):
    script, out = run
    events = json.load(open(out / "trace.json"))["traceEvents"]
    instructions = [e for e in events if e.get("cat") == "neuron_instruction"]
    assert instructions
    for e in instructions:
        assert e["args"]["aten_op"] in ("aten::mul", "aten::add")
        assert e["args"]["source"] in ("model.py:%d" % SCALE_LINE, "model.py:%d" % SHIFT_LINE)
        assert e["args"]["source_stack"].startswith(script)


def test_docs_time_per_source_line_query_groups_by_the_scripts_lines(run):
    """The first query of docs/profile-tables.md, as written, on the torch program's tables."""
    _, out = run
    sql = re.findall(r"```sql\n(.*?)```", open(DOC).read(), re.S)[0]
    result = duckdb.sql(sql.replace("'prof/", "'%s/" % out)).fetchall()
    lines = {r[0]: r for r in result}
    assert set(lines) == {"model.py:%d" % SCALE_LINE, "model.py:%d" % SHIFT_LINE}
    assert all(r[1] > 0 and r[3] > 0 for r in result)
    table = pq.read_table(out / "Instruction.parquet").to_pylist()
    assert sum(r[1] for r in result) == len(table)
    ops = {(r["nki_source_location"], r["nsim_aten_op"]) for r in table}
    assert ops == {("model.py:%d" % SCALE_LINE, "aten::mul"), ("model.py:%d" % SHIFT_LINE, "aten::add")}
    packets = pq.read_table(out / "DmaPacket.parquet").to_pylist()
    assert packets and all(p["nsim_aten_op"] in ("aten::mul", "aten::add") for p in packets)


def test_waits_add_up_by_cause(run):
    """Each instruction's wait causes add up exactly (ps) to the gap between when it could issue and its start."""
    _, out = run
    rows = pq.read_table(out / "Instruction.parquet").to_pylist()
    for r in rows:
        causes = r["nsim_semaphore_wait_ps"] + r["nsim_engine_busy_wait_ps"] + r["nsim_dependency_wait_ps"]
        assert r["nsim_wait_ps"] == causes == r["nsim_start_ps"] - r["nsim_ready_ps"], r
    assert any(r["nsim_semaphore_wait_ps"] > 0 for r in rows)


def test_report_source_view_shows_the_script(run):
    _, out = run
    html = open(out / "report.html").read()
    assert "def scale(x):" in html and "return x * 3.0" in html


def test_user_stack_stops_at_library_frames():
    """From here: this test's own frame first (tests are the user's code), then pytest's (a library) ends it."""
    frames = user_stack().split(" < ")
    assert frames[0].endswith("test_user_stack_stops_at_library_frames")
    assert len(frames) == 1


def test_backward_ops_name_the_line_that_called_backward(tmp_path):
    """Autograd runs backward ops on its own thread, where no Python frame called them: their
    instructions name the op and the user's line that called backward(); the forward's name
    the line that computed the forward."""
    w = torch.ones(64, 32).to("neuron").requires_grad_()
    x = torch.ones(16, 64).to("neuron")
    cfg = NeuronConfig(capture_enabled_for_nc="0", profile_output_dir=str(tmp_path))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.PrivateUse1], experimental_config=cfg,
                 on_trace_ready=NeuronProfiler(cfg).export_trace):
        loss = torch.tanh(x @ w).sum()
        forward_line = inspect.currentframe().f_lineno - 1
        loss.backward()
        backward_line = inspect.currentframe().f_lineno - 1
        torch.neuron.synchronize()
    rows = [r for r in csv.DictReader(open(tmp_path / "instructions.csv")) if r["opcode"] != "dma_transfer"]
    assert all(r["aten_op"] and r["source"] for r in rows)
    lines = {r["source"].split(" ")[0] for r in rows}
    here = "test_source_attribution.py:%d"
    assert {l.rsplit("/", 1)[-1] for l in lines} == {here % forward_line, here % backward_line}
    backward_ops = {r["aten_op"] for r in rows if r["source"].split(" ")[0].endswith(here % backward_line)}
    assert {"aten::mm", "aten::mul"} <= backward_ops  # the weight gradient xᵀ·g and tanh's (1 − y²)·g
