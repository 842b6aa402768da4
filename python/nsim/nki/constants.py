"""nki.isa.constants: the option enums of NKI 0.3+ instructions. Engines are the frontend's
engine names, so `engine=nisa.engine.vector` and `engine=nisa.vector_engine` mean the same."""
import enum


class engine:  # noqa: N801 (NKI's name)
    tensor, vector, scalar, gpsimd, sync = "tensor", "vector", "scalar", "gpsimd", "sync"
    unknown = None


class dge_mode(enum.Enum):  # noqa: N801
    """DMA descriptor generation: hardware DGE, software (GpSimd) DGE, none (static descriptors).
    The model has one DMA path; the mode is accepted and does not change the transfer (a runtime-addressed
    DMA costs its issuing sequencer dma.dge whatever the mode)."""
    unknown, none, swdge, hwdge = 0, 1, 2, 3


class oob_mode(enum.Enum):  # noqa: N801
    """What a DMA does with a runtime (indirect) address outside its tensor: error (at the kernel's line) or
    skip that row. Static access patterns are checked when traced."""
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
