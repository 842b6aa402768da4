"""Re-rolling (python/nsim/nki/reroll.py): nl loops stay `loop` blocks in the .nk text when every
iteration reads the same but for affine integers, and the text means exactly the same kernel."""
import re

import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.language as nl
from nsim.nki.reroll import Line, reroll


def _entries(texts_by_iteration, loop=1, outer=()):
    return [(Line(text), outer + ((loop, k),)) for k, texts in enumerate(texts_by_iteration) for text in texts]


def _texts(lines):
    return [line.text for line in lines]


def test_affine_integers_roll():
    its = [["sync: dma_copy t.ap(0, [[512, 128], [1, 512]]), a.ap(%d, [[8192, 128], [1, 512]]) queue=0 "
            "wait=s>=%d signal=s" % (512 * k, k)] for k in range(6)]
    assert _texts(reroll(_entries(its))) == [
        "loop i in 0:6 {",
        "sync: dma_copy t.ap(0, [[512, 128], [1, 512]]), a.ap(512*i, [[8192, 128], [1, 512]]) queue=0 wait=s>=i "
        "signal=s",
        "}"]


def test_rotating_buffers_roll_in_groups_after_the_first_round():
    def it(k):
        waits = " wait=r%d>=%d" % (k % 2, k // 2) if k >= 2 else ""
        return ["vector: memset t%d[%d:%d] value=0%s" % (k % 2, k, k + 1, waits)]
    assert _texts(reroll(_entries([it(k) for k in range(9)]))) == [
        "vector: memset t0[0:1] value=0", "vector: memset t1[1:2] value=0",
        "loop i in 0:3 {",
        "vector: memset t0[2*i+2:2*i+3] value=0 wait=r0>=i+1",
        "vector: memset t1[2*i+3:2*i+4] value=0 wait=r1>=i+1",
        "}",
        "vector: memset t0[8:9] value=0 wait=r0>=4"]


@pytest.mark.parametrize("its", [
    [["vector: memset t[%d] value=0" % (v * v)] for v in range(8)],         # not affine
    [["vector: memset t[0] value=%d" % v] for v in range(4)],               # an immediate: no expression there
    [["vector: memset t.ap(0, [[1, %d]]) value=0" % (v + 1)] for v in range(4)],  # a size: no expression there
    [["vector: memset t[0] value=0"], ["vector: memset t[0] value=0"] * 2, ["vector: memset t[0] value=0"]],
])
def test_what_differs_otherwise_stays_unrolled(its):
    assert _texts(reroll(_entries(its))) == [text for texts in its for text in texts]


def test_nested_loops_roll_inside_out_and_parenthesise():
    entries = []
    for k in range(3):
        for m in range(4):
            entries.append((Line("sync: dma_copy t, x[%d - %d] queue=1" % (100 + 10 * k + m, k)), ((1, k), (2, m))))
    assert _texts(reroll(entries)) == [
        "loop i in 0:3 {", "loop j in 0:4 {", "sync: dma_copy t, x[j+(10*i+100) - i] queue=1", "}", "}"]


def _kernels():
    @nki.jit
    def stream_add(a, b):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        for i in nl.affine_range(a.shape[0] // 128):
            for j in nl.affine_range(a.shape[1] // 128):
                ta = nl.load(a[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128])
                tb = nl.load(b[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128])
                nl.store(out[i * 128:(i + 1) * 128, j * 128:(j + 1) * 128], value=nl.add(ta, tb))
        return out
    return stream_add


def test_rolled_text_runs_exactly_as_unrolled(rng):
    a = rng.standard_normal((512, 2048)).astype(np.float32)
    b = rng.standard_normal((512, 2048)).astype(np.float32)
    kernel = _kernels()
    rolled = nki.benchmark(nki.jit(kernel.fn), a, b)
    unrolled = nki.benchmark(nki.jit(kernel.fn, passes={"reroll": False}), a, b)
    loops = lambda text: re.findall(r"^ *loop [a-z] in 0:\d+ {$", text.split("semaphore")[-1], re.M)  # noqa: E731
    assert loops(rolled.kernel_text) and not loops(unrolled.kernel_text)
    assert rolled.device_time_ns == unrolled.device_time_ns
    np.testing.assert_array_equal(rolled.outputs, unrolled.outputs)
    np.testing.assert_array_equal(rolled.outputs, a + b)
    lines = lambda text: len([ln for ln in text.splitlines() if ": " in ln.split("#")[0]])  # noqa: E731
    # 4 x 16 iterations of 4 instructions; rolled, 4 buffers x 4 instructions three times: the first round
    # over the buffers (it waits for none to be freed), the inner loop, and the outer loop's body.
    assert (lines(rolled.kernel_text), lines(unrolled.kernel_text)) == (48, 256)
