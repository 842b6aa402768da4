"""`neuron_dtypes` (AWS's dtype package, not on PyPI) as far as the NKI Library's tests use it
outside MX: static_cast(array, dtype) is a NumPy cast (ml_dtypes for bf16 and fp8); the packed x4
MX types raise NotImplementedError (nsim models no MX). Used by tools/nki_library/run.py only."""
import numpy as np

from nsim.nki import dtypes as _dtypes


def static_cast(array, dtype):
    d = _dtypes.BY_NAME.get(str(dtype))
    target = d.np_dtype if d is not None else dtype
    try:
        return np.asarray(array).astype(target)
    except TypeError:
        raise NotImplementedError("neuron_dtypes.static_cast to %s (a packed MX type) is not modelled" % dtype)


def __getattr__(name):  # the x4 MX dtype names: placeholders that static_cast refuses
    if name.startswith("__"):
        raise AttributeError(name)
    return name
