#!/usr/bin/env python3
"""Issue 12's speed and memory targets, measured in one run on this machine.

    python3 benchmarks/speed_targets.py            # from the repository root
    python3 benchmarks/speed_targets.py --quick    # skips the 1M-instruction and 8192^2 rows
    python3 benchmarks/speed_targets.py --filed 5  # adds the [128, 512] row side by side with
                                                   # the code the issue was filed against

Builds the opt binaries, runs every benchmark that measures a target next to
its reference (the raw SystemC rate and the host's multiply-add ceiling are
measured inside sim_speed; CPU times of child processes come from
getrusage), and prints one Markdown table: target, measured, pass/fail.
Times are CPU seconds (user + sys), the clock the issue's targets are stated
in: on a loaded machine a process's wall time is mostly waiting for a CPU.
A benchmark report, not a test: it exits 0 whatever it measures. The
SCALE-Sim comparison fetches a peer simulator and takes about a minute, so it
stays a separate script (benchmarks/scalesim/compare.sh).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "bazel-out", "k8-opt", "bin")
# The issue's own "today" figure for MixedStream 128x512 (CPU time, this kind of
# machine, when it was filed): the 5x target is stated against it.
ISSUE_MIXED_128x512_INSTR_PER_S = 5.72e3


def build():
    targets = ["//benchmarks:sim_speed", "//benchmarks:million_instructions",
               "//benchmarks:rmsnorm", "//tools:nsim"]
    subprocess.run(["bazel", "build", "-c", "opt", *targets], cwd=ROOT, check=True,
                   stdout=sys.stderr)


def env():
    e = dict(os.environ)
    e["NSIM_CONFIG_DIR"] = os.path.join(ROOT, "configs")
    return e


def child_run(argv):
    """Runs argv; returns (CPU seconds, peak RSS in MB) of that child alone."""
    proc = subprocess.Popen(argv, cwd=ROOT, env=env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, argv)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0  # ru_maxrss in KiB


def gbench(binary, pattern, *extra):
    path = os.path.join(BIN, "benchmarks", binary)
    out = subprocess.run([path, f"--benchmark_filter={pattern}", "--benchmark_format=json", *extra],
                         cwd=path + ".runfiles/nsim", env=env(), check=True,
                         capture_output=True, text=True).stdout
    return {b["name"]: b for b in json.loads(out)["benchmarks"]}


def row(rows, target, measured, ok, bench):
    """ok: True / False against the target, None for a row without one."""
    verdict = "-" if ok is None else "pass" if ok else "FAIL"
    rows.append((target, measured, verdict, bench))


def sim_speed_rows(rows):
    b = gbench("sim_speed", r"ComputeStream|MixedStream/partitions:1/free:1$|"
               r"MixedStream/partitions:128/free:512$")
    c = b["BM_ComputeStream"]
    row(rows, "compute-only stream >= 0.5 of the raw SystemC rate",
        f"{c['instr/s'] / 1e6:.2f} M instr/s, raw {c['raw/s'] / 1e6:.1f} M/s: ratio {c['ratio']:.3f}",
        c["ratio"] >= 0.5, "sim_speed ComputeStream")
    m = b["BM_MixedStream/partitions:1/free:1"]
    row(rows, "mixed DMA+compute stream, tiny tiles, >= 0.25 of raw",
        f"{m['instr/s'] / 1e6:.2f} M instr/s, raw {m['raw/s'] / 1e6:.1f} M/s: ratio {m['ratio']:.3f}",
        m["ratio"] >= 0.25, "sim_speed MixedStream 1x1")
    big = b["BM_MixedStream/partitions:128/free:512"]
    speedup = big["instr/s"] / ISSUE_MIXED_128x512_INSTR_PER_S
    ceiling = big.get("mac_bound/s")  # absent on a host without AVX2+FMA
    ceiling_text = f"; host multiply-add ceiling {ceiling / 1e3:.1f} k instr/s" if ceiling else ""
    row(rows, "mixed [128, 512] tiles, values on, >= 5x the issue's 5.72 k instr/s",
        f"{big['instr/s'] / 1e3:.1f} k instr/s = {speedup:.2f}x{ceiling_text}", speedup >= 5,
        "sim_speed MixedStream 128x512")


def filed_row(rows, reps):
    """MixedStream 128x512 alternated with the filed code's binary (filed_side_by_side.sh):
    the 5x judged on the median of the per-pair ratios, both measured at the same time."""
    out = subprocess.run(["bash", os.path.join(ROOT, "benchmarks", "filed_side_by_side.sh"), str(reps)],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout

    def rate(line):
        value = line.split("instr/s=")[1].split()[0]
        return float(value.rstrip("kM")) * {"k": 1e3, "M": 1e6}.get(value[-1], 1.0)

    filed = [rate(l) for l in out.splitlines() if l.startswith("filed")]
    now = [rate(l) for l in out.splitlines() if l.startswith("this checkout")]
    ratios = sorted(n / f for f, n in zip(filed, now))
    median = ratios[len(ratios) // 2]
    row(rows, "mixed [128, 512] tiles, values on, >= 5x the filed code (a7df98c) side by side",
        f"{min(now) / 1e3:.1f}-{max(now) / 1e3:.1f} k vs {min(filed) / 1e3:.1f}-{max(filed) / 1e3:.1f} k "
        f"instr/s in {len(ratios)} alternated pairs: median {median:.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x)",
        median >= 5, "filed_side_by_side.sh")


def million_rows(rows):
    b = gbench("million_instructions", r"instructions:1000000/")
    for name, r in sorted(b.items()):
        parts = name.split("partitions:")[1].split("/")[0]
        values = "values" if "/values:1" in name else "timing-only"
        if "/hbm_tiles:0" in name:  # every step its own HBM tiles: no two DMA access patterns alike
            values += ", all DMA access patterns distinct"
        if "/loop_form:1" in name:  # parsed from `.nk` text with a counted loop
            values += ", written as a loop"
        limit = 10.0 if "/values:1" in name else 3.0
        row(rows, f"1M-instruction vector add, [{parts}, 64] tiles, {values}: < {limit:g} s",
            f"{r['cpu_s']:.2f} s CPU (load {r['load_cpu_s']:.2f} s), {r['instr/s'] / 1e3:.0f} k instr/s",
            r["cpu_s"] < limit, "million_instructions")
        # Judged on the whole process: the built Kernel is resident too.
        row(rows, f"memory, same kernel [{parts}, 64] {values}: <= 300 B/instruction resident",
            f"{r['bytes/instr']:.0f} B/instr: {r['kernel_B/instr']:.0f} the built Kernel + "
            f"{r['sim_B/instr']:.0f} loading and simulating", r["bytes/instr"] <= 300, "million_instructions")


def study_rows(rows):
    study = os.path.join(BIN, "benchmarks", "rmsnorm")
    for extra, name, limit in (([], "values", 10.0), (["--timing-only"], "timing-only", None)):
        cpu, rss = child_run([study, "--shape", "8192,8192", *extra])
        target = f"RMSNorm study 8192x8192, {name}" + (f": < {limit:g} s" if limit else " (no target)")
        row(rows, target, f"{cpu:.2f} s CPU, peak RSS {rss:.0f} MB", None if limit is None else cpu < limit,
            "rmsnorm --shape 8192,8192")


def fixed_cost_row(rows, runs=20):
    nsim = os.path.join(BIN, "tools", "nsim")
    kernel = os.path.join(ROOT, "sim", "kernel", "examples", "trivial_add.nk")
    costs = sorted(child_run([nsim, "run", kernel])[0] for _ in range(runs))
    median = costs[len(costs) // 2]
    row(rows, "fixed cost of `nsim run` (trivial kernel) < 30 ms",
        f"median {median * 1e3:.1f} ms CPU over {runs} runs (best {costs[0] * 1e3:.1f})",
        median < 0.030, "nsim run trivial_add.nk")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="skip the 1M-instruction and 8192^2 rows")
    p.add_argument("--no-build", action="store_true", help="use the binaries already built")
    p.add_argument("--filed", type=int, metavar="REPS", default=0,
                   help="also run the [128, 512] row side by side with the filed code, REPS pairs "
                        "(builds it in a worktree under /tmp the first time)")
    args = p.parse_args()
    if not args.no_build:
        build()
    rows = []
    sim_speed_rows(rows)
    if args.filed > 0:
        filed_row(rows, args.filed)
    if not args.quick:
        million_rows(rows)
        study_rows(rows)
    fixed_cost_row(rows)
    load = os.getloadavg()
    print(f"Load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs\n")
    print("| target | measured | pass/fail | benchmark |")
    print("|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
