"""nki.isa.constants: the option enums of NKI 0.3+ instructions. Engines are the frontend's
engine names, so `engine=nisa.engine.vector` and `engine=nisa.vector_engine` mean the same."""
import enum


class engine:  # noqa: N801 (NKI's name)
    tensor, vector, scalar, gpsimd, sync = "tensor", "vector", "scalar", "gpsimd", "sync"
    unknown = None


class dge_mode(enum.Enum):  # noqa: N801
    """DMA descriptor generation: hardware DGE, software (GpSimd) DGE, none (static descriptors).
    The model has one DMA path; the mode is accepted and does not change the transfer."""
    unknown, none, swdge, hwdge = 0, 1, 2, 3


class oob_mode(enum.Enum):  # noqa: N801
    """What a DMA does with out-of-bounds elements of a runtime (indirect) access pattern. Static access
    patterns are checked when traced, so both modes mean the same here."""
    error, skip = 0, 1


class reduce_cmd(enum.Enum):  # noqa: N801
    """The accumulator command of nisa.activation's free-axis reduction."""
    idle, reset, reduce, reset_reduce = 0, 1, 2, 3


class dma_engine(enum.Enum):  # noqa: N801
    dma, gpsimd_dma = 0, 1


class matmul_perf_mode(enum.Enum):  # noqa: N801
    none, double_row, double_row_gen3 = 0, 1, 2


class nc_version(enum.IntEnum):  # noqa: N801
    """NeuronCore generations: v2 (trn1), v3 (trn2), v4 (trn3)."""
    gen2, gen3, gen4 = 2, 3, 4
