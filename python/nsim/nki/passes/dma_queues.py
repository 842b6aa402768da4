"""DMA queues: which engine triggers each DMA the kernel did not place itself, and on which queue.

The Neuron compiler gives the kernel's input and output transfers queues of their own engines: the
CS149 profile (hardware-measurements.md section 1) shows both input loads on the Sync engine's queue
(qSyncIO0) and the output store on GpSimd's queue (qGpSimdIO0); a NEFF's queues belong to the engine
that triggers them (trainium-architecture.md, def.json queue sets with an `owner` engine). So:
- loads (HBM -> on-chip) are triggered by Sync on its queue LOAD_QUEUE;
- stores (on-chip -> HBM) by GpSimd on its queue STORE_QUEUE;
- other DMAs (SBUF <-> SBUF/PSUM, HBM -> HBM) by Sync on its queue 0.
nisa.dma_copy(engine=/queue=) is honoured exactly. With the pass off, the frontend's own placement
stays: loads from Sync, stores from the engine that produced the tile, queues rotating over
nki.jit(dma_queues=N)."""

LOAD_QUEUE = 0    # qSyncIO0
STORE_QUEUE = 0   # qGpSimdIO0


def run(pipeline, instrs):
    if not pipeline.on("dma_queues"):
        return
    for ins in instrs:
        if not ins.is_dma or ins.placed_by_kernel:
            continue
        dst, src = ins.operands[0], ins.operands[1]
        if dst.decl.on_chip and not src.decl.on_chip:
            engine, queue, what = "sync", LOAD_QUEUE, "load: Sync's input queue (qSyncIO0)"
        elif src.decl.on_chip and not dst.decl.on_chip:
            engine, queue, what = "gpsimd", STORE_QUEUE, "store: GpSimd's output queue (qGpSimdIO0)"
        else:
            engine, queue, what = "sync", 0, "on-chip or HBM-to-HBM copy: Sync's queue 0"
        ins.engine = engine
        ins.attrs = [(k, v) for k, v in ins.attrs if k != "queue"] + [("queue", queue)]
        pipeline.decide("dma_queues", "dma %s <- %s" % (dst.decl.name, src.decl.name),
                        "%s queue %d" % (engine, queue), what, ins.where)
