"""Every fixed cost a later generation would inherit from trn1.yaml, where
it was fitted, measured or inferred for NeuronCore-v2 (or one other
generation), is stated in that generation's own config with a source: a
value documented for it, or [U] "unmeasured on this generation" naming
whose value it is. Nothing is silently carried over."""
import os
import re

import pytest

CONFIGS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "configs")
SECTION = re.compile(r"^(\w+):")
KEY = re.compile(r"^  (\w+):\s*(\S+)\s*(?:#\s*(.*))?$")
# Host-side costs are the framework's and the runtime's, the same on every
# generation (trn1.yaml says so); capture is the profiler's.
HOST_SIDE = {"host", "capture"}
NOT_DOCUMENTED = re.compile(r"calibrated|measured|\[I\]")
A_SOURCE = re.compile(r"\[D\]|\[I\]|\[U\]|calibrated|measured")


def keys(name):
    """(section, key) -> the comment on its line, for the keys the file sets."""
    out, section = {}, None
    with open(os.path.join(CONFIGS, name + ".yaml")) as f:
        for line in f:
            m = SECTION.match(line)
            if m:
                section = m.group(1)
                continue
            m = KEY.match(line)
            if m and section:
                out[(section, m.group(1))] = m.group(3) or ""
    return out


def generation_specific_costs():
    return sorted(k for k, comment in keys("trn1").items()
                  if k[0] not in HOST_SIDE and NOT_DOCUMENTED.search(comment))


def test_the_rule_finds_the_fitted_costs():
    costs = generation_specific_costs()
    assert ("dma", "start_latency") in costs and ("kernel", "launch") in costs
    assert ("tensor", "rows") not in costs  # documented for every generation: not a fit


@pytest.mark.parametrize("generation", ["trn2", "trn3"])
def test_each_generation_states_its_fixed_costs(generation):
    stated = keys(generation)
    missing = [f"{s}.{k}" for s, k in generation_specific_costs() if (s, k) not in stated]
    assert not missing, (f"configs/{generation}.yaml inherits these from trn1.yaml, where they were fitted or "
                         f"inferred: state each with its source, or as [U] unmeasured on this generation: {missing}")
    unsourced = [f"{s}.{k}" for (s, k), c in stated.items() if not A_SOURCE.search(c)]
    assert not unsourced, f"configs/{generation}.yaml: keys without a source tag: {unsourced}"
