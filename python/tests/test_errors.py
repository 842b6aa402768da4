"""Kernel-author mistakes are Python exceptions naming the kernel source line."""
import numpy as np
import pytest

import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl

X = np.zeros((128, 64), np.float32)


def line_of(fn, offset):
    return "test_errors.py:%d: " % (fn.__code__.co_firstlineno + offset)


def expect(kernel, offset, message, cls=nki.KernelError, *args):
    with pytest.raises(cls) as info:
        nki.simulate_kernel(kernel, *(args or (X,)))
    text = str(info.value)
    assert text.startswith(line_of(kernel.fn, offset)), text
    assert message in text, text
    assert info.value.lineno == kernel.fn.__code__.co_firstlineno + offset


def test_shape_mismatch():
    @nki.jit
    def k(a):
        t = nl.load(a)
        u = nl.load(a[:, 0:32])
        return nl.add(t, u)
    expect(k, 4, "nl.add: shapes (128, 64) and (128, 32) do not match")


def test_partition_dim_over_128():
    @nki.jit
    def k(a):
        return nl.load(a)
    expect(k, 2, "partition dim 256 (dim 0 of (256, 4)) exceeds the 128 partitions", nki.KernelError,
           np.zeros((256, 4), np.float32))


def test_tile_partition_dim_over_128():
    @nki.jit
    def k(a):
        return nl.ndarray((129, 4), dtype=nl.float32, buffer=nl.sbuf)
    expect(k, 2, "partition dim 129 of tile (129, 4) exceeds the 128 partitions")


def test_read_before_write():
    @nki.jit
    def k(a):
        t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
        return nl.exp(t)
    expect(k, 3, "tile from line %d is read before anything was written to it" % (k.fn.__code__.co_firstlineno + 2))


def test_out_of_bounds_slice():
    @nki.jit
    def k(a):
        return nl.load(a[0:128, 60:70])
    expect(k, 2, "the access reaches past tensor 'a' ([128, 4] of the view's [128, 10] exist): slice within the "
                 "tensor or give the call a mask=")


def test_hbm_operand_to_compute():
    @nki.jit
    def k(a):
        return nl.exp(a)
    expect(k, 2, "exp: a is in HBM; engines read SBUF/PSUM tiles: nl.load it first")


def test_store_shape_mismatch():
    @nki.jit
    def k(a):
        out = nl.ndarray((128, 32), dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(out, value=nl.load(a))
    expect(k, 3, "nl.store: destination shape (128, 32) does not match the tile's (128, 64)")


@pytest.mark.parametrize("call,name", [(lambda t: nl.exp2(t), "nl.exp2"), (lambda t: nl.tan(t), "nl.tan"),
                                      (lambda t: nisa.local_gather(t), "nisa.local_gather")])
def test_unsupported_api(call, name):
    @nki.jit
    def k(a):
        call(nl.load(a))
    with pytest.raises(nki.Unsupported, match=name):
        nki.simulate_kernel(k, X)
    with pytest.raises(NotImplementedError):  # Unsupported is also a NotImplementedError
        nki.simulate_kernel(k, X)


def test_simulator_rejection_names_the_kernel_line():
    @nki.jit
    def k(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        nisa.dma_copy(dst=out, src=t, queue=99)
        return out
    expect(k, 4, "queue 99 out of range")


def test_unsupported_dtype():
    @nki.jit
    def k(a):
        return a
    with pytest.raises(nki.Unsupported, match="float64 is not supported"):
        nki.simulate_kernel(k, np.zeros((4, 4)))


def test_outside_a_kernel():
    with pytest.raises(nki.KernelError, match="inside an @nki.jit kernel"):
        nl.zeros((4, 4), nl.float32)


def test_kernel_that_does_nothing():
    @nki.jit
    def k(a):
        return None
    with pytest.raises(nki.KernelError, match="does nothing"):
        nki.simulate_kernel(k, X)


def test_unsupported_nl_dtype():
    @nki.jit
    def k(a):
        return nl.ndarray((4, 4), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)
    expect(k, 2, "nl.float8_e4m3fn_x4 is not supported by the simulator", nki.Unsupported)


def test_scalar_array_argument():
    @nki.jit
    def k(a, s):
        return a
    with pytest.raises(nki.KernelError, match="argument 's' of kernel 'k' has shape \\(\\)"):
        nki.simulate_kernel(k, X, np.array(2.0, np.float32))
