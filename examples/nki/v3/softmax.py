"""Row softmax in NKI 0.3+ style: max on VectorE, exp with the negated max as bias and the row sums
accumulated by the same ScalarE instruction (activation_reduce), then a reciprocal and a scale."""
import nki
import nki.isa as nisa
import nki.language as nl
import numpy as np

P = 128


@nki.jit
def softmax(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    n, d = x.shape
    for i in nl.affine_range(n // P):
        t = nl.ndarray((P, d), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[nl.ds(i * P, P), :])
        neg_max = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.tensor_reduce(dst=neg_max, op=nl.maximum, data=t, axis=1)
        nisa.tensor_scalar(dst=neg_max, data=neg_max, op0=nl.multiply, operand0=-1.0)
        e = nl.ndarray((P, d), dtype=nl.float32, buffer=nl.sbuf)
        sums = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation_reduce(dst=e, op=nl.exp, data=t, bias=neg_max, reduce_op=nl.add, reduce_res=sums)
        nisa.reciprocal(dst=sums, data=sums)
        nisa.tensor_scalar(dst=e, data=e, op0=nl.multiply, operand0=sums)
        nisa.dma_copy(dst=out[nl.ds(i * P, P), :], src=e)
    return out


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal((256, 300)).astype(np.float32)
    print("softmax: max abs error vs NumPy %.3g" % np.max(np.abs(softmax(x) - reference(x))))
