"""One sweep point of a PyTorch script, in its own process:

    python3 -m nsim.sweeps.torch_point SCRIPT CONFIG [KEY=VALUE ...] -- [ARGV ...]

sets torch_nsim's config (the point's config and overrides), runs the script
as __main__ and prints, as its last stdout line, the summary of every kernel
execution the script made on the neuron devices (the script's own output goes
to stderr)."""
import contextlib
import json
import runpy
import sys


def main(argv):
    split = argv.index("--")
    script, config, overrides, script_argv = argv[0], argv[1], argv[2:split], argv[split + 1:]
    import torch_nsim  # noqa: F401 - registers the neuron device
    from torch_nsim import _C
    torch_nsim.set_config(config, overrides)
    sys.argv = [script, *script_argv]
    with contextlib.redirect_stdout(sys.stderr):
        runpy.run_path(script, run_name="__main__")
    executions = [e for device in range(_C.device_count()) for e in _C.executions(device)]
    total_ns = sum(ps for _, ps, _ in executions) / 1000.0
    total = {"total_time_ns": total_ns, "kernel_executions": len(executions),
             "distinct_kernels": len({name for name, _, _ in executions})}
    print(json.dumps({"schema": "nsim-sweep-torch", "total_time_ns": total_ns, "total": total}))


if __name__ == "__main__":
    main(sys.argv[1:])
