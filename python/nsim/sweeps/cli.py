"""The `nsim` command of the Python package: `nsim sweep SPEC --out DIR`
runs a sweep; every other subcommand (run, config, compare) is the C++
binary's (//tools:nsim, <checkout>/bazel-bin/tools/nsim), run as is."""
import argparse
import os
import subprocess
import sys

from nsim import _core

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] != ["sweep"]:
        return _forward(argv)
    return sweep_main(argv[1:])


SWEEP_HELP = "  sweep                       run a sweep spec over kernels, configs and overrides (nsim sweep --help)\n"


def _forward(argv):
    binary = os.environ.get("NSIM_BINARY") or os.path.join(_core.REPO_ROOT, "bazel-bin", "tools", "nsim")
    if not os.path.isfile(binary):
        sys.stderr.write("nsim: %s is not built: run `bazel build //tools:nsim` in %s\n" % (binary, _core.REPO_ROOT))
        return EXIT_ERROR
    if argv in ([], ["-h"], ["--help"]):  # the binary's subcommands, and this one
        status = subprocess.run([binary, *argv]).returncode
        sys.stdout.write(SWEEP_HELP)
        return status
    os.execv(binary, [binary, *argv])


def _parser():
    p = argparse.ArgumentParser(prog="nsim sweep", description=(
        "Run every point of a sweep spec (docs/sweep.md) and write results.parquet, results.csv, "
        "report.html and sweep.json into --out. Finished points are cached by content (kernel hash, "
        "resolved config, nsim version): a rerun runs only new points."))
    p.add_argument("spec", metavar="SPEC", help="the sweep spec, a YAML file")
    p.add_argument("--out", required=True, metavar="DIR", help="output directory")
    p.add_argument("--ray", metavar="auto|local|ADDRESS", help=(
        "run on Ray: auto = the cluster started on this machine (ray start), local = a private one-machine "
        "cluster, or HOST:PORT of a head node"))
    p.add_argument("--jobs", type=int, metavar="N", help="worker processes here (default: all CPUs); 1 runs "
                   "serially in this process; with --ray local, the cluster's CPUs")
    p.add_argument("--cache", metavar="DIR", help="result cache (default: DIR/cache of --out)")
    p.add_argument("--no-progress", action="store_true", help="no progress line on stderr")
    return p


def sweep_main(argv):
    args = _parser().parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        _parser().error("--jobs must be at least 1")
    from nsim.sweeps import api, on_ray, spec as specs
    try:
        df = api.sweep(args.spec, out=args.out, ray=args.ray, jobs=args.jobs, cache=args.cache,
                       progress=not args.no_progress)
    except specs.SpecError as e:
        sys.stderr.write("nsim sweep: %s\n" % e)
        return EXIT_USAGE
    except on_ray.RayMissing as e:
        sys.stderr.write("nsim sweep: %s\n" % e)
        return EXIT_ERROR
    except api.SweepInterrupted as e:
        sys.stderr.write("\nnsim sweep: %s\n" % e)
        return EXIT_INTERRUPTED
    s = df.attrs["sweep"]
    sys.stderr.write("nsim sweep: %d points (%d cache hits, %d run, %d failed) in %.1f s on %s; wrote "
                     "results.parquet, results.csv, report.html, sweep.json in %s\n" % (
                         s["points"], s["cache_hits"], s["ran"], s["failed"], s["wall_seconds"], s["backend"],
                         args.out))
    return EXIT_ERROR if s["failed"] else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
