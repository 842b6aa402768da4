"""Every JSON the tools print or write validates against docs/schema (docs/output-schema.md)."""
import jsonschema
import numpy as np


def test_every_json_output_validates(outputs, schemas):
    kinds = set()
    for where, kind, doc in outputs["docs"]:
        jsonschema.Draft7Validator(schemas[kind]).validate(doc)
        kinds.add(kind)
    assert kinds == set(schemas), f"schemas never exercised: {set(schemas) - kinds}"


def test_one_time_unit_and_spelling(outputs):
    """ns everywhere: no key ends in _ps, _us or _ms, none says 'utilisation' or has a space."""
    def keys(node):
        if isinstance(node, dict):
            for k, v in node.items():
                yield k
                yield from keys(v)
        elif isinstance(node, list):
            for v in node:
                yield from keys(v)
    for where, kind, doc in outputs["docs"]:
        if kind == "trace":
            continue  # Chrome's format: ts/dur in us by definition
        for k in keys(doc):
            assert not k.endswith(("_ps", "_us", "_ms")), f"{where}: {k}"
            assert "utilisation" not in k and " " not in k, f"{where}: {k}"


def test_run_summary_total_matches_trace(outputs):
    """summary.json's total_time_ns is the nc_exec span the report and trace show."""
    run_dir = outputs["dir"] / "run"
    import json
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["total_time_ns"] == summary["total"]["total_time_ns"] > 0
    csv = (run_dir / "instructions.csv").read_text().splitlines()
    assert csv[0].startswith("kernel_name,kernel_hash,nc,lane,opcode,start_ns")
    assert len(csv) - 1 == len(json.loads((run_dir / next(p.name for p in run_dir.glob("*.ntff"))).read_text())["instructions"]) + \
        len(json.loads((run_dir / next(p.name for p in run_dir.glob("*.ntff"))).read_text())["dma"])


def test_saved_tensor_is_the_matmul(outputs):
    """tensors/c.npy holds c = a^T @ b of the kernel's own inputs, to bf16 accuracy."""
    t = outputs["dir"] / "run" / "tensors"
    a, b, c = (np.load(t / f"{n}.npy") for n in "abc")
    assert c.shape == (64, 256) and c.dtype == np.float32
    want = a.T.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(c, want, rtol=2 ** -7, atol=0.05 * np.abs(want).max())
