"""Modulo allocation of loop-local tiles, PSUM banks and capacity errors."""
import re

import numpy as np
import pytest
from nki_testing import bf16, f32

import nsim.nki as nki
import nsim.nki.compiler as ncc
import nsim.nki.isa as nisa
import nsim.nki.language as nl
import vector_add as examples_vector_add


def vector_add(num_buffers):
    """The example's tiled vector add with an explicit buffer count."""
    return nki.jit(examples_vector_add.vector_add_tiled.fn, num_buffers=num_buffers)


def sbuf_tensors(text):
    return re.findall(r"^tensor (\S+) sbuf", text, re.M)


@pytest.fixture
def ab(rng):
    return bf16(rng.standard_normal((1024, 512))), bf16(rng.standard_normal((1024, 512)))


def test_loop_local_tiles_rotate_over_n_buffers(ab):
    a, b = ab
    times = {}
    for n in (1, 2, 4):
        r = nki.benchmark(vector_add(n), a, b)
        np.testing.assert_array_equal(f32(r.outputs), f32(bf16(f32(a) + f32(b))))
        # three allocation sites (two loads, one add), n buffers each, whatever the 8 iterations
        assert len(sbuf_tensors(r.kernel_text)) == 3 * n
        times[n] = r.device_time_ns
    # one buffer serialises load, add and store of consecutive iterations; more overlap them
    assert times[1] > times[2] >= times[4]


def test_per_tile_override(ab):
    @nki.jit(num_buffers=2)
    def k(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[0] // 128):
            ta = nl.load(a[i * 128:(i + 1) * 128, :], num_buffers=3)
            tb = nl.load(b[i * 128:(i + 1) * 128, :])
            nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(ta, tb))
        return out
    text = nki.benchmark(k, *ab).kernel_text
    names = sbuf_tensors(text)
    assert len([n for n in names if n.startswith("load_L%d_" % (k.fn.__code__.co_firstlineno + 4))]) == 3
    assert len(names) == 3 + 2 + 2


@pytest.mark.parametrize("window", [False, True], ids=["tile", "window"])
def test_tile_used_after_its_buffer_was_reused_is_an_error(window):
    """With the kernel's own count (num_buffers=2) the rotation stands; a use of the tile, or of any
    window of it, after a later iteration took its buffer is the kernel's error."""
    use = (lambda t: t[:, 0:4]) if window else (lambda t: t)

    @nki.jit(num_buffers=2)
    def k(a):
        out = nl.ndarray((128, 8), dtype=a.dtype, buffer=nl.shared_hbm)
        tiles = []
        for i in nl.affine_range(4):
            tiles.append(nl.load(a[i * 128:(i + 1) * 128, :]))
        nl.store(out[:, 0:4] if window else out, value=nl.add(use(tiles[0]), use(tiles[3])))
        return out
    with pytest.raises(nki.KernelError, match=r"test_allocation.py:%d: tile from line %d is used after its buffer "
                       r"was reused by the tile from line %d" % ((k.fn.__code__.co_firstlineno + 6,)
                                                                  + (k.fn.__code__.co_firstlineno + 5,) * 2)):
        nki.simulate_kernel(k, np.zeros((512, 8), np.float32))


@nki.jit
def tile_list_per_iteration(x):
    """Each iteration of the nl loop fills a Python list of three declared tiles, then reads all three:
    the three are live together, so each needs its own buffer (the NKI Library's MoE kernels do this)."""
    n, parts, cols = x.shape[0], x.shape[2], x.shape[3]
    out = nl.ndarray((n, parts, 3 * cols), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.sequential_range(n):
        tiles = []
        for j in range(3):
            t = nl.ndarray((parts, cols), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[i, j])
            tiles.append(t)
        for j in range(3):
            nisa.dma_copy(dst=out[i, :, j * cols:(j + 1) * cols], src=tiles[j][:, :])
    return out


def test_tiles_one_iteration_makes_at_one_site_get_buffers_of_their_own(rng):
    x = rng.standard_normal((2, 3, 128, 16)).astype(np.float32)
    r = nki.benchmark(tile_list_per_iteration, x)
    np.testing.assert_array_equal(r.outputs, np.concatenate([x[:, 0], x[:, 1], x[:, 2]], axis=2))
    # one rotation (DECLARED_BUFFERS = 1) per tile of the iteration, reused by the next iteration
    assert len(sbuf_tensors(r.kernel_text)) == 3


@nki.jit
def tiles_kept_across_iterations(x):
    """NKI 0.3+ style (the NKI Library's output_proj_tkg): one nl loop fills a list with a declared tile per
    iteration, a later loop reads them all. The buffer rule's one buffer per site would hand tile 0's
    buffer to tile 1; the frontend retraces with a buffer per tile instead."""
    n, parts, cols = x.shape
    out = nl.ndarray((parts, n * cols), dtype=x.dtype, buffer=nl.shared_hbm)
    kept = []
    for i in nl.affine_range(n):
        t = nl.ndarray((parts, cols), dtype=x.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[i])
        kept.append(t)
    for i in nl.affine_range(n):
        nisa.dma_copy(dst=out[:, i * cols:(i + 1) * cols], src=kept[i][:, :])
    return out


def test_tiles_a_later_loop_reads_keep_buffers_of_their_own(rng):
    x = rng.standard_normal((4, 128, 8)).astype(np.float32)
    r = nki.benchmark(tiles_kept_across_iterations, x)
    np.testing.assert_array_equal(r.outputs, np.concatenate(list(x), axis=1))
    assert len(sbuf_tensors(r.kernel_text)) == 4

def test_sbuf_capacity_error_names_the_tile():
    @nki.jit(num_buffers=4)
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[1] // 16384):
            t = nl.load(a[:, i * 16384:(i + 1) * 16384])  # 64 KiB per partition, 4 buffers > 224 KiB
            nl.store(out[:, i * 16384:(i + 1) * 16384], value=t)
        return out
    line = k.fn.__code__.co_firstlineno + 4
    with pytest.raises(nki.KernelError, match=r"test_allocation.py:%d: SBUF over capacity at this tile "
                       r"\(load_L%d_b3, 4 buffer\(s\) of 65536 B per partition\)" % (line, line)):
        nki.simulate_kernel(k, np.zeros((128, 4 * 16384), np.float32))


def test_psum_tiles_take_banks():
    @nki.jit
    def k(x):
        out = nl.ndarray((9, 128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        accs = [nl.matmul(t[:, 0:128], t, transpose_x=True) for _ in range(9)]  # nine live PSUM tiles, 8 banks
        for j, acc in enumerate(accs):
            nl.store(out[j], value=nl.copy(acc))
        return out
    with pytest.raises(nki.KernelError, match=r"PSUM over capacity at this tile .* need 9 banks, trn2 has 8 banks"):
        nki.simulate_kernel(k, np.zeros((128, 512), np.float32))


def test_psum_tiles_within_banks_run():
    @nki.jit
    def k(x):
        out = nl.ndarray((8, 128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        accs = [nl.matmul(t[:, 0:128], t, transpose_x=True) for _ in range(8)]
        for j, acc in enumerate(accs):
            nl.store(out[j], value=nl.copy(acc))
        return out
    x = np.random.default_rng(0).standard_normal((128, 512)).astype(np.float32)
    y = nki.simulate_kernel(k, x)
    for j in range(8):
        np.testing.assert_allclose(y[j], x[:, :128].T @ x, rtol=1e-4, atol=1e-3)


def test_default_double_buffering_shrinks_to_fit():
    @nki.jit
    def k(a, b):
        out = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(2):
            big = nl.load(a[:, i * 40960:(i + 1) * 40960])    # 160 KiB per partition: only one fits
            small = nl.load(b[:, i * 64:(i + 1) * 64])
            nl.store(out[:, i * 64:(i + 1) * 64], value=nl.add(small, nl.max(big, axis=1, keepdims=True)))
        return out
    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 2 * 40960)).astype(np.float32)
    b = rng.standard_normal((128, 128)).astype(np.float32)
    r = nki.benchmark(k, a, b)
    expect = np.concatenate([b[:, i * 64:(i + 1) * 64] + a[:, i * 40960:(i + 1) * 40960].max(axis=1, keepdims=True)
                             for i in range(2)], axis=1)
    np.testing.assert_array_equal(r.outputs, expect)
    names = sbuf_tensors(r.kernel_text)
    line = k.fn.__code__.co_firstlineno
    assert [n for n in names if n.startswith("load_L%d_" % (line + 4))] == ["load_L%d_b0" % (line + 4)]
    assert len([n for n in names if n.startswith("load_L%d_" % (line + 5))]) == 2  # small tiles keep two
    with pytest.raises(nki.KernelError, match="SBUF over capacity"):   # an explicit count is not shrunk
        nki.simulate_kernel(nki.jit(k.fn, num_buffers=2), a, b)


@nki.jit
def chain_of_big_temporaries(x):
    """Eight [128, 8192] fp32 temporaries per row tile (32 KiB per partition each): their buffers
    side by side need more than SBUF; each is dead once the next is made."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        t0 = nl.load(x[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.multiply(_six_steps(t0), 2.0))
    return out


def _six_steps(t0):
    """(((t0 * 2 + 1) * 2 + 1) * 2 + 1): six [128, 8192] fp32 temporaries, one site each."""
    t1 = nl.multiply(t0, 2.0)
    t2 = nl.add(t1, 1.0)
    t3 = nl.multiply(t2, 2.0)
    t4 = nl.add(t3, 1.0)
    t5 = nl.multiply(t4, 2.0)
    return nl.add(t5, 1.0)


def test_tiles_never_live_together_share_bytes():
    x = np.random.default_rng(1).standard_normal((256, 8192)).astype(np.float32)
    r = nki.benchmark(chain_of_big_temporaries, x, explain=True)
    expect = x
    for step in range(7):
        expect = expect + np.float32(1) if step % 2 else expect * np.float32(2)
    np.testing.assert_array_equal(r.outputs, expect)  # run with the race check on: every reuse is ordered
    at = re.findall(r"^tensor (\S+) sbuf f32 \[128, 8192\] at=(\d+)", r.kernel_text, re.M)
    # eight allocation sites of two used buffers each (two iterations): 512 KiB side by side
    assert len(at) == 16 and len({offset for _, offset in at}) < 16  # some share bytes
    assert max(int(offset) for _, offset in at) + 32768 <= 229376
    assert [d for d in r.decisions if d["pass"] == "liveness" and "share bytes" in d["why"]]
    with pytest.raises(nki.KernelError, match=r"SBUF over capacity at this tile"):
        nki.simulate_kernel(nki.jit(chain_of_big_temporaries.fn, passes={"liveness": False}), x)


def test_kernels_that_fit_keep_every_buffer_apart(ab):
    assert " at=" not in nki.benchmark(vector_add(2), *ab).kernel_text


@nki.jit
def invariant_iota_among_big_temporaries(x):
    """The iota is the same every iteration, so LICM keeps the first one per buffer and the later
    iterations read the value it left; the big temporaries force the liveness pass to share bytes."""
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        w = nl.mgrid[0:128, 0:x.shape[1]]
        idx = nisa.iota(w.x, dtype=nl.float32)
        t0 = nl.load(x[i * 128:(i + 1) * 128, :])
        nl.store(out[i * 128:(i + 1) * 128, :], value=nl.add(_six_steps(t0), idx))
    return out


def test_a_value_licm_kept_stays_live_through_the_iterations_reading_it():
    """A hoisted write's value lives until the last iteration reads it: no tile may take its bytes
    in between (it did: the later iterations' reads counted as a new value nobody wrote)."""
    x = np.random.default_rng(3).standard_normal((8 * 128, 8192)).astype(np.float32)
    r = nki.benchmark(invariant_iota_among_big_temporaries, x)
    assert " at=" in r.kernel_text  # the liveness pass placed buffers on shared bytes
    t = ((x * 2.0 + 1.0) * 2.0 + 1.0) * 2.0 + 1.0
    np.testing.assert_allclose(r.outputs, t + np.arange(8192, dtype=np.float32)[None, :], rtol=1e-6)


def _twelve_psum_tiles(placed):
    """Twelve matmul results, each in a PSUM tile made at one line of a Python loop: side by side they
    would need 12 banks. placed: the kernel puts tile i in bank i % 8 itself (as the NKI Library's
    conv1d does with address=(0, bank * 2048)); else each tile is a buffer of its own (nothing
    rotates), dead before the next is made, so the liveness pass may let them share banks."""
    def kernel(lhsT, rhs):
        out = nl.ndarray((128, 12 * 512), dtype=nl.float32, buffer=nl.shared_hbm)
        a, b = nl.load(lhsT), nl.load(rhs)
        for i in range(12):
            acc = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum,
                             address=(0, (i % 8) * 2048) if placed else None)
            acc[...] = nisa.nc_matmul(a, b)
            nl.store(out[:, i * 512:(i + 1) * 512], value=nl.multiply(acc, float(i + 1)))
        return out
    kernel.__name__ = "psum_round_robin" if placed else "psum_tile_per_python_iteration"
    return nki.jit(kernel)


psum_round_robin = _twelve_psum_tiles(placed=True)
psum_tile_per_python_iteration = _twelve_psum_tiles(placed=False)


def _run_twelve_psum_tiles(kernel):
    """Runs `kernel` (_twelve_psum_tiles) and checks its values: tile i holds (lhsT^T @ rhs) * (i + 1)."""
    rng = np.random.default_rng(4)
    lhsT = rng.standard_normal((128, 128)).astype(np.float32)
    rhs = rng.standard_normal((128, 512)).astype(np.float32)
    r = nki.benchmark(kernel, lhsT, rhs)
    mm = lhsT.T.astype(np.float64) @ rhs
    np.testing.assert_allclose(r.outputs, np.concatenate([mm * (i + 1) for i in range(12)], axis=1), rtol=1e-4,
                               atol=1e-3)
    return r, (lhsT, rhs)


def test_buffers_the_kernel_placed_keep_their_bytes_and_may_share_them():
    r, (lhsT, rhs) = _run_twelve_psum_tiles(psum_round_robin)
    placed = re.findall(r"tensor (\S+) psum f32 \[128, 512\] at=(\d+)", r.kernel_text)
    assert [int(at) for _, at in placed] == [(i % 8) * 2048 for i in range(12)]
    off = nki.benchmark(nki.jit(psum_round_robin.fn, passes={"liveness": False}), lhsT, rhs)
    assert off.kernel_text == r.kernel_text  # the kernel's own placement is no decision of the pass


@nki.jit
def modulo_allocated_add(a, b):
    """CS149's direct allocation: each operand rotates over 4 slots of 4000 B from its own base_addr."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(a.shape[0] // 128):
        at = nl.ndarray((128, 1000), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(4,)))
        bt = nl.ndarray((128, 1000), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=16000, num_free_tiles=(4,)))
        at[...] = nl.load(a[m * 128:(m + 1) * 128, :])
        bt[...] = nl.load(b[m * 128:(m + 1) * 128, :])
        nl.store(out[m * 128:(m + 1) * 128, :], value=nl.add(at, bt))
    return out


def test_rotating_slots_sit_at_base_plus_slot_times_size_and_stay_apart():
    """Slot k of a mod_alloc at base + k x 4000 B: unaligned, side by side, sharing no bytes, so no
    access waits on another slot's (a 64 B-rounded size made neighbours overlap and serialised them)."""
    a = np.random.default_rng(5).standard_normal((8 * 128, 1000)).astype(np.float32)
    r = nki.benchmark(modulo_allocated_add, a, 2 * a)
    np.testing.assert_array_equal(r.outputs, 3 * a)
    placed = re.findall(r"tensor (tile_\S+) sbuf f32 \[128, 1000\] at=(\d+)", r.kernel_text)
    assert sorted(int(at) for _, at in placed) == [k * 4000 for k in range(8)]
    assert "shared_sbuf" not in r.kernel_text


def test_tiles_of_a_python_loop_are_no_rotation_and_may_share_banks():
    r, _ = _run_twelve_psum_tiles(psum_tile_per_python_iteration)
    banks = {int(at) // 2048 for at in re.findall(r"tensor \S+ psum f32 \[128, 512\] at=(\d+)", r.kernel_text)}
    assert len(banks) < 12 and max(banks) < 8


@nki.jit
def overlapping_placements(a, read_cols):
    """Two tiles the kernel placed 8 B apart: u's first two columns are t's last two."""
    out = nl.ndarray((128, read_cols), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf, address=(0, 0))
    u = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf, address=(0, 8))
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=u, src=a)
    v = nl.ndarray((128, read_cols), dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar(dst=v, data=t[:, 0:read_cols], op0=nl.add, operand0=1.0)
    nisa.dma_copy(dst=out, src=v)
    return out


def test_a_read_of_bytes_another_placed_tile_wrote_over_is_an_error_at_its_line():
    """AWS's functional simulator gives t its own memory and returns a + 1; on hardware t's columns 2..3
    hold u's columns 0..1 by then. Reading them is refused, naming both writes."""
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    line = overlapping_placements.fn.__code__.co_firstlineno + 9
    with pytest.raises(nki.KernelError) as info:
        nki.simulate_kernel(overlapping_placements, a, 4)
    text = str(info.value)
    assert text.startswith("test_allocation.py:%d: " % line), text
    assert "(written at line %d) is read here, but line %d since wrote tile" % (line - 3, line - 2) in text, text


def test_a_read_of_the_bytes_no_other_tile_reached_runs():
    a = np.arange(128 * 4, dtype=np.float32).reshape(128, 4)
    np.testing.assert_array_equal(nki.simulate_kernel(overlapping_placements, a, 2), a[:, :2] + 1)
