"""RMSNorm in NKI 0.3+ style: square-and-sum on ScalarE (activation with reduce_res), rsqrt of the
mean, and the weight broadcast to every partition by the DMA (a stride-0 .ap() over rows)."""
import nki
import nki.isa as nisa
import nki.language as nl
import numpy as np

P = 128


@nki.jit
def rmsnorm(x, w, eps=1e-6):
    n, d = x.shape
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    w_sb = nl.ndarray((P, d), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=w_sb, src=w.ap(pattern=[[0, P], [1, d]], offset=0))
    for i in nl.affine_range(n // P):
        t = nl.ndarray((P, d), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=t, src=x[nl.ds(i * P, P), :])
        sq = nl.ndarray((P, d), dtype=nl.float32, buffer=nl.sbuf)
        ss = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        nisa.activation(dst=sq, op=nl.square, data=t, reduce_op=nl.add, reduce_res=ss,
                        reduce_cmd=nisa.reduce_cmd.reset_reduce)
        nisa.tensor_scalar(dst=ss, data=ss, op0=nl.multiply, operand0=1.0 / d, op1=nl.add, operand1=eps)
        nisa.activation(dst=ss, op=nl.rsqrt, data=ss)
        nisa.tensor_scalar(dst=t, data=t, op0=nl.multiply, operand0=ss)
        nisa.tensor_tensor(dst=t, data1=t, data2=w_sb, op=nl.multiply)
        nisa.dma_copy(dst=out[nl.ds(i * P, P), :], src=t)
    return out


def reference(x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((256, 512)).astype(np.float32), rng.standard_normal((512,)).astype(np.float32)
    print("rmsnorm: max abs error vs NumPy %.3g" % np.max(np.abs(rmsnorm(x, w) - reference(x, w))))
