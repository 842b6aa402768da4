"""Semaphores the frontend inserts between engines, checked in the text and in the timeline."""
import re

import numpy as np
import pytest
from nki_testing import bf16

import nsim.nki as nki
import nsim.nki.language as nl
from test_allocation import vector_add


def lines_of(text, opcode):
    return [l for l in text.splitlines() if re.match(r"\w+: %s " % opcode, l)]


def test_vector_add_semaphores(rng):
    a, b = bf16(rng.standard_normal((512, 64))), bf16(rng.standard_normal((512, 64)))
    text = nki.benchmark(vector_add(2), a, b).kernel_text
    adds, dmas = lines_of(text, "tensor_tensor"), lines_of(text, "dma_copy")
    # each add waits for its two loads (RAW across engines): the k-th write of its buffers
    assert [len(re.findall(r"wait=sem_load_\w+_b%d_w>=%d" % (i % 2, i // 2 + 1), l)) for i, l in enumerate(adds)] == [2] * 4
    # the store is triggered from GpSimd (passes/dma_queues.py): it waits for the add's write (RAW)
    stores = [l for l in dmas if l.startswith("gpsimd:")]
    assert [re.findall(r"wait=sem_add_\w+_(b[01])_w>=(\d)", l) for l in stores] == \
        [[("b0", "1")], [("b1", "1")], [("b0", "2")], [("b1", "2")]]
    # with the pass off, VectorE triggers it right after the add: ordered by the engine, no semaphore
    off = nki.benchmark(nki.jit(vector_add(2).fn, num_buffers=2, passes={"dma_queues": False}), a, b).kernel_text
    stores = [l for l in lines_of(off, "dma_copy") if l.startswith("vector:")]
    assert len(stores) == 4 and not any("wait=" in l for l in stores)
    # iteration 2 reuses iteration 0's buffers: its loads wait until the add has read them (WAR)
    loads = [l for l in dmas if l.startswith("sync:")]
    assert not any("wait=" in l for l in loads[:4])
    assert [re.findall(r"wait=sem_load_\w+_(b[01])_r>=(\d)", l) for l in loads[4:]] == \
        [[("b0", "1")], [("b0", "1")], [("b1", "1")], [("b1", "1")]]
    # nothing reads `out`: stores of disjoint tiles are not ordered among themselves
    assert "sem_out_w" not in text


def test_timeline_respects_dependencies(rng):
    a, b = bf16(rng.standard_normal((512, 64))), bf16(rng.standard_normal((512, 64)))
    r = nki.benchmark(vector_add(1), a, b)
    dma_end = {}
    for engine, index, _q, _e, _s, end, _b in r.dma:
        dma_end[(engine, index)] = max(end, dma_end.get((engine, index), 0))
    dma_start = {}
    for engine, index, _q, _e, start, _end, _b in r.dma:
        dma_start[(engine, index)] = min(start, dma_start.get((engine, index), float("inf")))
    adds = sorted((s, e) for engine, _i, s, e, _w in r.instructions if engine == "vector" and e - s > 50)
    loads = sorted(k for k in dma_end if k[0] == "sync")
    assert len(adds) == 4 and len(loads) == 8
    for i, (start, end) in enumerate(adds):
        # RAW: the add of iteration i starts after both of its loads landed
        assert start >= max(dma_end[loads[2 * i]], dma_end[loads[2 * i + 1]])
        # WAR with one buffer: the next iteration's loads start after this add read the tiles
        if i + 1 < len(adds):
            assert dma_start[loads[2 * i + 2]] >= end


def test_same_engine_chain_has_no_semaphores_cross_engine_does(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        u = nl.multiply(nl.add(t, 1.0), 2.0)   # VectorE -> VectorE
        nl.store(out, value=nl.exp(u))          # VectorE -> ScalarE
        return out
    a = np.random.default_rng(0).standard_normal((32, 32)).astype(np.float32)
    r = nki.benchmark(k, a)
    np.testing.assert_allclose(r.outputs, np.exp((a + 1) * 2), rtol=1e-5)
    ts = lines_of(r.kernel_text, "tensor_scalar")
    assert "wait=" in ts[0] and "wait=" not in ts[1]
    assert re.search(r"wait=sem_multiply_\w+_w>=1", lines_of(r.kernel_text, "activation")[0])


def test_partial_writes_are_all_awaited(rng):
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
        for h in range(4):
            t[:, h * 16:(h + 1) * 16] = nl.load(a[:, h * 16:(h + 1) * 16])   # four DMAs into one tile
        nl.store(out, value=nl.exp(t))
        return out
    a = np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32)
    r = nki.benchmark(k, a)
    np.testing.assert_allclose(r.outputs, np.exp(a), rtol=1e-5)
    assert re.search(r"wait=sem_tile_\w+_w>=4", lines_of(r.kernel_text, "activation")[0])
    assert len(lines_of(r.kernel_text, "dma_copy")) == 5  # the loads went straight into t (no copies)


def test_semaphore_budget_coarsens_tracking(rng):
    """With fewer semaphores than the finest tracking needs, units get coarser: still correct, never faster."""
    a, b = bf16(rng.standard_normal((1024, 64))), bf16(rng.standard_normal((1024, 64)))
    expect = bf16(a.astype(np.float32) + b.astype(np.float32)).astype(np.float32)
    times = []
    for limit, semaphores in ((256, None), (4, ["sem_slot0_r", "sem_slot0_w", "sem_slot1_r", "sem_slot1_w"]),
                              (2, ["sem_b0_r", "sem_b0_w"])):
        r = nki.benchmark(vector_add(2), a, b, overrides=["kernel.semaphores=%d" % limit])
        np.testing.assert_array_equal(r.outputs.astype(np.float32), expect)
        declared = re.findall(r"^semaphore (\S+)", r.kernel_text, re.M)
        assert len(declared) <= limit
        if semaphores:
            assert declared == semaphores
        times.append(r.device_time_ns)
    assert times[0] <= times[1] <= times[2]


def test_semaphore_budget_too_small(rng):
    a = bf16(rng.standard_normal((256, 8)))
    with pytest.raises(nki.KernelError, match="needs 2 semaphores; the config has 1"):
        nki.simulate_kernel(vector_add(1), a, a, overrides=["kernel.semaphores=1"])


def test_blocks_are_tracked_separately_then_in_groups(rng):
    @nki.jit(passes={"dma_queues": False})  # stores from ScalarE after their exp: only the loads need semaphores
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.ndarray((8, nl.par_dim(128), 64), dtype=a.dtype, buffer=nl.sbuf)
        for b in range(8):
            t[b] = nl.load(a[:, b * 64:(b + 1) * 64])
        for b in range(8):
            nl.store(out[:, b * 64:(b + 1) * 64], value=nl.exp(t[b]))
        return out
    a = rng.standard_normal((128, 512)).astype(np.float32)
    for limit, units in ((256, 8), (4, 4), (2, 2)):
        r = nki.benchmark(k, a, overrides=["kernel.semaphores=%d" % limit])
        np.testing.assert_allclose(r.outputs, np.exp(a), rtol=1e-6)
        sems = re.findall(r"^semaphore (\S+)", r.kernel_text, re.M)
        assert len(sems) == units and all(re.fullmatch(r"sem_tile_L\d+_b0_k\d_w", s) for s in sems)
        # the exp of the first block of a unit waits for that unit's loads; the unit's others are covered
        exps = lines_of(r.kernel_text, "activation")
        per_unit = 8 // units
        waits = [re.findall(r"wait=\S+>=(\d+)", l) for l in exps]
        assert waits == [[str(per_unit)] if b % per_unit == 0 else [] for b in range(8)]


def test_shared_memory_units_are_bucketed_last():
    """Buffers the liveness pass placed on shared bytes are one unit each (decl.memory); when even those
    outnumber the budget they share the buckets too (the NKI Library's attention_cte: 466 semaphores, most of
    them shared PSUM buffers, for 256): still ordered, never more semaphores than the config has."""
    from types import SimpleNamespace

    from nsim.nki.dependencies import add_semaphores

    def view(name):
        decl = SimpleNamespace(name=name, on_chip=True, free_size=64, block_free=64, memory="shared_sbuf_" + name)
        return SimpleNamespace(decl=decl, units=lambda group=1: [name])

    def ins(engine, reads, writes):
        return SimpleNamespace(engine=engine, opcode="x", is_dma=False, reads=reads, writes=writes)

    tiles = [view("t%d" % i) for i in range(6)]
    instrs = [ins("vector", [], [t]) for t in tiles] + [ins("scalar", [t], []) for t in tiles]
    sems = add_semaphores(instrs, 4)
    assert 0 < len(sems) <= 4 and all(s.startswith("sem_b") for s in sems)
    # every read on ScalarE is covered by a wait (its own or an earlier one on that stream) for a count that
    # includes the VectorE write of its tile: writes signal their bucket, reads wait for a count
    signalled = {}  # semaphore -> number of signals so far, and the count each write reached
    reached = []
    for w in instrs[:6]:
        (sem,) = [x for x in w.signals if x.endswith("_w")]
        signalled[sem] = signalled.get(sem, 0) + 1
        reached.append((sem, signalled[sem]))
    waited = {}
    for i, r in enumerate(instrs[6:]):
        waited.update({sem: max(n, waited.get(sem, 0)) for sem, n in r.waits})
        sem, n = reached[i]
        assert waited.get(sem, 0) >= n, (i, r.waits, reached[i])
