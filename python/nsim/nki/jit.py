"""@nki.jit, nki.simulate_kernel and nki.benchmark: trace a kernel to .nk, run it, return results."""
import functools
import inspect
import json
import os
import re

import numpy as np

from .. import _core
from . import clobber, dtypes
from .dependencies import add_semaphores
from .allocation import check_capacity, shrink_plan
from .emit import kernel_text
from .errors import KernelError, Unsupported
from .passes import Pipeline, dma_queues, fusion, licm, liveness, print_decisions
from .program import Program
from .spmd import check_pairs, grid_size, normalize_grid, run_programs
from .views import HbmTensor


class Traced:
    """A kernel traced for one set of argument shapes: its .nk text and I/O."""

    def __init__(self, program, text, where, inputs, outputs, result):
        self.program, self.text, self.where = program, text, where
        self.inputs = inputs      # decl name -> (host array, DType)
        self.outputs = outputs    # [HbmTensor] read back after the run
        self.result = result      # what the kernel returned (HbmTensors inside)
        self.program_texts = None  # SPMD programs that trace differently: one text each
        self.decisions = []        # the compiler model's decisions (explain=True), passes/__init__.py


class Kernel:
    """An @nki.jit kernel. Calling it with NumPy arrays simulates it (nki.simulate_kernel)."""

    def __init__(self, fn, num_buffers=None, dma_queues=4, grid=None, passes=None, explain=False):
        functools.update_wrapper(self, fn)
        self.fn, self.num_buffers, self.dma_queues = fn, num_buffers, dma_queues
        self.grid = grid  # None: one program on one core; else the SPMD launch grid (kernel[grid])
        self.passes, self.explain = dict(passes or {}), explain  # the compiler model (passes/)
        Pipeline(fn.__name__, self.passes)  # an unknown pass name is the kernel's error now

    def __call__(self, *args, **kwargs):
        from . import entry, program
        if program._current:  # called from inside another kernel: its code runs as part of that trace
            return self.fn(*args, **kwargs)
        return entry.simulate_kernel(self, *args, **kwargs)

    def __getitem__(self, grid):
        """kernel[4](args) / kernel[2, 2](args): an SPMD launch, one program per NeuronCore of a chip."""
        if self.grid is not None:
            raise KernelError("kernel '%s' already has the launch grid %s" % (self.fn.__name__, self.grid))
        k = Kernel(self.fn, self.num_buffers, self.dma_queues, normalize_grid(grid), self.passes, self.explain)
        k.nki_options = getattr(self, "nki_options", {})
        k.nki_directives = getattr(self, "nki_directives", {})
        return k

    def trace_grid(self, args, kwargs, config="trn2", overrides=()):
        """Traces every program of the grid, each on its own: Python code may branch on nl.program_id
        (the NKI Library's LNC=2 paths do). Programs that trace alike share one text (program_id
        expressions in their access patterns); otherwise traced.program_texts holds one per program,
        and they must declare the same HBM tensors (the chip binds them once)."""
        grid = self.grid or (1,)
        n = grid_size(grid)
        first = self.trace(args, kwargs, config, overrides)
        texts, programs = [first.text], [first.program]
        for program in range(1, n):
            try:
                other = self.trace(args, kwargs, config, overrides, program)
            except KernelError as e:  # e.g. an index out of bounds for this program only
                e.message = "program %d of grid %s: %s" % (program, grid, e.message)
                e.args = (e._text(),)
                raise
            if other.text != first.text and _hbm_decls(other.program) != _hbm_decls(first.program):
                raise KernelError("kernel '%s': program %d declares other HBM tensors than program 0 (%s vs %s): "
                                  "every program must create the same outputs" % (
                                      self.fn.__name__, program, _hbm_decls(other.program), _hbm_decls(first.program)))
            texts.append(other.text)
            programs.append(other.program)
        if not any(p.instrs for p in programs):  # one program may have nothing to do (a core given no rows)
            raise KernelError("kernel '%s' does nothing on any program of grid %s: it has no loads, stores or "
                              "compute" % (self.fn.__name__, grid))
        check_pairs(programs, grid)
        first.program_texts = texts if any(t != first.text for t in texts) else None
        return first

    def pipeline(self, explain=False):
        """The compiler model's passes for this kernel: passes=, its directives, its NKI options."""
        return Pipeline(self.fn.__name__, self.passes, getattr(self, "nki_directives", {}),
                        getattr(self, "nki_options", {}), explain or self.explain)

    def trace(self, args, kwargs, config="trn2", overrides=(), program=0, explain=False):
        info = _core.core().config_info(config, list(overrides))
        if not 1 <= self.dma_queues <= info["dma_queues"]:
            raise KernelError("nki.jit(dma_queues=%d): %s has DMA queues 0..%d"
                              % (self.dma_queues, info["name"], info["dma_queues"] - 1))
        traced, own = self._trace_keeping_live_tiles(args, kwargs, info, program, explain)
        _middle_end(traced.program)
        plan = shrink_plan(traced.program) if not liveness.fits(traced.program) else None
        if plan:  # the buffer rule's buffers do not fit, even sharing bytes: retrace with fewer buffers
            traced = self._trace(args, kwargs, info, {**own, **plan}, program, explain)
            _middle_end(traced.program)
        pipeline = traced.program.pipeline
        liveness.run(pipeline, traced.program)
        used = {d.name for d in traced.program.used_decls()}
        site_used = lambda site: any(d.name in used for d in site["decls"])  # noqa: E731
        traced.decisions = pipeline.summary() + pipeline.used_decisions(site_used) if pipeline.explain else []
        if traced.decisions and not (explain or self.explain):  # asked for by NSIM_EXPLAIN
            print_decisions(self.fn.__name__, traced.decisions)
        check_capacity(traced.program)
        clobber.check(traced.program)
        semaphores = add_semaphores(traced.program.instrs, info["semaphores"])
        traced.text, traced.where = kernel_text(traced.program, semaphores)
        return traced

    def _trace_keeping_live_tiles(self, args, kwargs, info, program, explain):
        """Traces; when a tile is used after the buffer rule's rotation gave its buffer to a later tile (a
        list of tiles an nl loop fills and a later loop reads: NKI 0.3+ kernels), retraces with every tile
        of those sites in a buffer of its own. Returns the trace and those sites ({site: 0})."""
        own = {}
        while True:
            traced = self._trace(args, kwargs, info, own, program, explain)
            stale = traced.program.stale_sites - set(own)
            if not stale:
                return traced, own
            own.update(dict.fromkeys(stale, 0))

    def _trace(self, args, kwargs, info, site_buffers, program_index=0, explain=False):
        program = Program(self.fn.__name__, info, self.num_buffers, self.dma_queues, site_buffers,
                          self.grid or (1,), program_index, self.pipeline(explain))
        program.launched_grid = self.grid is not None
        bound = inspect.signature(self.fn).bind(*args, **kwargs)
        inputs, call_args = {}, {}

        def hbm(name, value):
            if not isinstance(value, np.ndarray):
                return value
            if value.ndim == 0 or value.size == 0:
                raise KernelError("argument '%s' of kernel '%s' has shape %s: tensors need at least one element "
                                  "in at least one dim (pass plain numbers as Python scalars)"
                                  % (name, self.fn.__name__, value.shape))
            dt = dtypes.of(value.dtype, "argument '%s' dtype" % name)
            t = program.hbm_tensor(name, value.shape, dt, argument=True)
            inputs[t.decl.name] = (value, dt)
            call_args[t.decl.name] = t
            return t

        with program:
            for name, value in list(bound.arguments.items()):
                if isinstance(value, tuple):  # *args
                    bound.arguments[name] = tuple(hbm("%s%d" % (name, i), v) for i, v in enumerate(value))
                else:
                    bound.arguments[name] = hbm(name, value)
            result = self.fn(*bound.args, **bound.kwargs)
        inputs.update(program.constants)
        outputs = _hbm_leaves(result)
        written = {v.decl.name for ins in program.instrs for v in ins.writes}
        for name, value in call_args.items():  # arguments the kernel wrote: outputs in place
            if isinstance(value, HbmTensor) and value.decl.name in written and value not in outputs:
                outputs.append(value)
        if not program.instrs and grid_size(self.grid or (1,)) == 1:  # on a grid: trace_grid asks of them all
            raise KernelError("kernel '%s' does nothing: it has no loads, stores or compute" % self.fn.__name__)
        return Traced(program, None, None, inputs, outputs, result)


def jit(fn=None, *, num_buffers=None, dma_queues=4, passes=None, explain=False, **nki_options):
    """Marks an NKI kernel. num_buffers: physical buffers of each loop-local tile
    (modulo allocation; per tile: num_buffers= on nl.ndarray/load; default:
    the buffer_rule pass, single where that does not fit); dma_queues: the DMA
    queues the frontend rotates transfers over when the dma_queues pass is off;
    passes={"licm": False, ...}: the compiler model's passes to turn off
    (passes/__init__.py); explain=True: keep their decisions (result.decisions).
    NKI's own options (mode=, disable_allocation_opt= (turns buffer_rule off),
    platform_target=, debug_kernel=, additional_compile_opt=, ...) are kept in
    `kernel.nki_options`; the others have no effect: the kernel always runs on the
    simulator, on the config given to simulate_kernel/benchmark."""
    def make(f):
        kernel = Kernel(f, num_buffers, dma_queues, passes=passes, explain=explain)
        kernel.nki_options = nki_options
        return kernel
    return make if fn is None else make(fn)


class BenchmarkResult:
    def __init__(self, traced, raw, outputs, config):
        self.device_time_ns = raw["device_time_ns"]
        self.device_time_us = self.device_time_ns / 1000.0
        self.outputs = outputs
        self.summary = json.loads(raw["report"])   # summary.json (docs/output-schema.md), as `nsim run --json`
        # per engine, by name: {"VectorE": {"active_time_ns", "active_time_percent", "instruction_count", ...}}
        self.engines = {e["engine"]: e for e in self.summary["total"]["engines"]}
        self.kernel_text = traced.text
        self.kernel_hash = raw["kernel_hash"]
        self.files = list(raw["profile_files"])
        self.instructions = raw["instructions"]    # (engine, index, start_ns, end_ns, wait_ns)
        self.dma = raw["dma"]                      # (engine, index, queue, dma_engine, start_ns, end_ns, bytes)
        self.config = config
        self.decisions = traced.decisions          # the compiler model's decisions (explain=True)

    def __repr__(self):
        return "BenchmarkResult(device_time_us=%.3f, instructions=%d)" % (self.device_time_us,
                                                                           len(self.instructions))


def _as_kernel(kernel):
    return kernel if isinstance(kernel, Kernel) else Kernel(kernel)


def _run(kernel, args, kwargs, config, overrides, profile_dir, emit, timing_only=False, explain=False):
    kernel = _as_kernel(kernel)
    traced = kernel.trace_grid(args, kwargs, config, overrides) if kernel.grid else kernel.trace(
        args, kwargs, config, overrides, explain=explain)
    if emit:
        with open(emit, "w") as f:
            f.write(traced.text)
    core = _core.core()
    inputs = {name: np.ascontiguousarray(arr, dtype=dt.np_dtype).tobytes() for name, (arr, dt) in traced.inputs.items()}
    outputs = [t.decl.name for t in traced.outputs]
    try:
        if kernel.grid:
            if timing_only:
                raise Unsupported("timing_only is not supported for SPMD grids (kernel[grid]) yet")
            raw = run_programs(core, traced, config, list(overrides), inputs, outputs, grid_size(kernel.grid))
            if profile_dir:
                _write_grid_files(profile_dir, traced, raw)
        else:
            raw = core.run(traced.text, traced.program.name + ".nk", config, list(overrides), inputs, outputs,
                           os.path.abspath(profile_dir) if profile_dir else "", timing_only=timing_only)
    except core.SimError as e:
        raise _kernel_error(str(e), traced) from None
    if profile_dir and not kernel.grid:
        from .. import profile_tables  # pyarrow: needed only for out_dir
        profile_tables.write(profile_dir)
    if timing_only:  # no values were computed: nothing to return or write back
        return traced, raw, None
    arrays = {}
    for t in traced.outputs:
        arr = np.frombuffer(raw["outputs"][t.decl.name], dtype=t.dtype.np_dtype).reshape(t.decl.shape).copy()
        arrays[t.decl.name] = arr
        host = traced.inputs.get(t.decl.name)
        if host is not None and host[0].flags.writeable:
            host[0][...] = arr  # written in place, as NKI's output arguments are
    return traced, raw, _replace(traced.result, arrays)


class GridBenchmarkResult:
    """nki.benchmark of an SPMD launch (kernel[grid]): the chip's device time (the slowest
    core's) and, per program, its core and figures (`nsim run --grid --json`)."""

    def __init__(self, traced, raw, outputs, config, grid):
        self.device_time_ns = raw["device_time_ns"]
        self.device_time_us = self.device_time_ns / 1000.0
        self.outputs = outputs
        self.summary = json.loads(raw["report"])
        # per program: {"program", "core", "home_hbm_stack", "report": {"device_time_ns", "utilization", ...}}
        self.cores = self.summary["cores"]
        self.kernel_text = traced.text
        self.grid = grid
        self.config = config

    def __repr__(self):
        return "GridBenchmarkResult(grid=%s, device_time_us=%.3f)" % (self.grid, self.device_time_us)


def _write_grid_files(out_dir, traced, raw):
    os.makedirs(out_dir, exist_ok=True)
    for i, text in enumerate(traced.program_texts or [traced.text]):
        suffix = ".program%d" % i if traced.program_texts else ""
        with open(os.path.join(out_dir, traced.program.name + suffix + ".nk"), "w") as f:
            f.write(text)
    with open(os.path.join(out_dir, "grid.json"), "w") as f:
        f.write(json.dumps(json.loads(raw["report"]), indent=2) + "\n")


def _middle_end(program):
    """The passes between tracing and allocation, in order (passes/__init__.py)."""
    licm.run(program.pipeline, program.instrs)
    program.drop_removed()
    fusion.run(program.pipeline, program)
    dma_queues.run(program.pipeline, program.instrs)


def _hbm_decls(program):
    return [(d.name, d.dtype.nk, d.shape) for d in program.decls if d.space == "hbm"]


def _hbm_leaves(result):
    if isinstance(result, HbmTensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in _hbm_leaves(r)]
    return []


def _replace(result, arrays):
    if isinstance(result, HbmTensor):
        return _view_values(result, arrays[result.decl.name])
    if isinstance(result, (tuple, list)):
        return type(result)(_replace(r, arrays) for r in result)
    return result


def _view_values(view, arr):
    """The elements a returned HBM view shows (`return out.reshape((n, c, h, w))`), in its shape;
    the tensor's own array when the view is all of it."""
    if view.offset == 0 and list(view.shape) == list(arr.shape) and view.is_contiguous():
        return arr
    index = np.array(view.offset)
    for stride, size in view.dims:
        index = index[..., None] + np.arange(size) * stride
    return arr.reshape(-1)[index]


def _kernel_error(message, traced):
    m = re.search(r"line (\d+)", message) or re.match(r"[^:]*:(\d+):", message)
    where = traced.where.get(int(m.group(1))) if m else None
    return KernelError("the simulator rejected the kernel: " + message, where)
