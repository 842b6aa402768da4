"""nki.typing / neuronxcc.nki.typing: the annotation names kernels use on their parameters.
Annotations are not checked (NKI's are hints to its tracer too)."""
from .views import View

tensor = mutable_tensor = View


class scalar(float):  # noqa: N801
    """The annotation of a scalar kernel parameter."""
