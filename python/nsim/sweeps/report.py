"""report.html of a sweep: device time against each swept key, the Pareto
view of device time against the spec's cost column, and the sensitivity of
device time to each key. One self-contained file (inline SVG, no network)."""
import html
import math

from nsim.sweeps import table

TIME = "total_time_ns"
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")
W, H, PAD_L, PAD_B, PAD_T, PAD_R = 420, 260, 64, 40, 14, 30
FEW_VALUES = 8  # an axis with at most this many distinct values gets a tick at each

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%(title)s</title>
<script>
window.addEventListener("error", function (e) {
  var root = document.documentElement;
  root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + e.message + ";");
});
window.addEventListener("load", function () {
  document.documentElement.setAttribute("data-charts-drawn",
      document.querySelectorAll(".chart svg").length);
});
</script>
<style>
body { font: 14px sans-serif; margin: 24px; color: #222; max-width: 1500px; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
.chart { border: 1px solid #ddd; padding: 8px; }
.chart h3 { margin: 0 0 4px; font-size: 14px; }
svg text { font: 11px sans-serif; fill: #444; }
.legend span { display: inline-block; margin-right: 14px; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
table { border-collapse: collapse; font-size: 12px; }
td, th { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
.note { color: #666; }
</style></head><body>
<h1>%(title)s</h1>
<p class="note">%(about)s</p>
<div class="legend">%(legend)s</div>
%(sections)s
</body></html>
"""


def write(df, spec, path):
    with open(path, "w") as f:
        f.write(render(df, spec))


def render(df, spec):
    ok = df[df["error"] == ""] if "error" in df else df
    kernels = list(dict.fromkeys(ok["kernel"])) if len(ok) else []
    color = {k: COLORS[i % len(COLORS)] for i, k in enumerate(kernels)}
    sections = [_per_key(ok, spec, kernels, color), _sensitivity(ok, spec, kernels),
                _pareto(ok, spec, kernels, color), _failures(df)]
    about = "%d points (%d failed): %d kernels x %d configs x %d override sets; device time is %s, simulated." % (
        len(df), len(df) - len(ok), len(spec.kernels), len(spec.configs), len(spec.override_sets), TIME)
    legend = "".join('<span><i style="background:%s"></i>%s</span>' % (color[k], html.escape(k)) for k in kernels)
    return PAGE % {"title": html.escape("Sweep %s" % spec.name), "about": html.escape(about), "legend": legend,
                   "sections": "\n".join(s for s in sections if s)}


def _chart(name, title, svg):
    return '<div class="chart" id="chart-%s"><h3>%s</h3>%s</div>' % (name, html.escape(title), svg)


def _section(title, body):
    return "<h2>%s</h2>\n%s" % (html.escape(title), body)


def _per_key(ok, spec, kernels, color):
    if not spec.swept_keys or TIME not in ok:
        return _section("Device time per swept key", '<p class="note">No swept keys (no `overrides:`).</p>')
    charts = []
    for i, key in enumerate(spec.swept_keys):
        series = []
        for k in kernels:
            rows = ok[ok["kernel"] == k]
            means = rows.groupby(key)[TIME].mean()
            series.append((k, color[k], list(zip(rows[key], rows[TIME])), list(means.items())))
        charts.append(_chart("key-%d" % i, "%s vs %s" % (TIME, key), _plot(series, key, TIME)))
    return _section("Device time per swept key", '<div class="charts">%s</div>' % "".join(charts))


def pareto_front(rows, cost):
    """The points no other point beats on both cost and device time (lower is better)."""
    best, front = math.inf, []
    for _, r in rows.sort_values([cost, TIME]).iterrows():
        if r[TIME] < best:
            best = r[TIME]
            front.append(r)
    return front


def _pareto(ok, spec, kernels, color):
    cost = table.cost_column(spec)
    if cost is None:
        return _section("Pareto", '<p class="note">Name a cost column (`cost:`) in the spec for a Pareto view.</p>')
    series, front_rows = [], []
    for k in kernels:
        rows = ok[ok["kernel"] == k]
        front = pareto_front(rows, cost)
        front_rows += front
        series.append((k, color[k], list(zip(rows[cost], rows[TIME])), [(r[cost], r[TIME]) for r in front]))
    cols = ["kernel", "config", "overrides", cost, TIME]
    body = "".join("<tr>%s</tr>" % "".join("<td>%s</td>" % html.escape(_cell(r[c])) for c in cols) for r in front_rows)
    front_table = "<table><tr>%s</tr>%s</table>" % ("".join("<th>%s</th>" % html.escape(c) for c in cols), body)
    chart = _chart("pareto", "%s vs %s (lines: the Pareto front per kernel)" % (TIME, cost),
                   _plot(series, cost, TIME, step=True))
    return _section("Pareto: device time against %s" % cost, '<div class="charts">%s</div>%s' % (chart, front_table))


def sensitivity(ok, key):
    """Per kernel: how far device time moves across the key's values, as the
    spread of its mean per value over the kernel's mean, in percent."""
    out = {}
    for kernel, rows in ok.groupby("kernel", sort=False):
        means = rows.groupby(key)[TIME].mean()
        out[kernel] = 100.0 * (means.max() - means.min()) / rows[TIME].mean() if len(means) > 1 else 0.0
    return out


def _sensitivity(ok, spec, kernels):
    if not spec.swept_keys or TIME not in ok:
        return ""
    bars = [(key, kernel, sensitivity(ok, key).get(kernel, 0.0)) for key in spec.swept_keys for kernel in kernels]
    return _section("Sensitivity per key", _chart("sensitivity", "spread of mean %s across each key's values, "
                                                  "%% of the kernel's mean" % TIME, _bars(bars, kernels)))


def _failures(df):
    if "error" not in df or not (df["error"] != "").any():
        return ""
    bad = df[df["error"] != ""]
    rows = "".join("<tr><td>%s</td><td>%s</td><td>%s</td><td style='text-align:left'>%s</td></tr>" % tuple(
        html.escape(str(r[c])) for c in ("kernel", "config", "overrides", "error")) for _, r in bad.iterrows())
    return _section("Failed points", "<table><tr><th>kernel</th><th>config</th><th>overrides</th><th>error</th></tr>"
                    "%s</table>" % rows)


def _cell(value):
    return "%.6g" % value if isinstance(value, float) else str(value)


def _si(value):
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return "%.4g%s" % (value / factor, suffix)
    return "%.4g" % value


def _scale(values, lo_px, hi_px):
    lo, hi = min(values), max(values)
    if lo == hi:
        lo, hi = lo - (abs(lo) or 1) * 0.05, hi + (abs(hi) or 1) * 0.05
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad
    return (lambda v: lo_px + (float(v) - lo) / (hi - lo) * (hi_px - lo_px)), lo, hi


def _ticks(values, lo, hi):
    distinct = sorted(set(values))
    return distinct if len(distinct) <= FEW_VALUES else [lo + (hi - lo) * i / 4 for i in range(5)]


def _axes(x_label, y_label, xs, fx, x_lo, x_hi, fy, y_lo, y_hi):
    parts = ['<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (PAD_L, H - PAD_B, W - PAD_R, H - PAD_B),
             '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888"/>' % (PAD_L, PAD_T, PAD_L, H - PAD_B)]
    for x in _ticks(xs, x_lo, x_hi):
        parts.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (fx(x), H - PAD_B + 14, _si(x)))
    for i in range(5):
        y = y_lo + (y_hi - y_lo) * i / 4
        parts.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (PAD_L - 4, fy(y) + 4, _si(y)))
    parts.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % ((PAD_L + W - PAD_R) // 2, H - 6,
                                                                         html.escape(x_label)))
    parts.append('<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">%s</text>' % (
        (PAD_T + H - PAD_B) // 2, (PAD_T + H - PAD_B) // 2, html.escape(y_label)))
    return parts


def _plot(series, x_label, y_label, step=False):
    """Scatter of every (x, y) per series, with a line through its `line` points."""
    xs = [float(x) for _, _, pts, _ in series for x, _ in pts]
    ys = [float(y) for _, _, pts, _ in series for _, y in pts]
    if not xs:
        return '<p class="note">no points</p>'
    fx, x_lo, x_hi = _scale(xs, PAD_L, W - PAD_R)
    fy, y_lo, y_hi = _scale(ys, H - PAD_B, PAD_T)
    parts = _axes(x_label, y_label, xs, fx, x_lo, x_hi, fy, y_lo, y_hi)
    for name, color, pts, line in series:
        for x, y in pts:
            parts.append('<circle class="mark-point" cx="%.1f" cy="%.1f" r="3" fill="%s" fill-opacity="0.55">'
                         '<title>%s: %s=%s, %s=%s</title></circle>' % (fx(x), fy(y), color, html.escape(name),
                                                                      html.escape(x_label), _si(float(x)),
                                                                      html.escape(y_label), _si(float(y))))
        if len(line) > 1:
            coords = []
            for i, (x, y) in enumerate(line):
                if step and i:
                    coords.append("%.1f,%.1f" % (fx(x), fy(line[i - 1][1])))
                coords.append("%.1f,%.1f" % (fx(x), fy(y)))
            parts.append('<polyline class="mark-line" points="%s" fill="none" stroke="%s" stroke-width="1.5"/>' % (
                " ".join(coords), color))
    return '<svg width="%d" height="%d" viewBox="0 0 %d %d">%s</svg>' % (W, H, W, H, "".join(parts))


def _bars(bars, kernels):
    row_h, label_w, bar_w = 16, 260, 360
    height = row_h * len(bars) + 24
    top = max([b[2] for b in bars] + [1e-9])
    parts = []
    for i, (key, kernel, value) in enumerate(bars):
        y = i * row_h + 4
        color = COLORS[kernels.index(kernel) % len(COLORS)]
        parts.append('<text x="%d" y="%d" text-anchor="end">%s / %s</text>' % (label_w - 6, y + 11, html.escape(key),
                                                                                html.escape(kernel)))
        parts.append('<rect class="mark-bar" x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%.3g%%</title>'
                     '</rect>' % (label_w, y, bar_w * value / top, row_h - 4, color, value))
        parts.append('<text x="%.1f" y="%d">%.3g%%</text>' % (label_w + bar_w * value / top + 4, y + 11, value))
    width = label_w + bar_w + 60
    return '<svg width="%d" height="%d" viewBox="0 0 %d %d">%s</svg>' % (width, height, width, height, "".join(parts))

