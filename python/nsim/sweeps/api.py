"""nsim.sweep(spec): plan the points, take what the cache has, run the rest
(here or on Ray), write the table and the report, return the DataFrame."""
import dataclasses
import json
import os
import time

from nsim.sweeps import local, on_ray, points as planning, report, spec as specs, table
from nsim.sweeps.cache import Cache
from nsim.sweeps.progress import Progress


class SweepInterrupted(KeyboardInterrupt):
    """Ctrl-C: the table written holds every point finished so far; rerunning resumes."""

    def __init__(self, done, total, out):
        super().__init__("interrupted after %d of %d points%s; rerun the same command to resume"
                         % (done, total, " (table so far in %s)" % out if out else ""))


@dataclasses.dataclass
class Stats:
    points: int = 0
    cache_hits: int = 0
    ran: int = 0
    failed: int = 0
    wall_seconds: float = 0.0
    backend: str = ""


def default_cache(out):
    if out:
        return os.path.join(out, "cache")
    return os.environ.get("NSIM_SWEEP_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "nsim", "sweep")


def _load(spec):
    if isinstance(spec, specs.Spec):
        return spec
    if isinstance(spec, str) and "\n" in spec:
        return specs.parse(spec)
    return specs.load(os.fspath(spec))


def sweep(spec, out=None, ray=None, jobs=None, cache=None, progress=False):
    """Runs every point of `spec` (a path, YAML text or a Spec); returns the
    result table as a pandas DataFrame (df.attrs["sweep"]: points, cache
    hits, runs, failures, wall seconds). out: also write results.parquet,
    results.csv, report.html and sweep.json there. ray: None (this machine,
    `jobs` processes, default all CPUs), "auto", "local" or HOST:PORT."""
    start = time.monotonic()
    spec = _load(spec)
    jobs = jobs or os.cpu_count() or 1
    points = planning.plan(spec)
    store = Cache(cache or default_cache(out))
    outcomes = {p.point_id: store.get(p.cache_key) for p in points}
    todo = [p for p in points if outcomes[p.point_id] is None]
    stats = Stats(points=len(points), cache_hits=len(points) - len(todo),
                  backend="ray " + ray if ray else "serial" if jobs == 1 else "local, %d processes" % jobs)
    bar = Progress(len(points), stats.cache_hits, progress)

    def on_result(point, outcome):
        if "error" in outcome:
            stats.failed += 1
        else:
            if outcome["kernel_hash"] != point.kernel_hash:  # the cache key named another kernel than ran
                raise RuntimeError("point %s ran kernel hash %s, planned %s" % (
                    point.point_id, outcome["kernel_hash"], point.kernel_hash))
            store.put(point.cache_key, outcome)
        stats.ran += 1
        outcomes[point.point_id] = outcome
        bar.advance()

    try:
        _execute(todo, ray, jobs, on_result)
    except KeyboardInterrupt:
        bar.close()
        _take_from_cache(points, outcomes, store)
        _finish(spec, points, outcomes, out, stats, start)
        raise SweepInterrupted(sum(o is not None for o in outcomes.values()), len(points), out) from None
    bar.close()
    return _finish(spec, points, outcomes, out, stats, start)


def _take_from_cache(points, outcomes, store):
    """Ctrl-C can land between a point's cache write and its row: the table
    takes every point the cache holds, so the rerun's cache hits are its rows."""
    for p in points:
        if outcomes[p.point_id] is None:
            outcomes[p.point_id] = store.get(p.cache_key)


def _execute(todo, ray, jobs, on_result):
    if not todo:
        return
    if ray:
        on_ray.run(todo, ray, jobs, on_result)
    elif jobs == 1:
        local.run_serial(todo, on_result)
    else:
        local.run_pool(todo, min(jobs, len(todo)), on_result)


def _finish(spec, points, outcomes, out, stats, start):
    rows = [table.row(p, outcomes[p.point_id], spec) for p in points if outcomes[p.point_id] is not None]
    df = table.frame(rows, spec)
    stats.wall_seconds = round(time.monotonic() - start, 3)
    df.attrs["sweep"] = dataclasses.asdict(stats)
    if out:
        table.write(df, out)
        report.write(df, spec, os.path.join(out, "report.html"))
        with open(os.path.join(out, "sweep.json"), "w") as f:
            json.dump({"spec": spec.source, "name": spec.name, **dataclasses.asdict(stats)}, f, indent=2)
            f.write("\n")
    return df
