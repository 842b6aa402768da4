"""nki.compiler (Beta 1 `neuronxcc.nki.compiler`): allocation and compiler directives.

`ncc.sbuf.mod_alloc(base_addr=, num_free_tiles=)` / `ncc.psum.mod_alloc(...)` given as an
nl.ndarray buffer place the tile exactly: its byte offset in each partition (SBUF) or its bank
(PSUM), rotating over num_free_tiles buffers. Decorators that steer the NKI compiler's passes are
recorded on the kernel (`Kernel.directives`) for a compiler model; they do not change the trace."""
from .errors import Unsupported, fail


class Allocation:
    """A buffer with explicit placement: nl.ndarray(..., buffer=ncc.sbuf.mod_alloc(base_addr=...))."""

    def __init__(self, space, base_addr, num_free_tiles, base_partition=0, callback=None):
        self.space, self.base_addr, self.base_partition = space, base_addr, base_partition
        self.callback = callback
        self.num_free_tiles = tuple(num_free_tiles) if isinstance(num_free_tiles, (tuple, list)) else (
            (num_free_tiles,) if num_free_tiles else ())

    def __repr__(self):
        return "ncc.%s.mod_alloc(base_addr=%r, num_free_tiles=%r)" % (self.space, self.base_addr, self.num_free_tiles)


class _Space:
    """ncc.sbuf / ncc.psum: explicit allocation in that memory."""

    def __init__(self, name):
        self.name = name

    def mod_alloc(self, base_addr=0, *, base_partition=0, base_bank=None, num_par_tiles=(), num_free_tiles=(),
                  num_bank_tiles=()):
        if num_par_tiles:
            fail("ncc.%s.mod_alloc(num_par_tiles=...): rotating over partitions is not modelled" % self.name,
                 Unsupported)
        return Allocation(self.name, base_addr if base_bank is None else ("bank", base_bank),
                          num_free_tiles or num_bank_tiles, base_partition)

    def alloc(self, func):
        """Beta 1's placement callback: func(block_index, pdim_size, fdim_size) gives each block of
        the tile its place, (start_partition, byte_addr) in SBUF or (bank, start_partition,
        byte_addr) in PSUM. Each block keeps its place across loop iterations (one buffer)."""
        if not callable(func):
            fail("ncc.%s.alloc(%r): give a function (block_index, pdim_size, fdim_size) -> address"
                 % (self.name, func))
        return Allocation(self.name, None, (), callback=func)

    def place_blocks(self, func, blocks, pdim_size, fdim_size):
        """Calls the user's callback for every block index; returns the places it gave."""
        want = 3 if self.name == "psum" else 2
        places = []
        for index in blocks:
            try:
                place = func(idx=index, pdim_size=pdim_size, fdim_size=fdim_size)  # by name, as NKI calls it
            except Exception as e:  # the user's callback: its error, at the ndarray line
                fail("ncc.%s.alloc callback failed for block %r: %s: %s"
                     % (self.name, index, type(e).__name__, e))
            if not (isinstance(place, tuple) and len(place) == want and all(isinstance(v, int) for v in place)):
                fail("ncc.%s.alloc callback returned %r for block %r; expected %d integers (%s)"
                     % (self.name, place, index, want,
                        "bank, start_partition, byte_addr" if want == 3 else "start_partition, byte_addr"))
            places.append(place)
        return places


sbuf, psum = _Space("sbuf"), _Space("psum")


def _directive(name):
    def decorator(fn=None, **options):
        def mark(f):
            directives = dict(getattr(f, "nki_directives", {}))
            directives[name] = options or True
            try:
                f.nki_directives = directives
            except AttributeError:  # a Kernel: it keeps its own copy
                pass
            return f
        return mark(fn) if callable(fn) else mark
    decorator.__name__ = name
    return decorator


skip_middle_end_transformations = _directive("skip_middle_end_transformations")
enable_stack_allocator = _directive("enable_stack_allocator")
force_auto_alloc = _directive("force_auto_alloc")


class _NoReorder:
    """`with ncc.no_reorder():` keeps the block's instructions in program order; traced
    instructions already issue in program order on each engine."""

    def __call__(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


no_reorder = _NoReorder()
