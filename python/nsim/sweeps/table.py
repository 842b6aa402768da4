"""The result table: one row per point (identity columns, the swept keys'
values, the run summary's metrics flattened), as a pandas DataFrame and as
Parquet and CSV files. Only simulated, deterministic values: a serial, a
parallel and a Ray run of one spec give equal tables."""
import fnmatch
import os

import pandas as pd

from nsim.sweeps.spec import SpecError

IDENTITY = ("point", "kernel", "kind", "config", "overrides", "kernel_hash", "config_hash", "nsim_version", "error")
LIST_KEYS = ("engine", "queue", "name")  # what names an element of a summary list (engines, dma_queues)
NOT_METRICS = ("nc", "executions")        # the total's core index and execution count: same for every run
TEXT_METRICS = ("verdict",)              # the roofline's verdict is the one metric that is a word


def flatten(summary):
    """The run summary (docs/output-schema.md) as {metric: value}: the device
    total's numbers under dotted names ("VectorE.active_time_ns",
    "roofline.compute_floor_ns"), with the run's own top-level times."""
    out = {}
    for key in ("total_time_ns", "launch_ns", "teardown_ns"):
        if isinstance(summary.get(key), (int, float)):
            out[key] = summary[key]
    _flatten({k: v for k, v in summary.get("total", {}).items() if k not in NOT_METRICS}, "", out)
    return out


def _flatten(value, prefix, out):
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, prefix + key if not prefix else "%s.%s" % (prefix, key), out)
    elif isinstance(value, list):
        for item in value:
            name = next((item[k] for k in LIST_KEYS if isinstance(item, dict) and k in item), None)
            if name is not None:
                _flatten({k: v for k, v in item.items() if k not in LIST_KEYS}, "%s.%s" % (prefix, name)
                         if prefix not in ("engines", "dma_queues") else name, out)
    elif isinstance(value, bool):
        return
    elif isinstance(value, (int, float)) or (isinstance(value, str) and prefix.rsplit(".", 1)[-1] in TEXT_METRICS):
        out[prefix] = value


def row(point, outcome, spec):
    """One table row: `outcome` is {"summary": ...} or {"error": message}."""
    r = {"point": point.point_id, "kernel": point.task["label"], "kind": point.task["kind"],
         "config": os.path.splitext(os.path.basename(point.task["config"]))[0],
         "overrides": " ".join(point.task["overrides"]), "kernel_hash": point.kernel_hash,
         "config_hash": point.config_hash, "nsim_version": point.nsim_version, "error": outcome.get("error", "")}
    r.update(point.swept)
    if "summary" in outcome:
        metrics = flatten(outcome["summary"])
        if spec.metrics:
            metrics = {k: v for k, v in metrics.items() if any(fnmatch.fnmatchcase(k, p) for p in spec.metrics)}
        r.update(metrics)
    return r


def frame(rows, spec):
    """The DataFrame of `rows` (in point order), with the spec's cost column."""
    df = pd.DataFrame(rows)
    if df.empty or spec.cost is None:
        return df
    named = list(spec.cost) if isinstance(spec.cost, dict) else [spec.cost]
    missing = [c for c in named if c not in df.columns]
    if missing:
        raise SpecError("%s: cost: no column %s in the results (the swept keys and metrics are columns: %s)"
                        % (spec.source, ", ".join(missing), ", ".join(c for c in df if c not in IDENTITY)))
    if isinstance(spec.cost, dict):
        df["cost"] = sum(weight * pd.to_numeric(df[c]) for c, weight in spec.cost.items())
    return df


def cost_column(spec):
    return None if spec.cost is None else "cost" if isinstance(spec.cost, dict) else spec.cost


def write(df, out_dir):
    """results.parquet and results.csv in out_dir, each replaced atomically."""
    os.makedirs(out_dir, exist_ok=True)
    for name, writer in (("results.parquet", lambda p: df.to_parquet(p, index=False)),
                         ("results.csv", lambda p: df.to_csv(p, index=False))):
        path = os.path.join(out_dir, name)
        writer(path + ".tmp")
        os.replace(path + ".tmp", path)
