"""Buffer rule: how many physical buffers a tile allocated inside a loop rotates over (modulo
allocation), so that consecutive iterations can overlap.

The rule, learnt from the calibration set (hardware-measurements.md section 1, the CS149 ladder) and
stated once for every kernel:
- a tile an operation returns (nl.load, nl.add, nl.copy, ...) inside a loop gets RESULT_BUFFERS = 4
  buffers: the CS149 course notes state that the compiler's own allocation of the stream kernel,
  whose tiles are what nl.load returns, equals a modulo allocation over 4 tiles (and the kernel with
  that allocation written by hand measured the same, 29 us);
- a tile the kernel declares itself (nl.ndarray / nl.zeros / nl.full) and fills by slice assignment
  keeps DECLARED_BUFFERS = 1 buffer: it is one named tensor written in place every iteration, so an
  iteration's write waits for the previous iteration's readers. The ladder needs this: ROW_CHUNK=128
  (declared tiles, 200 iterations, 206 us) and FREE_DIM=2 (returned tiles, 100 iterations of the same
  DMA count, 53 us) differ 2.5x per iteration, which no per-DMA cost gives under one allocation;
- a PSUM tile the kernel declares in a loop (nl.zeros(..., buffer=nl.psum), the accumulator of a
  matmul group) rotates over PSUM_BUFFERS = 4 banks: an accumulation group ends when its result is
  copied out, and the allocator gives the next group another bank so TensorE does not wait for the
  copy (PSUM has 8 banks of 2 KiB per partition, one [128 x 512] fp32 tile each). The fully
  optimised matmul tutorial kernel (hardware-measurements.md section 3, 85 % of TensorE peak) needs
  this: with one bank every 8-matmul group waits for VectorE's add of the previous one (+61 %);
- num_buffers= (per tile or per kernel) and ncc.*.mod_alloc(num_free_tiles=) are honoured exactly;
- outside loops every tile has its own buffer;
- when SBUF or PSUM cannot hold the buffers, the largest rule-allocated sites drop to one buffer
  (allocation.shrink_plan), as the allocator trades pipelining for capacity.
With the pass off (passes={"buffer_rule": False} or disable_allocation_opt=True) every loop-local
tile without an explicit count gets one buffer: no multi-buffering."""

RESULT_BUFFERS = 4     # CS149 course notes: the stream kernel's allocation = modulo over 4 tiles
DECLARED_BUFFERS = 1   # a declared tile is written in place (the CS149 ladder, see above)
PSUM_BUFFERS = 4       # a declared PSUM accumulator rotates over banks (the fully optimised matmul, see above)


def buffers(pipeline, explicit, kernel_default, declared, in_loop, shrunk, space="sbuf"):
    """(buffers, why) for a new allocation site; 0 buffers: every tile its own (outside loops)."""
    if explicit:
        return explicit, "num_buffers=/mod_alloc given by the kernel"
    if not in_loop:
        return 0, "outside loops: every tile has its own buffer"
    if kernel_default:
        return kernel_default, "nki.jit(num_buffers=%d)" % kernel_default
    if not pipeline.on("buffer_rule"):
        return 1, "buffer_rule off (%s): no multi-buffering" % pipeline.why_off["buffer_rule"]
    if shrunk:
        return 1, "SBUF/PSUM cannot hold the rule's buffers: dropped to one (largest sites first)"
    if declared and space == "psum":
        return PSUM_BUFFERS, "PSUM accumulation tile in a loop: rotates over %d banks" % PSUM_BUFFERS
    if declared:
        return DECLARED_BUFFERS, "declared with nl.ndarray/zeros in a loop: one tile written in place"
    return RESULT_BUFFERS, "returned by an operation in a loop: modulo allocation over 4 buffers"
