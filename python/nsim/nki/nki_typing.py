"""nki.typing / neuronxcc.nki.typing: the annotation names kernels use on their parameters.
Annotations are not checked (NKI's are hints to its tracer too).

Beta 1 scripts also pass `nt.tensor[[8192, 4096], nl.bfloat16]` to `nki.benchmark` in place of an
array (the matmul tutorial's timing runs): a TensorSpec, a tensor of that shape and type with no
values; a run given one is timing-only."""
import numpy as np

from . import dtypes
from .errors import KernelError
from .views import View


class TensorSpec:
    """A kernel argument known by shape and element type only."""

    def __init__(self, spec):
        shape, dtype = spec if isinstance(spec, tuple) and len(spec) == 2 else (None, None)
        try:
            self.shape = tuple(int(d) for d in shape)
        except (TypeError, ValueError):
            self.shape = ()
        if not self.shape or any(d <= 0 for d in self.shape):
            raise KernelError("nki.typing.tensor[shape, dtype]: shape must be a list of positive ints, got %r"
                              % (spec,))
        self.dtype = dtypes.of(dtype, "nki.typing.tensor dtype")

    def zeros(self):
        """A host array for the run: zero pages, never touched when the run is timing-only."""
        return np.zeros(self.shape, self.dtype.np_dtype)

    def __repr__(self):
        return "nt.tensor[%s, %r]" % (list(self.shape), self.dtype)


class _TensorType(type):
    def __getitem__(cls, spec):
        return TensorSpec(spec)

    def __instancecheck__(cls, obj):
        return isinstance(obj, View)


class tensor(metaclass=_TensorType):  # noqa: N801
    """`nt.tensor` as an annotation (every kernel tensor is one); `nt.tensor[shape, dtype]` a TensorSpec."""


mutable_tensor = tensor


class scalar(float):  # noqa: N801
    """The annotation of a scalar kernel parameter."""
