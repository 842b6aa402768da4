"""`neuron_dtypes` (AWS's dtype package, not on PyPI) as far as the NKI Library's tests use it
outside MX: static_cast(array, dtype) is a NumPy cast (ml_dtypes for bf16 and fp8); the packed x4
MX types raise NotImplementedError (nsim models no MX); is_float_type, sizeinbytes, finfo and
bfloat16 as NumPy/ml_dtypes give them. Used by tools/nki_library/run.py only."""
import ml_dtypes
import numpy as np

from nsim.nki import dtypes as _dtypes


def static_cast(array, dtype):
    try:
        return np.asarray(array).astype(_np(dtype))
    except TypeError:
        raise NotImplementedError("neuron_dtypes.static_cast to %s (a packed MX type) is not modelled" % dtype)


def _np(dtype):
    d = _dtypes.BY_NAME.get(str(dtype))
    return d.np_dtype if d is not None else np.dtype(dtype)


def is_float_type(dtype):
    return _np(dtype).kind == "f" or "float" in _np(dtype).name


def sizeinbytes(dtype):
    return _np(dtype).itemsize


def finfo(dtype):
    return ml_dtypes.finfo(_np(dtype))


bfloat16 = ml_dtypes.bfloat16
float8_e4m3fn_x4, float8_e5m2_x4, float4_e2m1fn_x4 = "float8_e4m3fn_x4", "float8_e5m2_x4", "float4_e2m1fn_x4"
