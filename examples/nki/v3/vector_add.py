"""Vector add in NKI 0.3+ style (`import nki`, destination-passing nisa calls), unchanged NKI code:
run it with `python3 -m nsim.nki examples/nki/v3/vector_add.py` (or nsim.nki.install() first).
vector_add_lnc shards the rows over the programs of kernel[2] (LNC=2) and branches on the program
id for the odd tail, as the NKI Library's kernels do."""
import nki
import nki.isa as nisa
import nki.language as nl
import numpy as np

P = 128


@nki.jit
def vector_add(a, b):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // P):
        ta = nl.ndarray((P, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray((P, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ta, src=a[nl.ds(i * P, P), :])
        nisa.dma_copy(dst=tb, src=b[nl.ds(i * P, P), :])
        nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
        nisa.dma_copy(dst=out[nl.ds(i * P, P), :], src=ta)
    return out


@nki.jit
def vector_add_lnc(a, b):
    """Rows split over the programs; program 0 also takes the rows that do not split evenly."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    n_prgs = nl.num_programs(axes=0) if nl.program_ndim() else 1
    prg = nl.program_id(axis=0) if nl.program_ndim() else 0
    tiles = a.shape[0] // P
    mine = list(range(prg, tiles, n_prgs))
    for i in mine:
        ta = nl.ndarray((P, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        tb = nl.ndarray((P, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=ta, src=a[i * P:(i + 1) * P, :])
        nisa.dma_copy(dst=tb, src=b[i * P:(i + 1) * P, :])
        nisa.tensor_tensor(dst=ta, data1=ta, data2=tb, op=nl.add)
        nisa.dma_copy(dst=out[i * P:(i + 1) * P, :], src=ta)
    return out


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((3 * P, 512)).astype(np.float32) for _ in range(2))
    for kernel in (vector_add, vector_add_lnc, vector_add_lnc[2]):
        assert np.array_equal(nki.simulate(kernel)(a, b), a + b)
    print("vector_add: matches NumPy")
