"""Element types: NKI names, their .nk spelling and the NumPy type of host arrays."""
import numpy as np

try:
    import ml_dtypes
    _NP_BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bf16 host arrays then need ml_dtypes; everything else works
    ml_dtypes = None
    _NP_BF16 = None


class _OneObject:
    """One object per type: a copy is the type itself, so `dtype in (nl.bfloat16, ...)` and `is` hold for
    dtypes that went through dataclasses.asdict or pytest's parameter copies (the NKI Library's
    attention_tkg test config), as they do for NKI's own dtypes."""

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return _named, (self.name,)


def _named(name):
    """The dtype object of an NKI dtype name (unpickling)."""
    return BY_NAME.get(name) or UNSUPPORTED[name]


class DType(_OneObject):
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
        return self.np_dtype is None or self.np_dtype.kind not in "iub"


def _ml(name):
    """An ml_dtypes type (fp8) as a NumPy dtype; None without ml_dtypes."""
    return np.dtype(getattr(ml_dtypes, name)) if ml_dtypes is not None else None


# The simulator's element types (sim/base/dtype.h's table: its text names, sizes and NKI names).
float32 = DType("float32", "f32", 4, np.dtype(np.float32))
bfloat16 = DType("bfloat16", "bf16", 2, _NP_BF16)
float16 = DType("float16", "f16", 2, np.dtype(np.float16))
int32 = DType("int32", "i32", 4, np.dtype(np.int32))
int8 = DType("int8", "i8", 1, np.dtype(np.int8))
uint8 = DType("uint8", "u8", 1, np.dtype(np.uint8))
int16 = DType("int16", "i16", 2, np.dtype(np.int16))
uint16 = DType("uint16", "u16", 2, np.dtype(np.uint16))
uint32 = DType("uint32", "u32", 4, np.dtype(np.uint32))
bool_ = DType("bool", "bool", 1, np.dtype(np.bool_))
float8_e4m3 = DType("float8_e4m3", "f8e4m3", 1, _ml("float8_e4m3"))
float8_e5m2 = DType("float8_e5m2", "f8e5m2", 1, _ml("float8_e5m2"))
float8_e4m3fn = DType("float8_e4m3fn", "f8e4m3fn", 1, _ml("float8_e4m3fn"))
ALL = (float32, bfloat16, float16, int32, int8, uint8, int16, uint16, uint32, bool_, float8_e4m3, float8_e5m2,
       float8_e4m3fn)
BY_NAME = dict({d.name: d for d in ALL}, bool_=bool_)  # the nl.* names (nl.bool and nl.bool_)
_SUPPORTED = ", ".join(d.name for d in ALL)


def finfo(dtype):
    """nl.finfo: NumPy's finfo / iinfo of an NKI dtype (min, max, eps, ...)."""
    npd = of(dtype).np_dtype
    if npd.kind in "iu":
        return np.iinfo(npd)
    return (ml_dtypes.finfo if ml_dtypes else np.finfo)(npd)  # NumPy's finfo does not know bfloat16


class UnsupportedDType(_OneObject):
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
UNSUPPORTED_SIZES = {"tfloat32": 4, "float8_e4m3fn_x4": 4, "float8_e5m2_x4": 4, "float4_e2m1fn_x4": 2, "int64": 8,
                     "uint64": 8, "float64": 8}
UNSUPPORTED = {name: UnsupportedDType(name, size) for name, size in UNSUPPORTED_SIZES.items()}


def of(x, what="dtype"):
    """The DType for an NKI dtype, a NumPy dtype/type, or None."""
    from .errors import fail, Unsupported
    if x is None or isinstance(x, DType):
        return x
    if isinstance(x, UnsupportedDType):
        fail("%s %r is not supported by the simulator (supported: %s)" % (what, x, _SUPPORTED), Unsupported)
    if isinstance(x, str) and x in BY_NAME:
        return BY_NAME[x]
    try:
        npd = np.dtype(x)
    except TypeError:
        fail("%s %r is not a dtype (use one of nl.%s)" % (what, x, _SUPPORTED.replace(", ", ", nl.")))
    for d in ALL:
        if d.np_dtype is not None and d.np_dtype == npd:
            return d
    fail("%s %s is not supported by the simulator (supported: %s)" % (what, npd, _SUPPORTED), Unsupported)


def result_type(*dtypes):
    """NKI's default output type of an element-wise op: fp32 if any input is fp32, else the first input's."""
    ds = [d for d in dtypes if d is not None]
    return float32 if any(d is float32 for d in ds) else ds[0]
