"""The sweep spec (docs/sweep.md): a YAML file read into a Spec, every key
checked, every error naming the file, the line and the key."""
import dataclasses
import os

import yaml

from nsim.sweeps import overrides as override_points

KERNEL_KINDS = ("nk", "nki", "torch")
TOP_KEYS = ("name", "kernels", "configs", "overrides", "metrics", "cost", "timing_only")


_CONSTRUCTOR = yaml.SafeLoader("")  # builds Python values from single composed nodes


class SpecError(ValueError):
    """A bad sweep spec; the message starts with FILE:LINE: and names the key."""


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    kind: str            # "nk", "nki" or "torch"
    path: str            # absolute path of the .nk / .py file
    label: str           # the kernel column: `name:` or the file's stem (plus :function)
    function: str = ""   # nki: the @nki.jit kernel in `path`
    args: str = ""       # nki: the argument builder, a function in `args_path`
    args_path: str = ""  # nki: the builder's file (`path` unless `args:` names one)
    argv: tuple = ()     # torch: command-line arguments of the script


@dataclasses.dataclass(frozen=True)
class Spec:
    source: str
    name: str
    kernels: tuple
    configs: tuple
    override_sets: tuple   # OverrideSet per override point (overrides.py)
    swept_keys: tuple      # every key that some override point sets, in first-seen order
    metrics: tuple         # fnmatch patterns of metric columns to keep; () keeps all
    cost: object           # None, a column name, or {column: weight}
    timing_only: bool


class _Node:
    """A YAML value with where it came from."""

    def __init__(self, source, node, path):
        self.source, self.node, self.path = source, node, path

    @property
    def line(self):
        return self.node.start_mark.line + 1

    def error(self, message):
        return SpecError("%s:%d: %s: %s" % (self.source, self.line, self.path or "spec", message))

    def child(self, key, node):
        return _Node(self.source, node, "%s.%s" % (self.path, key) if self.path else str(key))

    def mapping(self, allowed=None):
        if not isinstance(self.node, yaml.MappingNode):
            raise self.error("must be a mapping (key: value), got %s" % self._what())
        out = {}
        for k, v in self.node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else None
            if key is None:
                raise _Node(self.source, k, self.path).error("keys must be plain text")
            if allowed is not None and key not in allowed:
                raise self.child(key, k).error("unknown key; expected one of: %s" % ", ".join(allowed))
            if key in out:
                raise self.child(key, k).error("given twice")
            out[key] = self.child(key, v)
        return out

    def sequence(self):
        if not isinstance(self.node, yaml.SequenceNode):
            raise self.error("must be a list, got %s" % self._what())
        return [_Node(self.source, v, "%s[%d]" % (self.path, i)) for i, v in enumerate(self.node.value)]

    def scalar(self):
        if not isinstance(self.node, yaml.ScalarNode):
            raise self.error("must be a single value, got %s" % self._what())
        return _CONSTRUCTOR.construct_object(self.node)

    def raw(self):
        """A scalar's text exactly as written ("1.4GHz", "4"): override values."""
        if not isinstance(self.node, yaml.ScalarNode) or self.node.value.strip() == "":
            raise self.error("must be a single non-empty value, got %s" % self._what())
        return self.node.value

    def text(self):
        value = self.scalar()
        if value is None or isinstance(value, (dict, list)) or str(value).strip() == "":
            raise self.error("must be non-empty text")
        return str(value)

    def integer(self, minimum):
        value = self.scalar()
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.error("must be an integer >= %d, got %r" % (minimum, value))
        return value

    def boolean(self):
        value = self.scalar()
        if not isinstance(value, bool):
            raise self.error("must be true or false, got %r" % (value,))
        return value

    def texts(self):
        """A list of texts, or one text as a list of one."""
        if isinstance(self.node, yaml.SequenceNode):
            items = [n.text() for n in self.sequence()]
            if not items:
                raise self.error("must not be empty")
            return items
        return [self.text()]

    def _what(self):
        return {yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list"}.get(type(self.node), "a single value")


def load(path):
    """Reads and checks the spec file at `path`; raises SpecError naming file:line: key."""
    path = os.path.abspath(path)
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise SpecError("%s: cannot read the sweep spec: %s" % (path, e.strerror)) from None
    return parse(text, path)


def parse(text, source="<spec>"):
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise SpecError("%s:%d: not valid YAML: %s" % (source, line, getattr(e, "problem", e))) from None
    if node is None:
        raise SpecError("%s:1: the sweep spec is empty; it needs at least `kernels:`" % source)
    root = _Node(source, node, "")
    top = root.mapping(TOP_KEYS)
    if "kernels" not in top:
        raise root.error("missing `kernels:` (the kernels to sweep)")
    base = os.path.dirname(os.path.abspath(source)) if source != "<spec>" else os.getcwd()
    sets = override_points.expand(top["overrides"]) if "overrides" in top else (
        override_points.OverrideSet((), "%s:%d: configs" % (source, root.line)),)
    return Spec(
        source=source,
        name=top["name"].text() if "name" in top else os.path.splitext(os.path.basename(source))[0],
        kernels=tuple(_kernels(top["kernels"], base)),
        configs=tuple(_configs(top.get("configs"), base)),
        override_sets=sets,
        swept_keys=tuple(dict.fromkeys(k for s in sets for k, _ in s.pairs)),
        metrics=tuple(top["metrics"].texts()) if "metrics" in top else (),
        cost=_cost(top["cost"]) if "cost" in top else None,
        timing_only=top["timing_only"].boolean() if "timing_only" in top else True,
    )


def _existing_file(node, base, suffixes):
    path = os.path.normpath(os.path.join(base, node.text()))
    if not os.path.isfile(path):
        raise node.error("no such file: %s" % path)
    if not path.endswith(suffixes):
        raise node.error("expected a %s file, got %s" % (" or ".join(suffixes), path))
    return path


def _kernels(node, base):
    items = node.sequence()
    if not items:
        raise node.error("must list at least one kernel")
    labels = {}
    for item in items:
        kernel = _kernel(item, base)
        if kernel.label in labels:
            raise item.error("kernel name '%s' is used twice (first at line %d); give one a `name:`"
                             % (kernel.label, labels[kernel.label]))
        labels[kernel.label] = item.line
        yield kernel


def _kernel(node, base):
    fields = node.mapping(KERNEL_KINDS + ("name", "args", "argv"))
    kinds = [k for k in KERNEL_KINDS if k in fields]
    if len(kinds) != 1:
        raise node.error("needs exactly one of %s (the kernel's kind), got %s"
                         % (", ".join(KERNEL_KINDS), ", ".join(kinds) or "none"))
    kind = kinds[0]
    for extra, owner in (("args", "nki"), ("argv", "torch")):
        if extra in fields and kind != owner:
            raise fields[extra].error("only a `%s:` kernel takes `%s:`" % (owner, extra))
    if kind == "nki":
        path, function = _python_function(fields["nki"], base, None)
        if "args" not in fields:
            raise node.error("an `nki:` kernel needs `args:`, its argument builder: FUNCTION or FILE.py:FUNCTION")
        args_path, args = _python_function(fields["args"], base, path)
        label = fields["name"].text() if "name" in fields else function
        return KernelSpec("nki", path, label, function=function, args=args, args_path=args_path)
    path = _existing_file(fields[kind], base, (".nk",) if kind == "nk" else (".py",))
    label = fields["name"].text() if "name" in fields else os.path.splitext(os.path.basename(path))[0]
    argv = tuple(fields["argv"].texts()) if "argv" in fields else ()
    return KernelSpec(kind, path, label, argv=argv)


def _python_function(node, base, default_file):
    """FILE.py:FUNCTION (or FUNCTION alone, in `default_file`) as (path, function)."""
    where = node.text()
    file_part, _, function = where.rpartition(":")
    if not function or not (file_part or default_file):
        raise node.error("must be FILE.py:FUNCTION, got '%s'" % where)
    if not file_part:
        return default_file, function
    path = os.path.normpath(os.path.join(base, file_part))
    if not os.path.isfile(path) or not path.endswith(".py"):
        raise node.error("no such Python file: %s" % path)
    return path, function


def _configs(node, base):
    if node is None:
        return ["trn2"]
    out = []
    for item, name in zip(node.sequence() if isinstance(node.node, yaml.SequenceNode) else [node], node.texts()):
        if name.endswith((".yaml", ".yml")):
            name = os.path.normpath(os.path.join(base, name))
            if not os.path.isfile(name):
                raise item.error("no such config file: %s" % name)
        out.append(name)
    if len(set(out)) != len(out):
        raise node.error("lists a config twice")
    return out


def _cost(node):
    if isinstance(node.node, yaml.ScalarNode):
        return node.text()
    weights = {}
    for key, value in node.mapping().items():
        number = value.scalar()
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise value.error("a cost weight must be a number, got %r" % (number,))
        weights[key] = float(number)
    if not weights:
        raise node.error("must name a column, or map columns to weights")
    return weights
