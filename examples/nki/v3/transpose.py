"""2-D transpose in NKI 0.3+ style: 128 x 128 blocks through TensorE into a bf16 PSUM tile, copied out."""
import nki
import nki.isa as nisa
import nki.language as nl
import numpy as np

P = 128


@nki.jit
def transpose(x):
    n, m = x.shape
    out = nl.ndarray((m, n), dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(n // P):
        for j in nl.affine_range(m // P):
            t = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=t, src=x[nl.ds(i * P, P), nl.ds(j * P, P)])
            tp = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.psum)
            nisa.nc_transpose(dst=tp, data=t)
            nisa.tensor_copy(dst=t, src=tp)
            nisa.dma_copy(dst=out[nl.ds(j * P, P), nl.ds(i * P, P)], src=t)
    return out


if __name__ == "__main__":
    import ml_dtypes
    x = np.random.default_rng(0).standard_normal((256, 384)).astype(ml_dtypes.bfloat16)
    assert np.array_equal(transpose(x).astype(np.float32), x.astype(np.float32).T)
    print("transpose: matches NumPy")
