"""Writes chain.nk for the sweep tests: one DMA in, a chain of N VectorE
multiplies on one [128, 512] f32 tile, one DMA out. Long enough (N
instructions) that a point takes a noticeable fraction of a second, so a
test can act while a sweep is running."""


def chain_kernel(n):
    lines = ["kernel chain", "tensor x hbm f32 [128, 512] init=randn(seed=3)", "tensor y hbm f32 [128, 512]",
             "tensor t sbuf f32 [128, 512]", "semaphore loaded", "semaphore done",
             "sync: dma_copy t, x queue=0 signal=loaded"]
    for i in range(n):
        wait = " wait=loaded>=1" if i == 0 else ""
        signal = " signal=done" if i == n - 1 else ""
        lines.append("vector: tensor_scalar t, t op0=multiply scalar0=1.0001%s%s" % (wait, signal))
    lines.append("sync: dma_copy y, t wait=done>=1")
    return "\n".join(lines) + "\n"
