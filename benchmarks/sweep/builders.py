"""Argument builders of the sweep benchmark's NKI kernels (vector_dma_sbuf.yaml):
the example kernels' own shapes, seeded inputs."""
import ml_dtypes
import numpy as np


def rmsnorm_args():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((1024, 512)).astype(ml_dtypes.bfloat16),
            rng.standard_normal((512,)).astype(ml_dtypes.bfloat16))


def matmul_args():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((512, 512)).astype(ml_dtypes.bfloat16),
            rng.standard_normal((512, 1024)).astype(ml_dtypes.bfloat16))
