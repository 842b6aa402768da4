"""report.html renders in headless Chromium (Debian's `chromium`, installed by
tools/setup.sh): no console errors, and every chart drew its SVG marks."""
import re
import shutil
import subprocess

import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def render(page):
    if CHROMIUM is None:
        pytest.fail("chromium is missing: run `bash tools/setup.sh`")
    done = subprocess.run(
        [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
         "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def check(dom, charts):
    html = re.search(r"<html[^>]*>", dom).group(0)
    assert "data-errors" not in html, f"console errors while rendering: {html}"
    drawn = re.search(r'data-charts-drawn="(\d+)"', dom)
    assert drawn and int(drawn.group(1)) == len(charts), "charts did not finish drawing"
    for chart in charts:
        block = dom.split(f'id="chart-{chart}"', 1)[1].split('<div class="chart"', 1)[0]
        assert "<svg" in block and 'class="mark-' in block, f"chart {chart} has no marks"


def test_run_report_draws(outputs):
    dom = render(outputs["dir"] / "run" / "report.html")
    check(dom, ["timeline", "utilisation", "roofline", "top"])
    assert "tensor_copy" in dom and "overhead-bound" in dom


def test_study_reports_draw(outputs):
    study = outputs["dir"] / "study"
    check(render(study / "report.html"), ["side_by_side"])
    for impl in ("op_by_op", "rms_norm", "compiled"):
        check(render(study / impl / "report.html"), ["timeline", "utilisation", "roofline", "top"])


def test_report_needs_no_network(outputs):
    page = (outputs["dir"] / "run" / "report.html").read_text()
    assert not re.search(r"""<(script|link|img)[^>]+(src|href)=["']?https?:""", page)


KERNEL_SOURCE = '''def rmsnorm(x, gamma):
    xt = load(x)
    gt = load(gamma)
    sq = square(xt)
    ms = mean(sq)
    rs = rsqrt(ms)
    return store(multiply(multiply(xt, rs), gt))
'''


def annotated_rmsnorm(tmp_path):
    """examples/rmsnorm.nk with each instruction's `# src:` naming a line of a Python file, as the NKI frontend
    writes it (docs/profile-tables.md): the i-th instruction comes from line i + 2 (the 2nd op on line 7)."""
    source = tmp_path / "kern.py"
    source.write_text(KERNEL_SOURCE)
    lines, n = [], 0
    for line in (ROOT / "sim/kernel/examples/rmsnorm.nk").read_text().splitlines():
        if re.match(r"^(sync|scalar|vector|gpsimd|tensor):", line):
            at = min(n + 2, 7)
            line += f"  # src: {source}:{at} rmsnorm < {tmp_path}/main.py:3 <module>"
            n += 1
        lines.append(line)
    nk = tmp_path / "rmsnorm.nk"
    nk.write_text("\n".join(lines) + "\n")
    return nk


def test_source_view_names_lines_and_findings(tmp_path, tool):
    out = tmp_path / "out"
    tool("nsim", "run", annotated_rmsnorm(tmp_path), "--out", out)
    dom = render(out / "report.html")
    check(dom, ["timeline", "utilisation", "roofline", "top"])
    section = dom.split('id="source"', 1)[1]
    assert "kern.py" in section and "rsqrt(ms)" in section  # the file's text, line by line
    findings = re.findall(r"<li>(.*?)</li>", section.split("</ol>", 1)[0], re.S)
    assert findings and any("idle" in f for f in findings)
    assert any("kern.py:" in f for f in findings), findings  # findings name the lines
    # the table row of line 6 (rs = rsqrt(ms)): ScalarE, with a semaphore wait
    row = re.search(r"<tr><td[^>]*>6</td>(.*?)</tr>", section, re.S).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    assert cells[2] == "ScalarE" and float(cells[3]) > 0, cells
    for table in ("Instruction", "DmaPacket", "Summary", "SchemaFields"):  # nsim run --out writes the tables too
        assert (out / f"{table}.parquet").is_file()
