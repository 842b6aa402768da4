"""report.html renders in headless Chromium (Debian's `chromium`, installed by
tools/setup.sh): no console errors, and every chart drew its SVG marks."""
import re
import shutil
import subprocess

import pytest

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
