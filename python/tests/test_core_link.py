"""nisa.sendrecv and nisa.core_barrier at LNC=2 (opcodes sendrecv, core_barrier; sim/model/core_link.h): both
programs of a pair run together on the chip model and the data crosses cores. Values against NumPy, the
cost formulas (docs/isa.md), and the check NKI does not make: a pair whose control flow diverges so that one
of them is never matched (a hang on hardware) is an error naming both programs' lines."""
import ml_dtypes
import numpy as np
import pytest

import nsim._core as _core
import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl
from nsim.nki.errors import KernelError

REMOTE_SEMAPHORE_NS = 30.0         # trn2 chip.remote_semaphore_latency (configs/trn2.yaml)
SEMAPHORE_LATENCY_NS = 30.0        # trn2 kernel.semaphore_latency: a local signal
GPSIMD_DISPATCH_NS = 4 / 1.2       # trn2 gpsimd.dispatch 4 cycles at gpsimd.freq 1.2 GHz


def _swap(local=False, engine=None, lnc=None):
    """Program p loads block p of x into `a`, exchanges it with its peer, stores what it got at block p of
    out: out = x with its two blocks swapped. local=True: a dma_copy within the core instead (the cost
    reference: the same bytes over the same DMA path, with no peer to meet). lnc: NKI 0.6's nki.lnc
    module, whose sendrecv has no pipe_id, and a core_barrier after the store."""
    @nki.jit
    def k(x):
        p = nl.program_id(0)
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        a = nl.ndarray(x.shape[1:], dtype=x.dtype, buffer=nl.sbuf)
        b = nl.ndarray(x.shape[1:], dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=x[p])
        if local:
            nisa.dma_copy(dst=b, src=a)
        elif lnc is not None:
            lnc.sendrecv(src=a, dst=b, send_to_rank=1 - p, recv_from_rank=1 - p)
        else:
            nisa.sendrecv(src=a, dst=b, send_to_rank=1 - p, recv_from_rank=1 - p, pipe_id=0,
                          dma_engine=engine or nisa.dma_engine.dma)
        nisa.dma_copy(dst=out[p], src=b)
        if lnc is not None:
            lnc.core_barrier(data=out, cores=(0, 1))
        return out
    return k


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16, np.uint32])
def test_sendrecv_swaps_the_pairs_tiles(dtype, rng):
    x = (rng.standard_normal((2, 128, 96)) * 100).astype(dtype)
    if dtype == np.uint32:  # above 2^24: the bytes cross, not an fp32 round trip
        x = rng.integers(1 << 30, 1 << 32, size=(2, 128, 96), dtype=np.uint64).astype(np.uint32)
    got = nki.simulate_kernel(_swap()[2], x, config="trn2")
    np.testing.assert_array_equal(got, x[::-1])


def test_sendrecv_from_gpsimd_and_the_partial_sum_exchange(rng):
    """The NKI Library's rmsnorm_tkg shard_on_h: each core sums its half of the hidden dim, the pair
    exchanges the partial sums and adds: both get the full sum of squares."""
    x = rng.standard_normal((128, 512)).astype(np.float32)

    @nki.jit
    def k(x):
        p = nl.program_id(0)
        out = nl.ndarray((2, 128, 1), dtype=x.dtype, buffer=nl.shared_hbm)
        half = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=half, src=x[:, p * 256:(p + 1) * 256])
        sq = nl.ndarray((128, 256), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_tensor(dst=sq, data1=half, data2=half, op=nl.multiply)
        mine = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=mine, op=nl.add, data=sq, axis=1)
        theirs = nl.ndarray((128, 1), dtype=x.dtype, buffer=nl.sbuf)
        nisa.sendrecv(src=mine, dst=theirs, send_to_rank=1 - p, recv_from_rank=1 - p, pipe_id=0,
                      dma_engine=nisa.dma_engine.gpsimd_dma)
        nisa.tensor_tensor(dst=mine, data1=mine, data2=theirs, op=nl.add)
        nisa.dma_copy(dst=out[p], src=mine)
        return out
    got = nki.simulate_kernel(k[2], x, config="trn2")
    want = (x.astype(np.float64) ** 2).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(got[0], want, rtol=1e-5)
    np.testing.assert_array_equal(got[0], got[1])


def test_sendrecv_in_a_loop_pairs_each_iteration(rng):
    """Each iteration's sendrecv meets the peer's of the same iteration (a repeat is never hoisted)."""
    x = rng.standard_normal((2, 3, 128, 32)).astype(np.float32)

    @nki.jit
    def k(x):
        p = nl.program_id(0)
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        for i in nl.sequential_range(3):
            a = nl.ndarray((128, 32), dtype=x.dtype, buffer=nl.sbuf)
            b = nl.ndarray((128, 32), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=a, src=x[p, i])
            nisa.sendrecv(src=a, dst=b, send_to_rank=1 - p, recv_from_rank=1 - p, pipe_id=0)
            nisa.dma_copy(dst=out[p, i], src=b)
        return out
    np.testing.assert_array_equal(nki.simulate_kernel(k[2], x, config="trn2"), x[::-1])


def test_nki_lnc_names_are_the_same_instructions(rng):
    """NKI 0.6's nki.lnc.sendrecv (no pipe_id) and nki.lnc.core_barrier."""
    import nsim.nki.lnc as lnc
    x = rng.standard_normal((2, 128, 64)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(_swap(lnc=lnc)[2], x, config="trn2"), x[::-1])


def test_sendrecv_cost_is_a_local_copy_plus_the_remote_semaphore_writes():
    """docs/isa.md: the pair meets one remote semaphore write (chip.remote_semaphore_latency, 30 ns) after the later
    arrival, then each core's transfer is a local SBUF -> SBUF dma_copy's; both complete one more
    semaphore write after the later transfer. With identical programs the later arrival is each one's
    own, so against the same kernel with a local copy the chain is exactly one semaphore write longer."""
    x = np.ones((2, 128, 512), np.float32)
    swap = nki.benchmark(_swap()[2], x, config="trn2").device_time_ns
    local = nki.benchmark(_swap(local=True)[2], x, config="trn2").device_time_ns
    assert swap - local == pytest.approx(REMOTE_SEMAPHORE_NS, abs=1e-3)


def _barrier_kernel(barrier=True, late=0):
    """Program p writes block p of a shared HBM tensor, meets its peer, then reads the peer's block:
    out[p] = x[1 - p]. Program 1 first does `late` extra VectorE passes, so it writes late."""
    @nki.jit
    def k(x):
        p = nl.program_id(0)
        shared = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(x.shape[1:], dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[p])
        for _ in range(late if p == 1 else 0):
            nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=1.0)
        nisa.dma_copy(dst=shared[p], src=t)
        if barrier:
            nisa.core_barrier(data=shared, cores=(0, 1))
        other = nl.ndarray(x.shape[1:], dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=other, src=shared[1 - p])
        nisa.dma_copy(dst=out[p], src=other)
        return out
    return k


def test_core_barrier_orders_the_peers_writes_before_the_reads(rng):
    x = rng.standard_normal((2, 128, 256)).astype(np.float32)
    got = nki.simulate_kernel(_barrier_kernel(late=8)[2], x, config="trn2")
    np.testing.assert_array_equal(got, x[::-1])
    # Without it, program 0 reads block 1 before program 1 has written it: the test can fail.
    racy = nki.simulate_kernel(_barrier_kernel(barrier=False, late=8)[2], x, config="trn2")
    assert not np.array_equal(racy[0], x[1])


def test_core_barrier_cost():
    """docs/isa.md: each side arrives one dispatch (GpSimd: 4 cycles at 1.2 GHz) after it issues, the pair
    meets one remote semaphore write later (chip.remote_semaphore_latency), and the barrier signals its
    dependents with a local one (kernel.semaphore_latency): 3.333 + 30 + 30 ns on the chain from the writes
    to the reads."""
    x = np.ones((2, 128, 256), np.float32)
    with_barrier = nki.benchmark(_barrier_kernel()[2], x, config="trn2").device_time_ns
    without = nki.benchmark(_barrier_kernel(barrier=False)[2], x, config="trn2").device_time_ns
    assert with_barrier - without == pytest.approx(GPSIMD_DISPATCH_NS + REMOTE_SEMAPHORE_NS + SEMAPHORE_LATENCY_NS,
                                                      abs=1e-3)


def test_a_barrier_of_one_core_is_nothing(rng):
    @nki.jit
    def k(x):
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=x)
        nisa.core_barrier(out, (0))
        return out
    x = rng.standard_normal((128, 8)).astype(np.float32)
    np.testing.assert_array_equal(nki.simulate_kernel(k, x, config="trn2"), x)


# ------------------------------------------------------------------ errors
def test_divergent_barriers_name_both_programs_lines():
    @nki.jit
    def k(x):
        p = nl.program_id(0)
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=out, src=x)
        nisa.core_barrier(data=out, cores=(0, 1))  # line A
        if p == 0:
            nisa.core_barrier(data=out, cores=(0, 1))  # line B: program 1 never gets here
        return out
    lines = _lines_of(k, "core_barrier(data=out")
    with pytest.raises(KernelError, match=r"test_core_link.py:%d: program 0 of grid \(2,\) reaches its 2nd "
                                          r"core_barrier \(on gpsimd\) at test_core_link.py:%d, which program 1 never "
                                          r"matches: it reaches 1, the last at test_core_link.py:%d\. On hardware this hangs"
                       % (lines[1], lines[1], lines[0])):
        nki.simulate_kernel(k[2], np.ones((128, 8), np.float32), config="trn2")


def test_divergent_sendrecvs_and_mismatched_tiles_are_errors():
    @nki.jit
    def fewer(x):
        p = nl.program_id(0)
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        a = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
        b = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=x)
        if p == 1:
            nisa.sendrecv(src=a, dst=b, send_to_rank=0, recv_from_rank=0, pipe_id=0)
        nisa.dma_copy(dst=out, src=a)
        return out

    @nki.jit
    def mismatched(x):
        p = nl.program_id(0)
        out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
        a = nl.ndarray((128, 8 - 4 * p), dtype=x.dtype, buffer=nl.sbuf)
        b = nl.ndarray((128, 8 - 4 * p), dtype=x.dtype, buffer=nl.sbuf)
        nisa.memset(dst=a, value=1.0)
        nisa.sendrecv(src=a, dst=b, send_to_rank=1 - p, recv_from_rank=1 - p, pipe_id=0)
        nisa.dma_copy(dst=out[:, 0:8 - 4 * p], src=b)
        return out
    x = np.ones((128, 8), np.float32)
    with pytest.raises(KernelError, match=r"program 1 of grid \(2,\) reaches its 1st sendrecv \(on sync\) at "
                                          r"test_core_link.py:\d+, which program 0 never matches: it reaches 0\."):
        nki.simulate_kernel(fewer[2], x, config="trn2")
    with pytest.raises(KernelError, match=r"program 0 of grid \(2,\) sends f32 \[128, 8\] at test_core_link.py:\d+ "
                                          r"\(its 1st sendrecv\) into program 1's dst f32 \[128, 4\]"):
        nki.simulate_kernel(mismatched[2], x, config="trn2")


def test_sendrecv_needs_lnc2_and_the_peers_rank():
    with pytest.raises(KernelError, match=r"test_core_link.py:\d+: nisa.sendrecv needs LNC=2"):
        nki.simulate_kernel(_swap(), np.ones((2, 128, 8), np.float32), config="trn2")

    @nki.jit
    def to_self(x):
        p = nl.program_id(0)
        a = nl.ndarray((128, 8), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=x)
        nisa.sendrecv(src=a, dst=a, send_to_rank=p, recv_from_rank=1 - p, pipe_id=0)
    with pytest.raises(KernelError, match=r"send_to_rank=0, but this program is rank 0 of its LNC=2 pair"):
        nki.simulate_kernel(to_self[2], np.ones((128, 8), np.float32), config="trn2")


def test_the_model_names_both_programs_lines_of_an_unmatched_barrier():
    """A kernel text (not traced: no frontend check) whose programs diverge at run time: the chip model
    reports the deadlock with both programs' lines instead of hanging."""
    text = ("kernel dead\ntensor x hbm f32 [128, 64]\n"
            "loop i in 0:program_id + 1 {\n  gpsimd: core_barrier\n}\n")
    core = _core.core()
    with pytest.raises(core.SimError, match=r"kernel 'dead' line 4 \(gpsimd core_barrier\): program 1's 2nd "
                                            r"core_barrier on gpsimd is never matched: program 0 reaches 1 "
                                            r"core_barrier on gpsimd \(the last at its line 4\)"):
        core.run_grid(text, "dead.nk", "trn2", [], {}, [], 2, [])


def _lines_of(fn, needle):
    import inspect
    src, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    return [first + i for i, line in enumerate(src) if needle in line]
