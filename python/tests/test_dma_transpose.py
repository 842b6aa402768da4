"""nisa.dma_transpose (opcode dma_transpose, a DMA transfer) against NumPy: 2-d (1, 0), 3-d (2, 1, 0) and 4-d
(3, 1, 2, 0) permutations from HBM into SBUF, both forms; its cost a copy's at dma.transpose_from_hbm (0.9,
S2 "HBM to SBUF up to 90 % of DMA throughput") of the throughput: only the moving time grows by 1/0.9."""
import ml_dtypes
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError, Unsupported

AXES = {2: (1, 0), 3: (2, 1, 0), 4: (3, 1, 2, 0)}


def _kernel(rank_axes, beta1=False, op="dma_transpose"):
    @nki.jit
    def k(a):
        shape = tuple(a.shape[i] for i in rank_axes)
        out = nl.ndarray(shape, dtype=a.dtype, buffer=nl.shared_hbm)
        if beta1:
            t = nisa.dma_transpose(a)
        else:
            t = nl.ndarray(shape, dtype=a.dtype, buffer=nl.sbuf)
            if op == "dma_transpose":
                nisa.dma_transpose(dst=t, src=a)
            else:  # the same bytes copied (the cost test's reference)
                nisa.dma_copy(dst=t, src=a.permute(rank_axes))
        nisa.dma_copy(dst=out, src=t)
        return out
    return k


@pytest.mark.parametrize("shape", [(64, 128), (32, 2, 96), (48, 1, 1, 128)])
@pytest.mark.parametrize("beta1", [False, True])
def test_values_against_numpy(shape, beta1, rng):
    a = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    got = nki.simulate_kernel(_kernel(AXES[len(shape)], beta1), a, config="trn2")
    np.testing.assert_array_equal(got, np.transpose(a, AXES[len(shape)]))


def test_fp32_and_the_rmsnorm_tkg_view(rng):
    """The NKI Library's rmsnorm_tkg: src (B*S, H) viewed as (B*S*H1, 1, 1, H0), dst (H0, 1, 1, B*S*H1)."""
    a = rng.standard_normal((4, 256)).astype(np.float32)

    @nki.jit
    def k(a):
        src = a.reshape_dim(dim=1, shape=[2, 128]).flatten_dims(start_dim=0, end_dim=1).expand_dim(dim=1).expand_dim(dim=1)
        t = nl.ndarray((128, 4, 2), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=t.flatten_dims(start_dim=1, end_dim=2).expand_dim(dim=1).expand_dim(dim=1), src=src)
        out = nl.ndarray((128, 4, 2), dtype=a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t)
        return out
    np.testing.assert_array_equal(k(a), a.reshape(4, 2, 128).transpose(2, 0, 1))


def _pieces(transpose):
    """(duration ns, bytes) of each DMA piece of one [512, 128] bf16 load into a [128, 512] SBUF tile: the
    transpose, or a copy of the same bytes with the same dst (contiguous src: as many descriptors)."""
    @nki.jit
    def k(a):
        t = nl.ndarray((128, 512), dtype=a.dtype, buffer=nl.sbuf)
        if transpose:
            nisa.dma_transpose(dst=t, src=a)
        else:
            nisa.dma_copy(dst=t, src=a.reshape((128, 512)))
        out = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=t[:, 0:1])
        return out
    r = nki.benchmark(k, np.ones((512, 128), ml_dtypes.bfloat16), config="trn2")
    first = min(r.dma, key=lambda d: d[4])[:2]  # (issuing engine, instruction index) of the load
    return [(d[5] - d[4], d[6]) for d in r.dma if d[:2] == first]


def test_transfer_time_is_setup_plus_bytes_at_0_9_of_the_bandwidth():
    """Each piece: setup (piece_setup + descriptors x descriptor, the copy's) + bytes / (23 B/ns x 0.9) on
    trn2, where the copy's is setup + bytes / 23 B/ns (S2: HBM to SBUF up to 90 % of DMA throughput)."""
    copy, transpose = _pieces(False), _pieces(True)
    assert len(copy) == len(transpose) and [b for _d, b in copy] == [b for _d, b in transpose]
    for (d_copy, b), (d_t, _b) in zip(copy, transpose):
        setup = d_copy - b / 23.0
        assert setup == pytest.approx(6 + 8 * 1, abs=0.01)  # piece_setup 6 ns + 8 partitions' descriptors
        assert d_t == pytest.approx(setup + b / (23.0 * 0.9), abs=0.01)


def test_psum_source_is_unsupported_and_bad_shapes_are_errors(rng):
    @nki.jit
    def from_psum(a):
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.psum)
        nisa.tensor_copy(dst=t, src=nl.load(a))
        d = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=d, src=t)

    @nki.jit
    def wrong_dst(a):
        d = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=d, src=a)

    a = np.zeros((8, 16), np.float32)
    with pytest.raises(Unsupported, match=r"test_dma_transpose.py:\d+.*an on-chip src must be an SBUF tile"):
        nki.simulate_kernel(from_psum, a, config="trn2")
    with pytest.raises(KernelError, match=r"dst \(8, 16\) is not src \(8, 16\) transposed"):
        nki.simulate_kernel(wrong_dst, a, config="trn2")


@pytest.mark.parametrize("shape", [(64, 96), (16, 3, 40), (32, 1, 4, 24)])
def test_from_sbuf_against_numpy(shape, rng):
    """From SBUF the partition dim moves (2-d (1, 0), 3-d (2, 1, 0), 4-d (3, 1, 2, 0)): values as NumPy's."""
    a = rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    axes = AXES[len(shape)]

    @nki.jit
    def k(a):
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a)
        d = nl.ndarray(tuple(a.shape[i] for i in axes), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_transpose(dst=d, src=t)
        out = nl.ndarray(d.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=d)
        return out
    np.testing.assert_array_equal(nki.simulate_kernel(k, a, config="trn2"), np.transpose(a, axes))


def test_from_sbuf_moves_at_half_a_copys_throughput():
    """dma.transpose_from_sbuf 0.5 (S2 'SBUF to SBUF up to 50 %'): each piece's bytes take twice a copy's."""
    def pieces(transpose):
        @nki.jit
        def k(a):
            t = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=a)
            d = nl.ndarray((128, 128), dtype=a.dtype, buffer=nl.sbuf)
            if transpose:
                nisa.dma_transpose(dst=d, src=t)
            else:
                nisa.dma_copy(dst=d, src=t)
            out = nl.ndarray((128, 1), dtype=a.dtype, buffer=nl.shared_hbm)
            nisa.dma_copy(dst=out, src=d[:, 0:1])
            return out
        r = nki.benchmark(k, np.ones((128, 128), ml_dtypes.bfloat16), config="trn2")
        starts = sorted({d[:2] for d in r.dma}, key=lambda key: min(d[4] for d in r.dma if d[:2] == key))
        return [(d[5] - d[4], d[6]) for d in r.dma if d[:2] == starts[1]]
    copy, transpose = pieces(False), pieces(True)
    assert len(copy) == len(transpose)
    for (d_copy, b), (d_t, _b) in zip(copy, transpose):
        setup = d_copy - b / 23.0
        assert d_t == pytest.approx(setup + b / (23.0 * 0.5), abs=0.01)
