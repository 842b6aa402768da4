"""Shared fixtures: the built binaries (bazel build //tools:nsim //benchmarks:rmsnorm
first) and the outputs they write, produced once per session."""
import json
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schema"
BINARIES = {"nsim": ROOT / "bazel-bin" / "tools" / "nsim", "rmsnorm": ROOT / "bazel-bin" / "benchmarks" / "rmsnorm"}


def run(tool, *args):
    binary = BINARIES[tool]
    if not binary.exists():
        pytest.fail(f"{binary} is missing: run `bazel build //tools:nsim //benchmarks:rmsnorm` first")
    done = subprocess.run([str(binary), *map(str, args)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{tool} {' '.join(map(str, args))}: exit {done.returncode}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="session")
def outputs(tmp_path_factory):
    """Every JSON the tools print or write, as (where, schema name, document)."""
    tmp = tmp_path_factory.mktemp("outputs")
    docs = []
    matmul = "sim/kernel/examples/matmul.nk"
    docs.append(("nsim run --json --records", "summary", json.loads(run("nsim", "run", matmul, "--json", "--records"))))
    docs.append(("nsim compare --json", "compare",
                 json.loads(run("nsim", "compare", "sim/kernel/examples/rmsnorm.nk", "--config", "trn1",
                                "--config", "trn1-fastvec", "--json"))))
    run("nsim", "run", matmul, "--out", tmp / "run", "--save-tensors")
    docs.append(("rmsnorm --json", "study", json.loads(run("rmsnorm", "--json", "--out", tmp / "study"))))
    docs.append(("rmsnorm --compare --json", "study-compare",
                 json.loads(run("rmsnorm", "--compare", "trn1-fastvec", "--config", "trn1", "--json",
                                "--out", tmp / "compare"))))
    kinds = {"summary.json": "summary", "trace.json": "trace"}
    for path in sorted(tmp.rglob("*")):
        kind = "ntff" if path.suffix == ".ntff" else kinds.get(path.name)
        if path.parent == tmp / "study" and path.name == "summary.json":
            kind = "study"
        if kind:
            docs.append((str(path.relative_to(tmp)), kind, json.loads(path.read_text())))
    return {"docs": docs, "dir": tmp}


@pytest.fixture(scope="session")
def schemas():
    return {p.name.removesuffix(".schema.json"): json.loads(p.read_text()) for p in SCHEMAS.glob("*.schema.json")}


@pytest.fixture(scope="session")
def tool():
    """run(tool, *args), for tests that run the binaries on inputs of their own."""
    return run
