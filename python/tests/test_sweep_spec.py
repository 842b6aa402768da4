"""The sweep spec (docs/sweep.md): expansion of grid, list and random
overrides, and errors that name the file, the line and the key."""
import pathlib
import textwrap

import pytest

from nsim.sweeps import points, spec as specs

ROOT = pathlib.Path(__file__).resolve().parents[2]
RMSNORM = ROOT / "sim" / "kernel" / "examples" / "rmsnorm.nk"


def write(tmp_path, text):
    path = tmp_path / "spec.yaml"
    path.write_text(textwrap.dedent(text).replace("RMSNORM", str(RMSNORM)))
    return path


def error(tmp_path, text):
    with pytest.raises(specs.SpecError) as e:
        points.plan(specs.load(write(tmp_path, text)))
    return str(e.value)


def test_grid_list_and_random_expand_in_order(tmp_path):
    s = specs.load(write(tmp_path, """
        kernels: [{nk: RMSNORM}]
        configs: [trn1, trn2]
        overrides:
          - grid: {vector.freq: [1GHz, 2GHz], dma.bytes_per_ns: [23B/ns, 46B/ns, 92B/ns]}
          - list: [{vector.freq: 3GHz}, {vector.freq: 1GHz, dma.bytes_per_ns: 23B/ns}]
          - random: {seed: 7, samples: 4, keys: {vector.freq: {uniform: [0.5, 2.5], unit: GHz}}}
        """))
    sets = [o.pairs for o in s.override_sets]
    # 6 grid points, one new list point (the other repeats a grid point), 4 random samples
    assert len(sets) == 6 + 1 + 4
    assert sets[0] == (("vector.freq", "1GHz"), ("dma.bytes_per_ns", "23B/ns"))
    assert sets[6] == (("vector.freq", "3GHz"),)
    assert s.swept_keys == ("vector.freq", "dma.bytes_per_ns")
    assert len(points.plan(s)) == 2 * 11
    again = specs.load(write(tmp_path, """
        kernels: [{nk: RMSNORM}]
        overrides: {random: {seed: 7, samples: 4, keys: {vector.freq: {uniform: [0.5, 2.5], unit: GHz}}}}
        """))
    assert [o.pairs for o in again.override_sets] == sets[7:]  # a seed gives the same samples


def test_point_ids_and_hashes_are_content(tmp_path):
    text = """
        kernels: [{nk: RMSNORM}]
        overrides: {grid: {vector.freq: [1GHz, 1000MHz, 2GHz]}}
        """
    a, b = points.plan(specs.load(write(tmp_path, text))), points.plan(specs.load(write(tmp_path, text)))
    assert [p.point_id for p in a] == [p.point_id for p in b]
    # 1GHz and 1000MHz resolve to one config: one config hash, one cache key, two points
    assert a[0].config_hash == a[1].config_hash != a[2].config_hash
    assert a[0].cache_key == a[1].cache_key and a[0].point_id != a[1].point_id
    assert a[0].swept == {"vector.freq": 1e9}


@pytest.mark.parametrize("text, expected", [
    ("kernels: []\n", "spec.yaml:1: kernels: must list at least one kernel"),
    ("kernels: [{nk: RMSNORM}]\nmetric: [x]\n", "spec.yaml:2: metric: unknown key"),
    ("kernels:\n  - nk: missing.nk\n", "spec.yaml:2: kernels[0].nk: no such file"),
    ("kernels:\n  - {nk: RMSNORM, torch: x.py}\n", "spec.yaml:2: kernels[0]: needs exactly one of nk, nki, torch"),
    ("kernels:\n  - nki: k.py\n", "spec.yaml:2: kernels[0].nki: must be FILE.py:FUNCTION"),
    ("kernels: [{nk: RMSNORM}]\noverrides:\n  - grid: {vector.freq: []}\n",
     "spec.yaml:3: overrides[0].grid.vector.freq: needs at least one value"),
    ("kernels: [{nk: RMSNORM}]\noverrides:\n  - random: {seed: 1, samples: 2, keys: {vector.freq: {uniform: [3, 1]}}}\n",
     "spec.yaml:3: overrides[0].random.keys.vector.freq.uniform: needs LOW < HIGH"),
    ("kernels: [{nk: RMSNORM}]\ntiming_only: maybe\n", "spec.yaml:2: timing_only: must be true or false"),
    ("kernels: [{nk: RMSNORM}]\noverrides:\n  grid:\n    vector.freqq: [1GHz]\n",
     "spec.yaml:4: overrides.grid: config 'trn2' with vector.freqq=1GHz: "),
    ("kernels: [{nk: RMSNORM}]\noverrides:\n  list:\n    - {vector.freq: 1GHz}\n    - {vector.freq: -1GHz}\n",
     "spec.yaml:5: overrides.list[1]: config 'trn2' with vector.freq=-1GHz: "),
    ("kernels: [{nk: RMSNORM}]\n  bad: indent\n", "spec.yaml:2: not valid YAML"),
])
def test_errors_name_file_line_and_key(tmp_path, text, expected):
    message = error(tmp_path, text)
    assert expected in message and str(tmp_path) in message, message


def test_bad_override_names_the_config_key(tmp_path):
    message = error(tmp_path, "kernels: [{nk: RMSNORM}]\noverrides: {grid: {vector.freqq: [1GHz]}}\n")
    assert "vector.freqq" in message and "freq" in message
