"""The compiler model's passes (nsim/nki/passes): what each decides, explain=True, and turning
them off one by one (passes=, skip_middle_end_transformations, disable_allocation_opt)."""
import re

import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.compiler as ncc
import nsim.nki.language as nl


def stream_add(a, b):
    """Tiles returned by nl.load / nl.add in a loop (the CS149 stream kernel's structure)."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0]):
        ta = nl.load(a[i])
        tb = nl.load(b[i])
        nl.store(out[i], value=nl.add(ta, tb))
    return out


def declared_add(a, b):
    """The same with tiles declared by nl.ndarray and filled by slice assignment (CS149 tiled)."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0]):
        ta = nl.ndarray(a.shape[1:], dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray(a.shape[1:], dtype=a.dtype, buffer=nl.sbuf)
        ta[...] = nl.load(a[i])
        tb[...] = nl.load(b[i])
        nl.store(out[i], value=nl.add(ta, tb))
    return out


def invariant_load(a, b):
    """Loads the same row of `a` into the same declared tile every iteration: loop-invariant."""
    out = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(b.shape[0]):
        row = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        row[...] = nl.load(a)
        nl.store(out[i], value=nl.add(nl.load(b[i]), row))
    return out


@pytest.fixture
def ab():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((8, 128, 64)).astype(np.float32) for _ in range(2)]


def sbuf_tensors(text):
    return re.findall(r"^tensor (\S+) sbuf", text, re.M)


def test_buffer_rule_returned_tiles_get_4_declared_tiles_1(ab):
    r = nki.benchmark(nki.jit(stream_add, explain=True), *ab, config="trn1")
    np.testing.assert_array_equal(r.outputs, ab[0] + ab[1])
    assert len(sbuf_tensors(r.kernel_text)) == 3 * 4     # load a, load b, add: 4 buffers each
    rule = [d for d in r.decisions if d["pass"] == "buffer_rule" and d["subject"] != "kernel"]
    assert {d["decision"] for d in rule} == {"4 buffer(s)"}
    assert all("modulo allocation over 4" in d["why"] and d["where"] for d in rule)
    r = nki.benchmark(nki.jit(declared_add, explain=True), *ab, config="trn1")
    np.testing.assert_array_equal(r.outputs, ab[0] + ab[1])
    declared = [d for d in r.decisions if d["pass"] == "buffer_rule" and "declared" in d["why"]]
    assert declared and {d["decision"] for d in declared} == {"1 buffer(s)"}


def test_more_buffers_overlap_iterations(ab):
    """With the rule's 4 buffers the 8 iterations' loads run ahead of the adds and stores; with the
    pass off (1 buffer) each iteration's loads wait for the previous store's read of its tile."""
    on = nki.benchmark(nki.jit(stream_add), *ab, config="trn1", timing_only=True).device_time_ns
    off = nki.benchmark(nki.jit(stream_add, passes={"buffer_rule": False}), *ab, config="trn1",
                        timing_only=True).device_time_ns
    beta1 = nki.benchmark(nki.jit(stream_add, disable_allocation_opt=True), *ab, config="trn1",
                          timing_only=True).device_time_ns
    assert off == beta1
    assert on < 0.8 * off, (on, off)


def test_dma_queues_loads_on_sync_stores_on_gpsimd(ab):
    r = nki.benchmark(nki.jit(stream_add, explain=True), *ab, config="trn1", timing_only=True)
    dmas = [line for line in r.kernel_text.splitlines() if "dma_copy" in line]
    loads = [d for d in dmas if re.search(r"dma_copy load", d)]
    stores = [d for d in dmas if re.search(r"dma_copy out", d)]
    assert len(loads) == 16 and len(stores) == 8
    assert all(d.startswith("sync:") and "queue=0" in d for d in loads)
    assert all(d.startswith("gpsimd:") and "queue=0" in d for d in stores)
    off = nki.benchmark(nki.jit(stream_add, passes={"dma_queues": False}), *ab, config="trn1", timing_only=True)
    stores = [line for line in off.kernel_text.splitlines() if "dma_copy out" in line]
    assert all(s.startswith("vector:") for s in stores)  # the producer triggers, queues rotate
    assert {re.search(r"queue=(\d)", s).group(1) for s in stores} != {"0"}


def test_dma_copy_with_engine_or_queue_is_kept():
    import nsim.nki.isa as nisa

    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=a, queue=3)
        nisa.dma_copy(dst=out, src=t, engine=nisa.engine.scalar)
        return out
    a = np.ones((128, 4), np.float32)
    r = nki.benchmark(k, a, config="trn1")
    np.testing.assert_array_equal(r.outputs, a)
    dmas = [line for line in r.kernel_text.splitlines() if "dma_copy" in line]
    assert dmas[0].startswith("sync:") and "queue=3" in dmas[0]
    assert dmas[1].startswith("scalar:")


def test_licm_drops_the_repeated_invariant_load(ab):
    a = ab[0][0]
    r = nki.benchmark(nki.jit(invariant_load, explain=True), a, ab[1], config="trn1")
    np.testing.assert_array_equal(r.outputs, ab[1] + a)
    assert len(re.findall(r"dma_copy .*, a\.ap\(", r.kernel_text)) == 1
    hoisted = [d for d in r.decisions if d["pass"] == "licm" and d["subject"] != "kernel"]
    assert len(hoisted) == 7 and all("loop-invariant" in d["why"] for d in hoisted)
    skipped = ncc.skip_middle_end_transformations(nki.jit(invariant_load, explain=True))
    r2 = nki.benchmark(skipped, a, ab[1], config="trn1")
    np.testing.assert_array_equal(r2.outputs, ab[1] + a)
    assert len(re.findall(r"dma_copy .*, a\.ap\(", r2.kernel_text)) == 8
    assert {"pass": "licm", "subject": "kernel", "decision": "off",
            "why": "@nki.compiler.skip_middle_end_transformations", "where": None} in r2.decisions
    assert r2.device_time_ns > r.device_time_ns


def test_accumulation_is_never_a_repeat():
    """Three identical matmuls accumulating into one PSUM tile read what they write: all three stay."""
    @nki.jit
    def k(x):
        out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        t = nl.load(x)
        acc = nl.zeros((128, 64), nl.float32, buffer=nl.psum)
        for _ in nl.affine_range(3):
            acc += nl.matmul(t, t[:, 0:64], transpose_x=True)
        nl.store(out, value=nl.copy(acc))
        return out
    x = np.random.default_rng(1).standard_normal((128, 128)).astype(np.float32)
    np.testing.assert_allclose(nki.simulate_kernel(k, x), 3 * (x.T @ x[:, :64]), rtol=1e-4, atol=1e-3)


def test_unknown_pass_is_the_kernels_error():
    with pytest.raises(nki.KernelError, match="no pass named 'hoist'.*buffer_rule, licm, fusion, dma_queues"):
        nki.jit(stream_add, passes={"hoist": False})


def test_environment_turns_passes_off_and_prints_decisions(ab, monkeypatch, capsys):
    """For scripts run unchanged: NSIM_PASSES and NSIM_EXPLAIN."""
    a = ab[0][0]
    monkeypatch.setenv("NSIM_PASSES", "licm=off")
    monkeypatch.setenv("NSIM_EXPLAIN", "1")
    r = nki.benchmark(nki.jit(invariant_load), a, ab[1], config="trn1", timing_only=True)
    assert len(re.findall(r"dma_copy .*, a\.ap\(", r.kernel_text)) == 8
    err = capsys.readouterr().err
    assert "invariant_load: licm: kernel -> off (NSIM_PASSES)" in err
    assert re.search(r"invariant_load: dma_queues: dma \S+ <- a -> sync queue 0 .*test_passes.py:\d+\]", err)
    monkeypatch.setenv("NSIM_PASSES", "licm=maybe")
    with pytest.raises(nki.KernelError, match="NSIM_PASSES=licm=maybe: expected name=on|off"):
        nki.benchmark(nki.jit(invariant_load), a, ab[1], config="trn1", timing_only=True)


def _lhs_column(lhsT):
    """lhsT's K tiles, loaded once ahead of the N loop (nothing to fuse: the next loop starts with loads)."""
    lhs = nl.ndarray((lhsT.shape[0] // 128, nl.par_dim(128), lhsT.shape[1]), dtype=lhsT.dtype, buffer=nl.sbuf)
    for k in nl.affine_range(lhsT.shape[0] // 128):
        lhs[k] = nl.load(lhsT[k * 128:(k + 1) * 128, :])
    return lhs


def column_then_matmuls(lhsT, rhs, address=None):
    """Per N tile: a loop loading the K column of rhs into a declared block tile (at `address` if given),
    then a loop of matmuls reading block k in step k (the matmul tutorial's hoisted kernel's shape)."""
    out = nl.ndarray((lhsT.shape[1], rhs.shape[1]), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    k_tiles = lhsT.shape[0] // 128
    lhs = _lhs_column(lhsT)
    for n in nl.affine_range(rhs.shape[1] // 512):
        col = nl.ndarray((k_tiles, nl.par_dim(128), 512), dtype=rhs.dtype, buffer=nl.sbuf, address=address)
        for k in nl.affine_range(k_tiles):
            col[k] = nl.load(rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
        acc = nl.zeros((lhsT.shape[1], 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(k_tiles):
            acc += nl.matmul(lhs[k], col[k], transpose_x=True)
        nl.store(out[:, n * 512:(n + 1) * 512], value=nl.copy(acc, dtype=out.dtype))
    return out


def load_in_matmul_loop(lhsT, rhs):
    """The same written fused: each K step loads its rhs tile into one declared tile, then multiplies."""
    out = nl.ndarray((lhsT.shape[1], rhs.shape[1]), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    lhs = _lhs_column(lhsT)
    for n in nl.affine_range(rhs.shape[1] // 512):
        acc = nl.zeros((lhsT.shape[1], 512), nl.float32, buffer=nl.psum)
        for k in nl.affine_range(lhsT.shape[0] // 128):
            t = nl.ndarray((nl.par_dim(128), 512), dtype=rhs.dtype, buffer=nl.sbuf)
            t[...] = nl.load(rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
            acc += nl.matmul(lhs[k], t, transpose_x=True)
        nl.store(out[:, n * 512:(n + 1) * 512], value=nl.copy(acc, dtype=out.dtype))
    return out


def _groups_per_column(groups):
    """A kernel computing `groups` accumulation groups per column of rhs, each over all K blocks of
    a declared column tile (the blocked tutorial kernel's bm/bn loops around its K loop)."""
    def kernel(lhsT, rhs):
        out = nl.ndarray((lhsT.shape[1], groups * rhs.shape[1]), dtype=lhsT.dtype, buffer=nl.shared_hbm)
        k_tiles = lhsT.shape[0] // 128
        lhs = _lhs_column(lhsT)
        for n in nl.affine_range(rhs.shape[1] // 512):
            col = nl.ndarray((k_tiles, nl.par_dim(128), 512), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(k_tiles):
                col[k] = nl.load(rhs[k * 128:(k + 1) * 128, n * 512:(n + 1) * 512])
            for j in nl.affine_range(groups):
                acc = nl.zeros((lhsT.shape[1], 512), nl.float32, buffer=nl.psum)
                for k in nl.affine_range(k_tiles):
                    acc += nl.matmul(lhs[k], col[k], transpose_x=True)
                g = groups * n + j
                nl.store(out[:, g * 512:(g + 1) * 512], value=nl.copy(acc, dtype=out.dtype))
        return out
    kernel.__name__ = "groups_per_column_%d" % groups
    return kernel


# Six groups: fusing would make the K loop outermost with the six groups live at once, but their
# PSUM tiles rotate over 4 banks, so the fifth group's first matmul would overwrite a bank still
# accumulating: no fusion. Two groups: fusion interchanges the loops, both groups live at once in
# two of the four PSUM banks.
six_groups_per_column = _groups_per_column(6)
two_groups_per_column = _groups_per_column(2)


@pytest.fixture
def mm_inputs():
    import ml_dtypes
    rng = np.random.default_rng(1)
    return (rng.standard_normal((1024, 128)).astype(ml_dtypes.bfloat16),
            rng.standard_normal((1024, 2048)).astype(ml_dtypes.bfloat16))


def test_fusion_loads_each_block_before_its_step(mm_inputs):
    """The rhs column loop is fused into the matmul loop and the column keeps one block buffer: the
    kernel is then the one written fused (same instruction stream up to SBUF offsets, so the same
    device time to the ns), and slower than with the whole column loaded ahead, because each K step's
    load now waits for the previous step's matmul. The lhsT column, whose next loop starts with loads,
    is not fused. Values are unchanged."""
    lhsT, rhs = mm_inputs
    ref = lhsT.astype(np.float32).T @ rhs.astype(np.float32)
    fused = nki.benchmark(nki.jit(column_then_matmuls, explain=True), lhsT, rhs, config="trn1")
    written = nki.benchmark(nki.jit(load_in_matmul_loop), lhsT, rhs, config="trn1")
    ahead = nki.benchmark(nki.jit(column_then_matmuls, passes={"fusion": False}), lhsT, rhs, config="trn1")
    @ncc.skip_middle_end_transformations
    def column_as_written(x, y):  # the directive marks its function: a wrapper keeps column_then_matmuls unmarked
        return column_then_matmuls(x, y)

    skipped = nki.benchmark(nki.jit(column_as_written), lhsT, rhs, config="trn1", timing_only=True)
    unrolled = nki.benchmark(nki.jit(column_then_matmuls, passes={"reroll": False}), lhsT, rhs, config="trn1")
    for r in (fused, written, ahead, unrolled):
        np.testing.assert_allclose(r.outputs.astype(np.float32), ref, rtol=2e-2, atol=0.5)
    assert fused.device_time_ns == written.device_time_ns == unrolled.device_time_ns  # the fused loop rerolls exactly
    assert "loop " in fused.kernel_text
    assert skipped.device_time_ns == ahead.device_time_ns
    assert fused.device_time_ns > 1.2 * ahead.device_time_ns, (fused.device_time_ns, ahead.device_time_ns)
    made = [d for d in fused.decisions if d["pass"] == "fusion" and d["subject"] != "kernel"]
    assert len(made) == 1 and "(4 times)" in made[0]["decision"] and made[0]["where"].endswith(":%d" % (
        column_then_matmuls.__code__.co_firstlineno + 9))


def test_fusion_keeps_every_dependency(mm_inputs):
    r = nki.benchmark(nki.jit(six_groups_per_column, explain=True), *mm_inputs, config="trn1", timing_only=True)
    off = nki.benchmark(nki.jit(six_groups_per_column, passes={"fusion": False}), *mm_inputs, config="trn1",
                        timing_only=True)
    assert [d for d in r.decisions if d["pass"] == "fusion" and d["subject"] != "kernel"] == []
    assert r.device_time_ns == off.device_time_ns


def test_fusion_interchanges_loops_around_the_k_loop(mm_inputs):
    """Both groups of a column read block k in step k: the K loop becomes the outer one, each step
    loads its block once into the reused buffer and both groups' matmuls read it. Values unchanged;
    slower than loading the column ahead (each load waits for the previous step's two matmuls)."""
    lhsT, rhs = mm_inputs
    ref = lhsT.astype(np.float32).T @ rhs.astype(np.float32)
    fused = nki.benchmark(nki.jit(two_groups_per_column, explain=True), lhsT, rhs, config="trn1")
    ahead = nki.benchmark(nki.jit(two_groups_per_column, passes={"fusion": False}), lhsT, rhs, config="trn1")
    for r in (fused, ahead):
        out = r.outputs.astype(np.float32)
        for j in range(2):
            np.testing.assert_allclose(out.reshape(128, -1, 2, 512)[:, :, j].reshape(128, -1), ref, rtol=2e-2, atol=0.5)
    made = [d for d in fused.decisions if d["pass"] == "fusion" and d["subject"] != "kernel"]
    assert len(made) == 1 and "(4 times)" in made[0]["decision"]
    assert fused.device_time_ns > 1.2 * ahead.device_time_ns, (fused.device_time_ns, ahead.device_time_ns)


def test_fusion_leaves_tiles_the_kernel_placed(mm_inputs):
    """A block tile with an explicit address keeps the kernel's placement: its blocks stay apart."""
    r = nki.benchmark(nki.jit(column_then_matmuls, explain=True), *mm_inputs, address=65536, config="trn1",
                      timing_only=True)
    assert [d for d in r.decisions if d["pass"] == "fusion" and d["subject"] != "kernel"] == []
