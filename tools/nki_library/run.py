"""Runs the NKI Library's own tests (github.com/aws-neuron/nki-library) against nsim and prints a
table: per test file (one kernel), tests passed / failed, the first error, and the device time of
its first timed run. A measurement tool, not a project test: it fetches nothing; give it a local
checkout of the library.

    python3 tools/nki_library/run.py NKILIB_DIR [--only SUBSTRING ...] [--timeout SECONDS] [--all]

It runs the library's pytest harness in its simulation mode (`--test-mode simulation`), whose
`nki_cpu_simulator` import is served by nsim (shim/nki_cpu_simulator), each test file in its own
pytest process (a SystemC simulation per process). Without --all only the `fast` tests run (the
library's own small shapes). Needs pytest and the library's test requirements (numpy, ml_dtypes,
torch for the references).
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def test_files(nkilib, only):
    files = sorted(glob.glob(os.path.join(nkilib, "test", "integration", "**", "test_*.py"), recursive=True))
    files = [f for f in files if "common" not in os.path.basename(f) and "utils" not in os.path.basename(f)]
    if only:
        files = [f for f in files if any(s in f for s in only)]
    return files


def first_line(text):
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("E "):
            return line[2:].strip()[:160]
    return (text or "").strip().splitlines()[-1][:160] if (text or "").strip() else ""


def run_file(nkilib, path, timeout, all_tests, work):
    junit, times = os.path.join(work, "junit.xml"), os.path.join(work, "times.jsonl")
    # The harness writes every test's inputs there (GBs for the MoE tests): a scratch directory removed
    # after each file, never the library checkout (its default, ./neuron_test_output).
    artifacts = os.path.join(work, "artifacts")
    for f in (junit, times):
        if os.path.exists(f):
            os.remove(f)
    env = dict(os.environ, NSIM_NKILIB_TIMES=times,
               PYTHONPATH=os.pathsep.join([os.path.join(HERE, "shim"), os.path.join(ROOT, "python"),
                                           os.path.join(nkilib, "src"), nkilib, os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "nsim_nkilib_plugin",
           "--test-mode", "simulation",
           "--junitxml", junit, "--output-directory", artifacts, os.path.relpath(path, nkilib)]
    if not all_tests:
        cmd += ["-m", "fast"]
    try:
        proc = subprocess.run(cmd, cwd=nkilib, env=env, capture_output=True, text=True, timeout=timeout)
        output = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        return {"passed": 0, "failed": 0, "skipped": 0, "error": "timeout after %ds" % timeout, "time_ns": None}
    finally:
        shutil.rmtree(artifacts, ignore_errors=True)
    row = {"passed": 0, "failed": 0, "skipped": 0, "error": "", "time_ns": None}
    if os.path.exists(junit):
        for case in ET.parse(junit).getroot().iter("testcase"):
            bad = case.find("failure") if case.find("failure") is not None else case.find("error")
            if bad is not None:
                row["failed"] += 1
                row["error"] = row["error"] or first_line(bad.text or bad.get("message", ""))
            elif case.find("skipped") is not None:
                row["skipped"] += 1
            else:
                row["passed"] += 1
    if not row["passed"] and not row["failed"]:
        row["error"] = row["error"] or first_line(output)
    if os.path.exists(times):
        with open(times) as f:
            runs = [json.loads(line) for line in f if line.strip()]
        row["time_ns"] = runs[0]["device_time_ns"] if runs else None
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("nkilib", help="a local checkout of aws-neuron/nki-library")
    ap.add_argument("--only", nargs="*", default=[], help="test files whose path contains one of these")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per test file")
    ap.add_argument("--all", action="store_true", help="every test, not only the `fast` ones")
    args = ap.parse_args()
    files = test_files(os.path.abspath(args.nkilib), args.only)
    if not files:
        sys.exit("no test files under %s/test/integration" % args.nkilib)
    print("| kernel test | passed | failed | skipped | device time (us) | first error |")
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as work:
        for path in files:
            row = run_file(os.path.abspath(args.nkilib), path, args.timeout, args.all, work)
            t = "%.2f" % (row["time_ns"] / 1000.0) if row["time_ns"] else ""
            print("| %s | %d | %d | %d | %s | %s |" % (os.path.basename(path)[5:-3], row["passed"], row["failed"],
                                                    row["skipped"], t, row["error"].replace("|", "/")), flush=True)


if __name__ == "__main__":
    main()
