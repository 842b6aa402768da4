"""`overrides:` of a sweep spec: blocks of config overrides (grid, list, random
samples with a seed), expanded into override sets. Each set is a tuple of
(key, value text) pairs, the `nsim run --set KEY=VALUE` of one point."""
import dataclasses
import itertools
import random

import yaml

BLOCK_KINDS = ("grid", "list", "random")


@dataclasses.dataclass(frozen=True)
class OverrideSet:
    pairs: tuple   # ((key, value text), ...), in the spec's key order
    where: str     # "spec.yaml:12: overrides[0].grid": errors about this set name it

    def texts(self):
        return ["%s=%s" % kv for kv in self.pairs]


def expand(node):
    """All override sets of `overrides:` (a block or a list of blocks), duplicates removed."""
    blocks = node.sequence() if isinstance(node.node, yaml.SequenceNode) else [node]
    if not blocks:
        raise node.error("must not be empty (leave `overrides:` out for the configs as they are)")
    seen, out = set(), []
    for block in blocks:
        for override_set in _block(block):
            if override_set.pairs not in seen:
                seen.add(override_set.pairs)
                out.append(override_set)
    return tuple(out)


def _block(node):
    fields = node.mapping(BLOCK_KINDS)
    if len(fields) != 1:
        raise node.error("each block is one of %s, got %s" % (", ".join(BLOCK_KINDS), ", ".join(fields) or "nothing"))
    kind, body = next(iter(fields.items()))
    return {"grid": _grid, "list": _list, "random": _random}[kind](body)


def _where(node):
    return "%s:%d: %s" % (node.source, node.line, node.path)


def _grid(node):
    axes = []
    for key, values in node.mapping().items():
        items = values.sequence() if isinstance(values.node, yaml.SequenceNode) else [values]
        if not items:
            raise values.error("needs at least one value")
        axes.append([(key, v.raw()) for v in items])
    if not axes:
        raise node.error("needs at least one key with its values")
    return [OverrideSet(tuple(combo), _where(node)) for combo in itertools.product(*axes)]


def _list(node):
    out = []
    for item in node.sequence():
        pairs = tuple((key, value.raw()) for key, value in item.mapping().items())
        out.append(OverrideSet(pairs, _where(item)))
    if not out:
        raise node.error("needs at least one point")
    return out


def _random(node):
    fields = node.mapping(("seed", "samples", "keys"))
    for required in ("seed", "samples", "keys"):
        if required not in fields:
            raise node.error("needs `%s:`" % required)
    rng = random.Random(fields["seed"].integer(0))  # Python's Mersenne Twister: the same draws everywhere
    samplers = [(key, _sampler(spec)) for key, spec in fields["keys"].mapping().items()]
    if not samplers:
        raise fields["keys"].error("needs at least one key")
    count = fields["samples"].integer(1)
    return [OverrideSet(tuple((key, draw(rng)) for key, draw in samplers), _where(node)) for _ in range(count)]


def _sampler(node):
    fields = node.mapping(("choice", "uniform", "log_uniform", "unit"))
    kinds = [k for k in ("choice", "uniform", "log_uniform") if k in fields]
    if len(kinds) != 1:
        raise node.error("needs exactly one of choice, uniform, log_uniform")
    kind = kinds[0]
    if kind == "choice":
        if "unit" in fields:
            raise fields["unit"].error("a choice lists its values with their units")
        values = [v.raw() for v in fields["choice"].sequence()]
        if not values:
            raise fields["choice"].error("needs at least one value")
        return lambda rng: rng.choice(values)
    low, high = _bounds(fields[kind], positive=kind == "log_uniform")
    unit = fields["unit"].text() if "unit" in fields else ""
    if kind == "uniform":
        return lambda rng: "%.6g%s" % (rng.uniform(low, high), unit)
    return lambda rng: "%.6g%s" % (low * (high / low) ** rng.random(), unit)


def _bounds(node, positive):
    items = node.sequence()
    values = [i.scalar() for i in items]
    if len(values) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in values):
        raise node.error("must be [LOW, HIGH], two numbers")
    low, high = values
    if not low < high or (positive and low <= 0):
        raise node.error("needs %sLOW < HIGH, got [%g, %g]" % ("0 < " if positive else "", low, high))
    return float(low), float(high)
