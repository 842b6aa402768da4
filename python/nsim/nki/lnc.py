"""nki.lnc (NKI 0.6+): data exchange and synchronisation between the two physical cores of an LNC=2
logical core, the names nki.isa's sendrecv / core_barrier moved to (nki.isa keeps them, with pipe_id).
Both are the chip model's sendrecv / core_barrier opcodes (sim/model/core_link.h)."""
from . import isa as _isa
from .errors import Unsupported, checked_calls, fail


def sendrecv(src, dst, send_to_rank, recv_from_rank, dma_engine=None, name=None, priority=None):
    """This program's src goes to its LNC=2 peer's dst while the peer's src comes into this dst (SBUF tiles
    of one shape and type), by DMA; the Nth of a program pairs with its peer's Nth. priority= (DMA quality of
    service, NeuronCore-v4) is accepted: the model has one DMA priority."""
    _isa.sendrecv(src=src, dst=dst, send_to_rank=send_to_rank, recv_from_rank=recv_from_rank,
                  dma_engine=dma_engine, name=name)


def core_barrier(data, cores, engine=None, name=None):
    """Both programs of an LNC=2 pair wait here until the other arrives (a remote semaphore write, then a
    local wait); writes to `data` before it complete first, reads after it wait for it."""
    _isa.core_barrier(data=data, cores=cores, engine=engine, name=name)


def sendrecv_compute(*args, **kwargs):
    """(src, dst, send_to_rank, recv_from_rank, reduce_op, name=None, priority=None)"""
    fail("nki.lnc.sendrecv_compute: the DMA engines' reduction is not modelled (dma_compute); use sendrecv and "
         "a tensor_tensor", Unsupported)


sendrecv_compute.nsim_unsupported = True
checked_calls(globals(), "nki.lnc")
