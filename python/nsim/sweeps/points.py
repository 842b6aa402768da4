"""A spec's points (kernels x configs x override sets) with the identity of
each: its point id, kernel hash, resolved-config content hash, nsim version
and cache key. Bad overrides fail here, before anything runs, at their line."""
import dataclasses
import hashlib
import json
import os

from nsim import _core
from nsim.sweeps import kernels
from nsim.sweeps.spec import SpecError


def nsim_version():
    from nsim import __version__
    return __version__


@dataclasses.dataclass(frozen=True)
class Point:
    index: int
    point_id: str
    task: dict          # kernels.py's task: what a worker runs
    kernel_hash: str
    config_hash: str
    nsim_version: str   # package version + the simulator build's content hash
    swept: dict         # swept key -> its resolved value in base units (the config's own parse)
    cache_key: str


def _digest(*parts):
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _trace_inputs(core, config, overrides):
    """What an NKI trace sees of a config (Kernel.trace reads config_info only)."""
    return json.dumps(core.config_info(config, overrides), sort_keys=True)


def plan(spec):
    """Every point of `spec`, in spec order (kernel, then config, then override set)."""
    core = _core.core()
    versions, hashes = {}, {}
    out = []
    for kernel in spec.kernels:
        for config in spec.configs:
            for override_set in spec.override_sets:
                overrides = override_set.texts()
                try:
                    config_hash = core.config_hash(config, overrides)
                    resolved = core.resolved_values(config, overrides)
                except core.SimError as e:
                    raise SpecError("%s: config '%s' with %s: %s"
                                    % (override_set.where, config, " ".join(overrides) or "no overrides", e)) from None
                task = {"kind": kernel.kind, "path": kernel.path, "function": kernel.function, "args": kernel.args,
                        "args_path": kernel.args_path,
                        "argv": list(kernel.argv), "label": kernel.label, "config": config,
                        "overrides": overrides, "timing_only": spec.timing_only}
                try:  # a file hashes once; an NKI kernel once per config_info, all its trace reads of a config
                    memo_key = _trace_inputs(core, config, overrides) if kernel.kind == "nki" else ""
                    if (kernel, memo_key) not in hashes:
                        hashes[kernel, memo_key] = kernels.kernel_hash(task)
                    kernel_hash = hashes[kernel, memo_key]
                except kernels.PointError as e:
                    raise SpecError("%s: kernel '%s': %s" % (spec.source, kernel.label, e)) from None
                if kernel.kind not in versions:
                    versions[kernel.kind] = "%s+%s" % (nsim_version(), kernels.build_id(kernel.kind))
                version = versions[kernel.kind]
                point_id = _digest(kernel.kind, kernel.label, os.path.basename(config), overrides)[:12]
                out.append(Point(
                    index=len(out), point_id=point_id, task=task, kernel_hash=kernel_hash, config_hash=config_hash,
                    nsim_version=version, swept={k: resolved[k] for k in spec.swept_keys},
                    cache_key=_digest(kernel.kind, kernel_hash, config_hash, version, spec.timing_only)))
    return out
