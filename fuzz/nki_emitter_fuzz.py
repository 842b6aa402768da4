"""Fuzz target for the NKI frontend's IR emitter (README "Robustness").

The fuzzer's bytes pick a small NKI kernel: argument shapes and dtypes, then a
sequence of steps (sliced loads, loops with index arithmetic, nl and nisa
calls, tile slices, stores). The kernel is traced to .nk text and checked:

  * tracing succeeds or raises the frontend's KernelError (Unsupported is
    one): any other exception (AttributeError, IndexError, TypeError, ...) is
    a frontend bug that would reach a kernel author as a crash;
  * the emitted text parses with the C++ parser (format_kernel);
  * format_kernel is a fixed point: formatting its output gives it back.

    python3 fuzz/nki_emitter_fuzz.py [libFuzzer flags] CORPUS_DIR   (atheris)
    python3 fuzz/nki_emitter_fuzz.py --replay FILE...                (no atheris)

bash fuzz/run.sh nki_emitter runs it; crash inputs are kept in
fuzz/regressions/nki_emitter/ and python/tests/test_fuzz_regressions.py
replays them with the seeds of fuzz/nki_emitter_seeds/ (inputs that trace to
kernels using different instruction sets, found by a seeded random search).
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import contextlib  # noqa: E402

import numpy as np  # noqa: E402

# Fuzzing (not replaying): atheris instruments the frontend's bytecode for coverage.
_FUZZING = __name__ == "__main__" and "--replay" not in sys.argv
if _FUZZING:
    import atheris
with atheris.instrument_imports(include=["nsim"]) if _FUZZING else contextlib.nullcontext():
    import nsim.nki as nki
    import nsim.nki.isa as nisa
    import nsim.nki.language as nl
    from nsim import _core

MAX_STEPS = 12  # steps per kernel: small kernels trace fast, so the fuzzer tries many


class Bytes:
    """Reads choices from the fuzzer's bytes; past the end every read is 0 (deterministic)."""

    def __init__(self, data):
        self.data, self.pos = bytes(data), 0

    def byte(self):
        b = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return b

    def more(self):
        return self.pos < len(self.data)

    def pick(self, options):
        return options[self.byte() % len(options)]

    def choose(self, valid, hostile):
        """Mostly one of the valid options (so kernels get deep), one time in eight a hostile one."""
        b = self.byte()
        return hostile[(b >> 3) % len(hostile)] if b % 8 == 7 else valid[(b >> 3) % len(valid)]

    def size(self):
        """A dimension size: mostly a power of two up to the partitions; 0, odd, huge or too many partitions."""
        return self.choose([1, 2, 4, 8, 16, 32, 64, 128], [0, 3, 7, 129, 256, 1 << 20])

    def tile_size(self):
        """A size of a tile made by the kernel: also negative, fractional, or not a number."""
        return self.choose([1, 2, 4, 8, 16, 32, 64, 128], [0, 129, -1, 2.5, "x", None, np.int64(4)])

    def bounds(self, size):
        """(start, stop) of a slice of a dim of `size`: mostly inside it; empty, negative or past it."""
        start = self.byte() % max(size, 1)
        stop = start + 1 + self.byte() % max(size - start, 1)
        return self.choose([(start, stop)], [(stop, start), (-1, size), (0, size + 1), (size, size), (start, None)])


DTYPES = [np.float32, "bf16", np.float16, np.int32, np.int8, np.uint16, np.bool_]
HOSTILE_DTYPES = [np.float64, np.int64, np.complex64]
NL_DTYPES = [nl.float32, nl.bfloat16, nl.float16, nl.int32, "float32", np.float32, nl.uint8, nl.float8_e4m3,
             nl.float8_e5m2]
HOSTILE_NL_DTYPES = [nl.float8_e4m3fn_x4, "nope", np.float64, 3]
# Every activation function and ALU op of the simulator's tables (sim/kernel/alu_act_tables.h).
UNARY = [nl.negative, nl.logical_not, nl.invert] + [getattr(nl, name) for name in nl._ACTIVATION]
BINARY = [getattr(nl, name) for name in nl._ALU]
REDUCE = [nl.sum, nl.max, nl.min, nl.mean]
SCALARS = [0.0, 1.0, -2.5, 3, 1e30, float("inf"), float("nan"), True, 1e-45]
HOSTILE_SCALARS = ["x", None, "1.5", np.float32(2)]


def host_array(b, shape):
    """A zero argument of `shape`: a broadcast view, so a huge shape costs no memory (tracing reads no values)."""
    dt = b.choose(DTYPES, HOSTILE_DTYPES)
    if dt == "bf16":
        import ml_dtypes
        dt = ml_dtypes.bfloat16
    return np.broadcast_to(np.zeros((), dtype=dt), shape)


def tile_slice(b, t):
    """t[...] with fuzzed bounds on one or both dims."""
    shape = t.shape
    p0, p1 = b.bounds(shape[0])
    if len(shape) < 2 or b.byte() % 2:
        return t[p0:p1]
    f0, f1 = b.bounds(shape[1])
    return t[p0:p1, f0:f1]


# match_replace8, nonzero_with_count, n_gather, stream_shuffle, range_select, dma_transpose, VectorE transpose,
# sendrecv / core_barrier, runtime-addressed DMA (dma_indirect)
NEWEST_KINDS = {254: 34, 250: 35, 246: 36, 242: 37, 251: 38, 249: 39, 248: 40, 244: 41, 245: 42}


def step(b, a, tiles, outs):
    """One traced step of the kernel: appends new tiles or stores one."""
    # Bytes from 240 on: the newer dst_step kinds (older seeds keep their meaning below it); bytes no
    # seed used there name the newest (NEWEST_KINDS).
    raw = b.byte()
    kind = raw % 30 if raw < 240 else NEWEST_KINDS.get(raw, 30 + raw % 4)
    t = tiles[b.byte() % len(tiles)]
    u = tiles[b.byte() % len(tiles)]
    if kind == 0:
        p0, p1 = b.bounds(a.shape[0])
        tiles.append(nl.load(a[p0:p1], dtype=b.choose([None] + NL_DTYPES, HOSTILE_NL_DTYPES)))
    elif kind == 1:
        tiles.append(b.pick(UNARY)(t, dtype=b.pick([None, nl.float32, nl.bfloat16])))
    elif kind == 2:
        tiles.append(b.pick(BINARY)(t, u if b.byte() % 2 else b.pick(SCALARS)))
    elif kind == 3:
        tiles.append(b.pick(REDUCE)(t, axis=b.choose([1, (1,), -1], [0, 2, (0, 1), None, 1.5, "x", (), -3]), keepdims=bool(b.byte() % 2)))
    elif kind == 4:
        tiles.append(nl.transpose(t))
    elif kind == 5:
        tiles.append(nl.matmul(t, u, transpose_x=bool(b.byte() % 2)))
    elif kind == 6:
        tiles.append(tile_slice(b, t))
    elif kind == 7:
        tiles.append(nisa.tensor_tensor(t, u, b.pick(BINARY), engine=b.pick([None, nisa.vector_engine,
                                                                                nisa.gpsimd_engine,
                                                                                nisa.tensor_engine])))
    elif kind == 8:
        tiles.append(nisa.tensor_scalar(t, b.pick(BINARY), b.pick(SCALARS), op1=b.pick([None] + BINARY),
                                        operand1=b.pick(SCALARS)))
    elif kind == 9:
        tiles.append(nisa.tensor_copy(t, dtype=b.choose([None] + NL_DTYPES, HOSTILE_NL_DTYPES),
                                      engine=b.pick([None, nisa.scalar_engine, nisa.sync_engine])))
    elif kind == 10:
        tiles.append(nisa.memset((b.tile_size(), b.tile_size()), b.choose(SCALARS, HOSTILE_SCALARS),
                                 b.choose(NL_DTYPES, HOSTILE_NL_DTYPES)))
    elif kind == 11:
        tiles.append(nisa.activation(b.pick(UNARY), t, scale=b.pick(SCALARS),
                                     bias=b.pick([None, u]) if b.byte() % 2 else None))
    elif kind == 12:
        tiles.append(nl.zeros((b.tile_size(), b.tile_size()), dtype=b.choose(NL_DTYPES, HOSTILE_NL_DTYPES), buffer=b.choose([nl.sbuf, nl.psum], [nl.shared_hbm, None])))
    elif kind == 13:  # a loop over row blocks of `a` with affine index arithmetic
        n, rows = b.choose([1, 2, 3, 4], [0, -1, 2.5, "x"]), b.pick([1, 2, 8, 32, 64])
        loop = b.pick([nl.affine_range, nl.sequential_range, nl.static_range])
        out = nl.ndarray((b.choose([n * rows], [n, -1, "x"]),) + tuple(a.shape[1:]), dtype=a.dtype,
                         buffer=nl.shared_hbm)
        for i in loop(n):
            x = nl.load(a[i * rows:(i + 1) * rows])
            nl.store(out[i * rows:(i + 1) * rows], value=b.pick(UNARY)(x))
        outs.append(out)
    elif kind == 14:
        tiles.append(nl.copy(t, dtype=b.choose([None] + NL_DTYPES, HOSTILE_NL_DTYPES)))
    elif kind == 15:
        out = nl.ndarray(t.shape, dtype=t.dtype, buffer=b.choose([nl.shared_hbm, nl.hbm], [nl.sbuf, nl.psum, "dram"]))
        nl.store(out, value=t)
        outs.append(out)
    elif kind == 41:  # LNC=2: a tile exchanged with the pair peer, or a barrier on an HBM tensor (check() traces a grid)
        p = nl.program_id(0)
        if b.byte() % 2:
            d = nl.ndarray(b.choose([t.shape], [(1,), (129, 2)]), dtype=b.choose([t.dtype], HOSTILE_NL_DTYPES),
                           buffer=b.choose([nl.sbuf], [nl.psum, nl.shared_hbm]))
            nisa.sendrecv(src=b.choose([t], [a, u]), dst=d, send_to_rank=b.choose([1 - p], [p, 2, "x"]),
                          recv_from_rank=b.choose([1 - p], [p, None]), pipe_id=0,
                          dma_engine=b.choose([nisa.dma_engine.dma, nisa.dma_engine.gpsimd_dma], ["x"]))
            tiles.append(d)
        else:
            nisa.core_barrier(data=b.choose([outs[-1] if outs else a, a], [t, "x"]),
                              cores=b.choose([(0, 1), (0,), [0, 1]], [(0, 2), (1, 1), 0.5, "x"]),
                              engine=b.choose([None, nisa.engine.gpsimd, nisa.engine.sync], [nisa.engine.tensor]))
    elif kind == 39:  # dma_transpose reads HBM: the kernel's argument, sliced or viewed
        p0, p1 = b.bounds(a.shape[0])
        src = b.choose([a[p0:p1], a], [a.permute(tuple(range(a.ndim))[::-1]), t])
        shape = tuple(src.shape[::-1]) if src.ndim < 4 else (src.shape[3], src.shape[1], src.shape[2], src.shape[0])
        d = nl.ndarray(b.choose([shape], [src.shape, (1,)]), dtype=b.choose([src.dtype], HOSTILE_NL_DTYPES),
                       buffer=b.choose([nl.sbuf], [nl.psum, nl.shared_hbm]))
        if b.byte() % 2:
            nisa.dma_transpose(dst=d, src=src, axes=b.choose([None], [(0, 1), (1, 0, 2), "x"]))
        else:
            d = nisa.dma_transpose(src, axes=b.choose([None], [(2, 1, 0, 3)]))
        tiles.append(d)
    elif kind == 40:  # VectorE's 32x32 transpose
        if b.byte() % 2:
            tiles.append(nisa.nc_transpose(t, engine=nisa.vector_engine))
        else:
            d = nl.ndarray(b.choose([t.shape[::-1]], [t.shape, (64, 64)]), dtype=t.dtype,
                           buffer=b.choose([nl.sbuf, nl.psum], [nl.shared_hbm]))
            nisa.nc_transpose(d, t, engine=b.choose([nisa.vector_engine], [nisa.scalar_engine]))
            tiles.append(d)
    elif kind == 42:
        indirect_step(b, a, tiles, outs)
    else:
        tiles.append(dst_step(b, kind - 16, t, u))


def indirect_step(b, a, tiles, outs):
    """A DMA through .ap(scalar_offset= / vector_offset=, indirect_dim=) on the kernel's argument (a gather
    into a new tile) or on a new HBM output (a scatter); the index tile is set on the device."""
    rows, cols = a.shape[0], int(np.prod(a.shape[1:]))
    vector = b.byte() % 2
    k = b.choose([min(rows, 1 + b.byte() % 8)], [0, rows + 1, 129]) if vector else 1
    ix = nl.ndarray((b.choose([k], [k + 1, 2]), 1), dtype=b.choose([nl.int32, nl.uint32], [nl.float32, nl.int8]),
                    buffer=b.choose([nl.sbuf], [nl.psum]))
    nisa.memset(dst=ix, value=b.choose([0, 1, 3], [-1, 1 << 20, 2.5]))
    pattern = [[cols, k], [1, b.choose([cols], [cols + 1, 0])]]
    offsets = {"vector_offset" if vector else "scalar_offset": ix,
               "indirect_dim": b.choose([0], [1, 2, -1, "x"])}
    oob = b.pick([None, nisa.oob_mode.skip, nisa.oob_mode.error])
    kw = {} if oob is None else {"oob_mode": oob}
    if b.byte() % 2:
        d = nl.ndarray((k, cols), dtype=b.choose([a.dtype], HOSTILE_NL_DTYPES), buffer=nl.sbuf)
        nisa.dma_copy(dst=d, src=a.reshape((rows, cols)).ap(pattern=pattern, offset=0, **offsets), **kw)
        tiles.append(d)
    else:
        src = nl.load(a[0:k].reshape((k, cols)) if a.ndim == 3 else a[0:k])
        out = nl.ndarray((rows, cols), dtype=src.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out.ap(pattern=pattern, offset=0, **offsets), src=src, **kw)
        outs.append(out)


def like(b, t, buffer=None):
    """A new tile for a destination-passing call: t's shape, or a fuzzed one."""
    shape = t.shape if b.byte() % 4 else (b.tile_size(), b.tile_size())
    return nl.ndarray(shape, dtype=b.choose([t.dtype] + NL_DTYPES, HOSTILE_NL_DTYPES),
                      buffer=buffer or b.choose([nl.sbuf], [nl.psum, nl.shared_hbm]))


def view(b, t):
    """A NKI 0.3+ view of t: nl.ds, .ap(), or a view method with fuzzed arguments."""
    k = b.byte() % 8
    n = b.choose([0, 1, -1], [2, 5, "x", None])
    if k == 0:
        p0, p1 = b.bounds(t.shape[0])
        size = (t.shape[0] if p1 is None else p1) - p0
        return t[nl.ds(p0, b.choose([size], [0, -1, p1]))]
    if k == 1:
        dims = [[b.choose([t.decl.free_size, 1, 2], [0, -1, "x"]), b.size()] for _ in range(1 + b.byte() % 3)]
        return t.ap(pattern=b.choose([dims], [[], [[1]], None, 3]), offset=b.choose([0, b.byte()], [-1, 1 << 30, "x"]))
    if k == 2:
        return t.slice(n, b.byte() % 4, b.byte() % 9, b.choose([1, 2], [0, -1]))
    if k == 3:
        return t.permute(b.choose([(0, 1), (1, 0)], [(0,), (0, 0), (2, 1), "x"]))
    if k == 4:
        return t.expand_dim(n).squeeze_dim(b.choose([n], [0, 3]))
    if k == 5:
        return t.broadcast(n, b.size())
    if k == 6:
        return t.reshape_dim(n, b.choose([(1, t.shape[-1])], [(2, 3), (), "x"])).flatten_dims(b.byte() % 3, b.byte() % 3)
    return t.select(n, b.byte() % 3)


def dst_step(b, kind, t, u):
    """NKI 0.3+ destination-passing calls (nisa.X(dst=..., ...)) on fuzzed tiles and views."""
    if b.byte() % 4 == 0:
        t = view(b, t)
    d = like(b, t)
    if kind == 0:
        nisa.tensor_tensor(dst=d, data1=t, data2=u, op=b.pick(BINARY), engine=b.pick([None, nisa.engine.vector]))
    elif kind == 1:
        nisa.tensor_scalar(dst=d, data=t, op0=b.pick(BINARY), operand0=b.pick(SCALARS),
                           reverse0=bool(b.byte() % 2), op1=b.pick([None] + BINARY), operand1=b.pick(SCALARS))
    elif kind == 2:
        acc = nl.ndarray((t.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf) if b.byte() % 2 else None
        nisa.activation(dst=d, op=b.pick(UNARY), data=t, scale=b.pick(SCALARS), reduce_res=acc,
                        reduce_op=nl.add if acc is not None else None)
    elif kind == 3:
        nisa.tensor_copy(dst=d, src=t, engine=b.pick([None, nisa.engine.gpsimd, nisa.engine.scalar]))
    elif kind == 4:
        nisa.dma_copy(dst=d, src=t, dge_mode=b.pick(list(nisa.dge_mode)), oob_mode=b.pick(list(nisa.oob_mode)))
    elif kind == 5:
        d = like(b, t, b.choose([nl.psum], [nl.sbuf]))
        if b.byte() % 2:
            nisa.nc_matmul(dst=d, stationary=t, moving=u, accumulate=b.pick([None, True, False]))
        else:
            nisa.nc_transpose(dst=d, data=t)
    elif kind == 6:
        nisa.memset(dst=d, value=b.choose(SCALARS, HOSTILE_SCALARS))
    elif kind == 7:
        nisa.tensor_reduce(dst=d, op=b.pick(REDUCE), data=t, axis=b.choose([1, -1], [0, 2, None]))
    elif kind == 8:
        nisa.scalar_tensor_tensor(dst=d, data=t, op0=b.pick(BINARY), operand0=b.pick(SCALARS), op1=b.pick(BINARY),
                                  operand1=u, engine=b.pick([None, nisa.engine.gpsimd]))
    elif kind == 9:
        acc = nl.ndarray((t.shape[0], b.choose([1], [2, 0])), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_scalar_reduce(dst=d, data=t, op0=b.pick(BINARY), operand0=b.pick(SCALARS),
                                  reduce_op=b.pick(REDUCE), reduce_res=acc)
    elif kind == 10:
        nisa.tensor_copy_predicated(dst=d, src=t, predicate=u)
    elif kind == 11:
        d = nl.ndarray((t.shape[0], b.choose([8], [4, 9])), dtype=t.dtype, buffer=nl.sbuf)
        nisa.max8(dst=d, src=t)
    elif kind == 12:
        d = nl.ndarray((t.shape[0], b.choose([8], [4, 9])), dtype=nl.int32, buffer=nl.sbuf)
        nisa.nc_find_index8(dst=d, data=t, vals=u)
    elif kind == 14:
        d = nl.ndarray((t.shape[0], b.choose([6], [2, 5])), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_stats(dst=d, data=t)
    elif kind == 15:
        d = nl.ndarray((t.shape[0], b.choose([2], [3, 6])), dtype=nl.float32, buffer=nl.sbuf)
        nisa.bn_aggr(dst=d, data=t)
    elif kind == 16:
        d = b.pick([nl.floor, nl.ceil, nl.trunc])(t) if b.byte() % 2 else nl.where(u, t, b.pick(SCALARS + [u]))
    elif kind == 17:
        i_p, i_f = nl.arange(t.shape[0])[:, None], nl.arange(t.shape[-1])[None, :]
        pred = b.pick([i_p >= i_f, i_p < b.pick([1, -2]) * i_f + 3, i_f > i_p - 1])
        d = nisa.affine_select(pred=b.choose([pred], [True, t, i_p < 3]), on_true_tile=t,
                               on_false_value=b.choose([0.0, -1e4], [u, "x"]))
    elif kind == 18:
        idx = nl.ndarray((t.shape[0], b.choose([8], [4, 9])), dtype=nl.uint32, buffer=nl.sbuf) if b.byte() % 2 else None
        nisa.nc_match_replace8(dst=d, data=t, vals=u, imm=b.choose(SCALARS, HOSTILE_SCALARS), dst_idx=idx)
    elif kind == 19:
        d = nl.ndarray((t.shape[0], b.choose([t.decl.free_size + 1], [t.decl.free_size, 1])), dtype=nl.int32,
                       buffer=nl.sbuf)
        nisa.nonzero_with_count(dst=d, src=t, index_offset=b.choose([0, 64], [-1.5, "x"]),
                                padding_val=b.choose([-1, 0], [None]))
    elif kind == 20:
        idx = nl.ndarray((t.shape[0], b.choose([4, 8], [0])), dtype=nl.uint32, buffer=b.choose([nl.sbuf], [nl.psum]))
        nisa.iota(dst=idx, pattern=[[0, idx.shape[1]]], offset=0)
        d = nl.ndarray(idx.shape, dtype=t.dtype, buffer=nl.sbuf)
        nisa.nc_n_gather(dst=d, data=t, indices=b.choose([idx], [u]))
    elif kind == 21:
        nisa.nc_stream_shuffle(dst=d, src=t, shuffle_mask=b.choose([[0] * 32, list(range(32)), [16] + [255] * 31],
                                                                  [[0] * 8, [3, 1, 2] + [255] * 29, [40] * 32, "x"]))
    elif kind == 22:
        col = nl.ndarray((t.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.iota(dst=col, pattern=[[0, 1]], offset=b.pick([0, 3]), channel_multiplier=b.pick([0, 1]))
        acc = nl.ndarray((t.shape[0], b.choose([1], [2])), dtype=nl.float32, buffer=nl.sbuf) if b.byte() % 2 else None
        nisa.range_select(dst=d, on_true_tile=t, comp_op0=b.pick(BINARY), comp_op1=b.pick(BINARY),
                          bound0=b.choose([col, 1.0], [u, "x"]), bound1=b.choose([col, 8.0], [u]),
                          reduce_res=acc, reduce_op=b.choose([nl.maximum, nl.add], [nl.mean, "x"]),
                          reduce_cmd=b.choose([nisa.reduce_cmd.reset_reduce, nisa.reduce_cmd.reduce],
                                              [nisa.reduce_cmd.idle]),
                          range_start=b.choose([0, 64], [-1.5, "x"]), on_false_value=b.choose([0.0, -1e30], ["x"]))
    else:
        nisa.affine_select(dst=d, pattern=[[b.choose([-1, 1, 0], ["x"]), t.shape[-1]]], offset=b.pick([0, 3, -2]),
                           channel_multiplier=b.pick([1, 0, -1]), on_true_tile=t,
                           on_false_value=b.choose([0.0, -1e4], [u, "x"]), cmp_op=b.pick(BINARY))
    return d


def make_kernel(b):
    """The kernel the bytes describe, and its host arguments."""
    a = host_array(b, (b.size(), b.size()) if b.byte() % 4 else (b.size(), b.size(), b.size()))
    steps = 1 + b.byte() % MAX_STEPS
    start = b.pos

    def fuzzed(a):
        b.pos = start  # a retrace (fewer buffers) must see the same kernel
        tiles, outs = [nl.load(a[0:min(a.shape[0], 128)])], []
        for _ in range(steps):
            step(b, a, tiles, outs)
        if not outs:
            out = nl.ndarray(tiles[-1].shape, dtype=tiles[-1].dtype, buffer=nl.shared_hbm)
            nl.store(out, value=tiles[-1])
            outs.append(out)
        return outs[0] if len(outs) == 1 else tuple(outs)

    return nki.jit(fuzzed), (a,)


def check(data):
    """The invariants, for one input. Raises AssertionError or the frontend's crash on a bug."""
    b = Bytes(data)
    try:
        kernel, args = make_kernel(b)
    except (ValueError, MemoryError):  # a host array NumPy itself refuses: not the frontend's business
        return None
    try:
        traced = kernel.trace(args, {}, "trn2")
    except nki.KernelError as e:
        if "needs LNC=2" not in str(e):
            return None
        try:  # sendrecv / core_barrier: each program of an LNC=2 pair, checked against the other's
            traced = kernel[2].trace_grid(args, {}, "trn2")
        except nki.KernelError:
            return None
    for text in traced.program_texts or [traced.text]:
        _check_text(text)
    return traced.text


def _check_text(text):
    core = _core.core()
    try:
        once = core.format_kernel(text, "k.nk")
    except core.SimError as e:
        raise AssertionError("the emitted kernel does not parse: %s\n%s" % (e, text)) from None
    twice = core.format_kernel(once, "k.nk")
    assert once == twice, "format_kernel is not a fixed point on:\n%s" % text


def _replay(paths):
    for path in paths:
        files = [os.path.join(path, f) for f in sorted(os.listdir(path))] if os.path.isdir(path) else [path]
        for f in files:
            with open(f, "rb") as fh:
                check(fh.read())
            print("ok", f)


def main(argv):
    if len(argv) > 1 and argv[1] == "--replay":
        _replay(argv[2:])
        return
    atheris.Setup(argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
