"""An NKI kernel for the sweep tests, with its argument builder (the spec's
`args:`): y = 2 * x over [256, 512] f32, two 128-row tiles."""
import numpy as np

import nsim.nki as nki
import nsim.nki.language as nl


@nki.jit
def scale(x):
    y = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(x.shape[0] // 128):
        tile = nl.load(x[i * 128:(i + 1) * 128, :])
        nl.store(y[i * 128:(i + 1) * 128, :], value=nl.multiply(tile, 2.0))
    return y


def build_args():
    return (np.random.default_rng(5).standard_normal((256, 512)).astype(np.float32),)
