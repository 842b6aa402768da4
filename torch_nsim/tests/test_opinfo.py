"""PyTorch's own OpInfo database (`op_db`) on device "neuron", float32 and
bfloat16, function / in-place / out= variants, against the CPU (see
opinfo_check.py). A wrong result, a crash or an error that names no missing
kernel fails; an op the device lacks must be listed in
opinfo_unsupported.txt, and a listed op that runs fails until its line is
deleted, so the list only shrinks.

    python3 -m pytest torch_nsim/tests/test_opinfo.py -q -k "cumsum"
"""
import os

import pytest
import torch
from torch.testing._internal.common_methods_invocations import op_db

import opinfo_check

HERE = os.path.dirname(os.path.abspath(__file__))
UNSUPPORTED_FILE = os.path.join(HERE, "opinfo_unsupported.txt")

# Results that differ from the CPU for a stated reason, not a device bug.
KNOWN_DEVIATIONS = {
    ("native_layer_norm", "bfloat16"):
        "mean and rstd come back in float32, as on CUDA and as PyTorch's meta function for non-CPU devices "
        "(torch._refs.native_layer_norm converts them to the input dtype on the CPU only)",
    ("as_strided.partial_views", "float32"):
        "the samples view storage beyond the input tensor, which a copy to another device does not carry",
    ("as_strided.partial_views", "bfloat16"):
        "the samples view storage beyond the input tensor, which a copy to another device does not carry",
}


def _listed():
    with open(UNSUPPORTED_FILE) as f:
        return {tuple(line.split()[:2]) for line in f if line.strip() and not line.startswith("#")}


LISTED = _listed()


def _cases():
    for op in op_db:
        for dtype in opinfo_check.DTYPES:
            if dtype in op.supported_dtypes("cpu"):
                yield pytest.param(op, dtype, id=f"{opinfo_check.op_id(op)}-{str(dtype).replace('torch.', '')}")


@pytest.mark.parametrize("op,dtype", _cases())
def test_opinfo_on_neuron(op, dtype):
    key = (opinfo_check.op_id(op), str(dtype).replace("torch.", ""))
    if key in KNOWN_DEVIATIONS:
        pytest.xfail(KNOWN_DEVIATIONS[key])
    outcome = opinfo_check.check(op, dtype, uninitialised=op.name.startswith(("empty", "new_empty")))
    if outcome is None:
        pytest.skip("the CPU runs no sample of this dtype")
    if outcome.kind == "pass":
        assert key not in LISTED, f"{key[0]} ({key[1]}) runs on neuron now: delete its line from {UNSUPPORTED_FILE}"
    elif outcome.kind == "unsupported":
        assert key in LISTED, f"{key[0]} ({key[1]}) stopped with {outcome.detail} and is not in {UNSUPPORTED_FILE}"
    else:
        pytest.fail(f"{key[0]} ({key[1]}): {outcome}")


def test_every_listed_entry_exists():
    known = {(opinfo_check.op_id(op), str(dt).replace("torch.", "")) for op in op_db for dt in opinfo_check.DTYPES}
    assert not LISTED - known, f"entries of {UNSUPPORTED_FILE} that op_db does not have: {sorted(LISTED - known)}"
