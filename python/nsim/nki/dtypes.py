"""Element types: NKI names, their .nk spelling and the NumPy type of host arrays."""
import numpy as np

try:
    import ml_dtypes
    _NP_BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bf16 host arrays then need ml_dtypes; everything else works
    ml_dtypes = None
    _NP_BF16 = None


class DType:
    """An element type the model has: its NKI name, its .nk spelling, bytes and NumPy type."""

    def __init__(self, name, nk, size, np_dtype):
        self.name, self.nk, self.size, self.np_dtype = name, nk, size, np_dtype

    def __repr__(self):
        return "nl." + self.name

    def __str__(self):  # NKI's dtypes print as their names; kernels compare str(dtype)
        return self.name

    @property
    def dtype(self):
        """The NumPy dtype, so host code may write np.zeros(shape, dtype=nl.bfloat16) (Beta 1 tests do)."""
        return self.np_dtype

    @property
    def min(self):
        """The most negative finite value (Beta 1's nl.fp32.min)."""
        return finfo(self).min

    @property
    def max(self):
        return finfo(self).max

    @property
    def is_float(self):
        return self.nk != "i32"


float32 = DType("float32", "f32", 4, np.dtype(np.float32))
bfloat16 = DType("bfloat16", "bf16", 2, _NP_BF16)
float16 = DType("float16", "f16", 2, np.dtype(np.float16))
int32 = DType("int32", "i32", 4, np.dtype(np.int32))
ALL = (float32, bfloat16, float16, int32)


def finfo(dtype):
    """nl.finfo: NumPy's finfo / iinfo of an NKI dtype (min, max, eps, ...)."""
    npd = of(dtype).np_dtype
    if npd.kind in "iu":
        return np.iinfo(npd)
    return (ml_dtypes.finfo if ml_dtypes else np.finfo)(npd)  # NumPy's finfo does not know bfloat16


class UnsupportedDType:
    """An NKI dtype the simulator has no element type for (fp8, tf32, 8-bit ints): the name
    exists (kernels build tables of them at import), using it raises nki.Unsupported."""

    def __init__(self, name, size):
        self.name, self.size = name, size

    def __repr__(self):
        return "nl." + self.name

    def __str__(self):
        return self.name

    @property
    def dtype(self):
        """The NumPy dtype of the same name where NumPy has one (host-side arrays only)."""
        try:
            return np.dtype(self.name.rstrip("_"))
        except TypeError:
            from .errors import Unsupported
            raise Unsupported("nl.%s has no NumPy dtype" % self.name) from None


# name -> bytes per element (the x4 types pack four values): the NKI dtypes the model lacks (issue 24).
UNSUPPORTED_SIZES = {"tfloat32": 4, "float8_e4m3": 1, "float8_e5m2": 1, "float8_e4m3fn": 1, "float8_e4m3fn_x4": 4,
                     "float8_e5m2_x4": 4, "float4_e2m1fn_x4": 2, "uint8": 1, "int8": 1, "uint16": 2, "int16": 2,
                     "uint32": 4, "bool": 1, "bool_": 1, "int64": 8, "uint64": 8, "float64": 8}
UNSUPPORTED = {name: UnsupportedDType(name, size) for name, size in UNSUPPORTED_SIZES.items()}


def of(x, what="dtype"):
    """The DType for an NKI dtype, a NumPy dtype/type, or None."""
    from .errors import fail, Unsupported
    if x is None or isinstance(x, DType):
        return x
    if isinstance(x, UnsupportedDType):
        fail("%s %r is not supported by the simulator (supported: float32, bfloat16, float16, int32)" % (what, x),
             Unsupported)
    try:
        npd = np.dtype(x)
    except TypeError:
        fail("%s %r is not a dtype (use nl.float32, nl.bfloat16, nl.float16 or nl.int32)" % (what, x))
    for d in ALL:
        if d.np_dtype is not None and d.np_dtype == npd:
            return d
    fail("%s %s is not supported by the simulator (supported: float32, bfloat16, float16, int32)" % (what, npd),
         Unsupported)


def result_type(*dtypes):
    """NKI's default output type of an element-wise op: fp32 if any input is fp32, else the first input's."""
    ds = [d for d in dtypes if d is not None]
    return float32 if any(d is float32 for d in ds) else ds[0]
