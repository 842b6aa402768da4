"""Runtime DMA addressing (opcode dma_indirect): `.ap(scalar_offset=, vector_offset=, indirect_dim=)` on an HBM
tensor, the offsets read from SBUF when the DMA runs (values computed on the device, not known at trace
time), against NumPy: a scalar-offset load and store, a vector-offset gather and scatter, oob_mode=skip and
the error naming the kernel line; the cost of a gather (DGE + one descriptor per index row)."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError, Unsupported


def _gather(rows, cols, k, oob_mode=None, doubled=False):
    """out[i] = table[idx[i]] (one row per index; idx doubled on device first when `doubled`)."""
    @nki.jit
    def gather(table, idx):
        ix = nl.ndarray((k, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        if doubled:  # the offsets exist only on the device
            nisa.tensor_scalar(dst=ix, data=ix, op0=nl.multiply, operand0=2)
        t = nl.ndarray((k, cols), dtype=table.dtype, buffer=nl.sbuf)
        nisa.memset(dst=t, value=-1.0)
        kw = {} if oob_mode is None else {"oob_mode": oob_mode}
        nisa.dma_copy(dst=t, src=table.ap(pattern=[[cols, k], [1, cols]], offset=0, vector_offset=ix,
                                          indirect_dim=0), **kw)
        out = nl.ndarray((k, cols), dtype=table.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    return gather


def test_vector_offset_gathers_rows(rng):
    table = rng.standard_normal((40, 24)).astype(np.float32)
    idx = np.array([[3], [39], [0], [3], [17], [8]], dtype=np.int32)
    got = _gather(40, 24, 6)(table, idx)
    np.testing.assert_array_equal(got, table[idx[:, 0]])


def test_offsets_computed_on_device(rng):
    table = rng.standard_normal((40, 8)).astype(np.float32)
    idx = np.array([[1], [5], [19], [0]], dtype=np.int32)
    got = _gather(40, 8, 4, doubled=True)(table, idx)
    np.testing.assert_array_equal(got, table[idx[:, 0] * 2])


def test_oob_skip_leaves_the_row(rng):
    table = rng.standard_normal((10, 4)).astype(np.float32)
    idx = np.array([[2], [10], [-1000000], [9]], dtype=np.int32)
    got = _gather(10, 4, 4, oob_mode=nisa.oob_mode.skip)(table, idx)
    want = np.full((4, 4), -1.0, np.float32)
    want[0], want[3] = table[2], table[9]
    np.testing.assert_array_equal(got, want)


def test_oob_error_names_the_kernel_line(rng):
    table = rng.standard_normal((10, 4)).astype(np.float32)
    idx = np.array([[2], [10]], dtype=np.int32)
    with pytest.raises(Exception) as e:
        _gather(10, 4, 2)(table, idx)
    assert "test_dma_indirect.py" in str(e.value) and "value 10" in str(e.value), str(e.value)


def test_vector_offset_scatters_rows(rng):
    """out[idx[i]] = src[i] (V-cache update: the view is the dst), the other rows kept."""
    base = rng.standard_normal((16, 8)).astype(np.float32)
    src = rng.standard_normal((3, 8)).astype(np.float32)
    idx = np.array([[4], [15], [0]], dtype=np.uint32)

    @nki.jit
    def scatter(base, src, idx):
        out = nl.ndarray(base.shape, dtype=base.dtype, buffer=nl.shared_hbm)
        whole = nl.ndarray((16, 8), dtype=base.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=whole, src=base)
        nisa.dma_copy(dst=out, src=whole)
        ix = nl.ndarray((3, 1), dtype=nl.uint32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        s = nl.ndarray((3, 8), dtype=src.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=s, src=src)
        nisa.dma_copy(dst=out.ap(pattern=[[1, 3], [1, 8]], offset=0, vector_offset=ix, indirect_dim=0), src=s)
        return out
    want = base.copy()
    want[idx[:, 0]] = src
    np.testing.assert_array_equal(scatter(base, src, idx), want)


def test_scalar_offset_on_an_inner_dim(rng):
    """The KV-cache form: cache (B, S, D), one batch's rows written from position p (indirect_dim=1), and a
    load at a runtime column (indirect_dim=1 of a 2-d tensor: stride 1)."""
    cache = rng.standard_normal((2, 12, 4)).astype(np.float32)
    new = rng.standard_normal((3, 4)).astype(np.float32)
    pos = np.array([[7]], dtype=np.int32)

    @nki.jit
    def update(cache, new, pos):
        out = nl.ndarray(cache.shape, dtype=cache.dtype, buffer=nl.shared_hbm)
        for b in range(2):
            t = nl.ndarray((12, 4), dtype=cache.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=cache[b])
            nisa.dma_copy(dst=out[b], src=t)
        p = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=p, src=pos)
        n = nl.ndarray((3, 4), dtype=new.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=n, src=new)
        nisa.dma_copy(dst=out.ap(pattern=[[4, 3], [1, 4]], offset=1 * 12 * 4, scalar_offset=p, indirect_dim=1),
                      src=n)
        return out
    want = cache.copy()
    want[1, 7:10] = new
    np.testing.assert_array_equal(update(cache, new, pos), want)

    flat = rng.standard_normal((3, 50)).astype(np.float32)
    col = np.array([[41]], dtype=np.int32)

    @nki.jit
    def load(flat, col):
        c = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=c, src=col)
        t = nl.ndarray((1, 6), dtype=flat.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=flat.ap(pattern=[[50, 1], [1, 6]], offset=50, scalar_offset=c, indirect_dim=1))
        out = nl.ndarray((1, 6), dtype=flat.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    np.testing.assert_array_equal(load(flat, col), flat[1:2, 41:47])


def test_kernel_text_lists_the_index_as_an_operand(tmp_path, rng):
    """The .nk line: the index is the third operand (a read the dependency passes order), the stride and
    skip= as attributes; the emitted file runs through the simulator's parser to the same values."""
    path = str(tmp_path / "k.nk")
    idx = np.array([[1], [50], [19], [0]], dtype=np.int32)
    table = rng.standard_normal((40, 8)).astype(np.float32)
    r = nki.benchmark(_gather(40, 8, 4, oob_mode=nisa.oob_mode.skip, doubled=True), table, idx, config="trn2",
                      emit=path)
    line = next(ln for ln in open(path).read().splitlines() if ": dma_indirect " in ln)
    assert "table.ap(0, [[0, 4], [1, 8]])" in line and "stride=8" in line and "skip=true" in line, line
    assert "wait=" in line, line  # after the tensor_scalar that computed the index
    want = np.full((4, 8), -1.0, np.float32)
    want[[0, 2, 3]] = table[[2, 38, 0]]
    np.testing.assert_array_equal(r.outputs, want)


def test_errors_at_the_kernel_line():
    @nki.jit
    def bad_count(table, idx):
        ix = nl.ndarray((3, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        return table.ap(pattern=[[8, 4], [1, 8]], offset=0, vector_offset=ix, indirect_dim=0)

    with pytest.raises(KernelError, match=r"test_dma_indirect.py:\d+.*3 values for the 4 rows"):
        bad_count(np.zeros((10, 8), np.float32), np.zeros((3, 1), np.int32))

    @nki.jit
    def float_index(table, idx):
        ix = nl.ndarray((1, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        return table.ap(pattern=[[8, 1], [1, 8]], offset=0, scalar_offset=ix, indirect_dim=0)

    with pytest.raises(KernelError, match="int32 or uint32"):
        float_index(np.zeros((10, 8), np.float32), np.zeros((1, 1), np.float32))

    @nki.jit
    def compute_on_it(table, idx):
        ix = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        v = table.ap(pattern=[[8, 1], [1, 8]], offset=0, scalar_offset=ix, indirect_dim=0)
        t = nl.ndarray((1, 8), dtype=table.dtype, buffer=nl.sbuf)
        nisa.tensor_copy(dst=t, src=v)
        return t

    with pytest.raises((KernelError, Unsupported)):
        compute_on_it(np.zeros((10, 8), np.float32), np.zeros((1, 1), np.int32))


def _one_partition_load(k, cols, indirect):
    """K rows of `cols` fp32 into one SBUF partition [1, K * cols]: by row index (a gather: K descriptors, one
    per index row) or the same bytes as one contiguous copy (one descriptor)."""
    @nki.jit
    def load(table, idx):
        ix = nl.ndarray((k, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        t = nl.ndarray((1, k * cols), dtype=table.dtype, buffer=nl.sbuf)
        if indirect:
            src = table.ap(pattern=[[cols, k], [1, cols]], offset=0, vector_offset=ix, indirect_dim=0)
        else:
            src = table.ap(pattern=[[cols, k], [1, cols]], offset=0)
        nisa.dma_copy(dst=t, src=src, engine=nisa.sync_engine)
        out = nl.ndarray((1, cols), dtype=table.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t[:, 0:cols])
        return out
    r = nki.benchmark(load, np.ones((64, cols), np.float32), np.arange(k, dtype=np.int32).reshape(k, 1),
                      config="trn2")
    sync = [(e - s) for engine, _i, s, e, _w in r.instructions if engine == "sync"]
    load_index = 1  # the index load is the first sync DMA trigger, the row load the second
    pieces = [(d[5] - d[4], d[6]) for d in r.dma if d[0] == "sync" and d[1] == load_index]
    return sync[load_index], pieces


def test_cost_dge_and_one_descriptor_per_row():
    """trn2: the trigger keeps its sequencer dma.dge = 600 ns longer (S2 'Each DGE-based DMA instruction takes
    about 600 ns'); the transfer is the copy's with one descriptor per index row: K descriptors x
    dma.descriptor (1 ns) where the contiguous copy has one."""
    k, cols = 16, 32
    t_copy, p_copy = _one_partition_load(k, cols, False)
    t_ind, p_ind = _one_partition_load(k, cols, True)
    assert t_ind == pytest.approx(t_copy + 600.0, abs=0.01)
    assert len(p_copy) == len(p_ind) == 1 and p_copy[0][1] == p_ind[0][1] == k * cols * 4
    # piece: dma.piece_setup 6 ns + descriptors x 1 ns + bytes / 23 B/ns
    assert p_copy[0][0] == pytest.approx(6 + 1 + k * cols * 4 / 23.0, abs=0.01)
    assert p_ind[0][0] == pytest.approx(6 + k + k * cols * 4 / 23.0, abs=0.01)


def test_nl_load_and_store_of_a_runtime_view(rng):
    """nl.load / nl.store through such a view are the same dma_indirect."""
    table = rng.standard_normal((12, 16)).astype(np.float32)
    row = np.array([[9]], dtype=np.int32)

    @nki.jit
    def k(table, row):
        r = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=r, src=row)
        t = nl.load(table.ap(pattern=[[16, 1], [1, 16]], offset=0, scalar_offset=r, indirect_dim=0))
        out = nl.ndarray((12, 16), dtype=table.dtype, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(table))
        nl.store(out.ap(pattern=[[16, 1], [1, 16]], offset=16, scalar_offset=r, indirect_dim=0), value=t)
        return out
    want = table.copy()
    want[10] = table[9]
    np.testing.assert_array_equal(k(table, row), want)


def test_a_casting_gather_and_scatter_convert_through_fp32(rng):
    """A runtime-addressed DMA casts as dma_copy does (through fp32, S8): bf16 rows gathered into an fp32
    tile are exact; fp32 rows scattered into a bf16 tensor are rounded to nearest even, the other rows kept."""
    import ml_dtypes
    bf16 = ml_dtypes.bfloat16
    table = rng.standard_normal((12, 8)).astype(bf16)
    src = rng.standard_normal((3, 8)).astype(np.float32)
    idx = np.array([[7], [0], [11]], dtype=np.int32)

    @nki.jit
    def gather_then_scatter(table, src, idx):
        ix = nl.ndarray((3, 1), dtype=nl.int32, buffer=nl.sbuf)
        nisa.dma_copy(dst=ix, src=idx)
        rows = nl.ndarray((3, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=rows, src=table.ap(pattern=[[8, 3], [1, 8]], offset=0, vector_offset=ix, indirect_dim=0))
        gathered = nl.ndarray((3, 8), dtype=nl.float32, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=gathered, src=rows)
        whole = nl.ndarray((12, 8), dtype=table.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=whole, src=table)
        out = nl.ndarray(table.shape, dtype=table.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=whole)
        s = nl.ndarray((3, 8), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=s, src=src)
        nisa.dma_copy(dst=out.ap(pattern=[[8, 3], [1, 8]], offset=0, vector_offset=ix, indirect_dim=0), src=s)
        return gathered, out
    gathered, out = gather_then_scatter(table, src, idx)
    np.testing.assert_array_equal(gathered, table[idx[:, 0]].astype(np.float32))
    want = table.copy()
    want[idx[:, 0]] = src.astype(bf16)
    np.testing.assert_array_equal(out.astype(np.float32), want.astype(np.float32))
