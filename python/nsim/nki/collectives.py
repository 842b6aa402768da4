"""nki.collectives: names exist; using one raises nki.Unsupported (collectives are issue 24's model work)."""
from .errors import Unsupported, fail


class ReplicaGroup:
    """The replica groups of a collective (kept; the collectives themselves are not modelled)."""

    def __init__(self, groups=None):
        self.groups = groups


def _unsupported(name):
    def fn(*args, **kwargs):
        fail("nki.collectives.%s is not supported by the simulator (no collectives modelled)" % name, Unsupported)
    fn.__name__ = name
    fn.nsim_unsupported = True
    return fn


_NAMES = ("all_gather", "all_reduce", "reduce_scatter", "all_to_all", "collective_permute",
         "collective_permute_implicit", "collective_permute_implicit_current_processing_rank_id", "rank_id",
         "send", "recv", "barrier")
globals().update({n: _unsupported(n) for n in _NAMES})
