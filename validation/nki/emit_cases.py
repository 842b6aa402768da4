"""Traces the validation cases' NKI sources through nsim.nki and writes each as <case>.nk, which
`report` (validation/report_main.cc) times beside the hand-built kernel of the same case.

    python3 validation/nki/emit_cases.py --out DIR [--config trn1] [--only a,b] [--explain]

Prints one line per case: its name and the seconds tracing took, or why it was skipped; with
--explain also what the compiler model decided (nsim/nki/passes), each distinct decision once
with how often it was made."""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))

import cases  # noqa: E402


def emit(case, out_dir, config, explain=False):
    kernel, args = cases.arguments(case)
    start = time.time()
    traced = kernel.trace((), args, config, explain=explain)
    with open(os.path.join(out_dir, case + ".nk"), "w") as f:
        f.write(traced.text)
    return time.time() - start, traced.decisions


def summary(decisions):
    """Distinct (pass, subject, decision, why) with their counts, in first-seen order."""
    counts = {}
    for d in decisions:
        subject = d["subject"] if d["pass"] == "buffer_rule" or d["subject"] == "kernel" else d["subject"].split()[0]
        key = (d["pass"], subject, d["decision"], d["why"])
        counts[key] = counts.get(key, 0) + 1
    return ["  %s: %s -> %s (%s)%s" % (k + (" x%d" % n if n > 1 else "",)) for k, n in counts.items()]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, help="directory for the <case>.nk files")
    p.add_argument("--config", default="trn1")
    p.add_argument("--only", default="", help="comma-separated case names")
    p.add_argument("--explain", action="store_true", help="print the compiler model's decisions per case")
    a = p.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    names = [n for n in a.only.split(",") if n] or list(cases.CASES)
    unknown = [n for n in names if n not in cases.CASES and n not in cases.NOT_EXPRESSIBLE]
    if unknown:
        p.error("no case named '%s'" % unknown[0])
    for name in names:
        if name in cases.NOT_EXPRESSIBLE:
            print("%s: skipped: %s" % (name, cases.NOT_EXPRESSIBLE[name]))
            continue
        seconds, decisions = emit(name, a.out, a.config, a.explain)
        print("%s: traced in %.1f s" % (name, seconds), flush=True)
        for line in summary(decisions):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
