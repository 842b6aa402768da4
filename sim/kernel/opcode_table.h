#pragma once
// The one table of opcode facts. Every other list of opcodes is expanded from
// it: the Opcode enum and the text-format names (kernel.h/.cc, so the parser
// and printer), the engines each may run on (the parser's check), the
// profiler's opcode names (the registry in sim/isa fills OpcodeSpec's name,
// hw_name and engines from here), and the table the Python frontend asks
// `_nsim_core.opcode_table()` for. sim/isa adds cost and semantics per opcode
// (SIM_REGISTER_OPCODE); sim/kernel/syntax.cc adds the attributes.
// //sim/isa:opcode_table_test fails if an opcode is missing from any of them.
//
// Adding an opcode: a row here, its attributes in syntax.cc, its model in a
// sim/isa/*.cc file, and its row in docs/kernel-format.md.
//
// X(Enumerator, text name, profiler (Neuron tools) name, engines allowed, positional access-pattern operands)
// Engines: kAnyEngineMask or an | of kTensorMask, kVectorMask, kScalarMask, kGpSimdMask, kSyncMask.
#define NSIM_OPCODE_TABLE(X)                                                                                   \
  /* any engine: trigger a DMA transfer (asynchronous to the engine); dst, src */                             \
  X(kDmaCopy, "dma_copy", "DMA_DIRECT2D", kAnyEngineMask, 2)                                                   \
  /* psum[M,N] (+)= stationary[K,M]^T @ moving[K,N]; dst, stationary, moving */                               \
  X(kMatmul, "matmul", "MATMUL", kTensorMask, 3)                                                               \
  /* dst[F,P] = in[P,F]: TensorE into PSUM, or VectorE within one 32x32 block (its reshape bank) */          \
  X(kTranspose, "transpose", "TRANSPOSE", kTensorMask | kVectorMask, 2)                                                      \
  /* dst = src0 <alu0> src1 */                                                                                 \
  X(kTensorTensor, "tensor_tensor", "TENSOR_TENSOR", kVectorMask, 3)                                           \
  /* dst = (src0 <alu0> scalar0) <alu1> scalar1 */                                                             \
  X(kTensorScalar, "tensor_scalar", "TENSOR_SCALAR_PTR", kVectorMask | kGpSimdMask, 2)                         \
  /* dst[P, ...] = reduce over the innermost free dim of src0 */                                               \
  X(kTensorReduce, "tensor_reduce", "REDUCE", kVectorMask, 2)                                                  \
  /* dst = src0 (with cast) */                                                                                 \
  X(kTensorCopy, "tensor_copy", "TENSOR_COPY", kVectorMask | kGpSimdMask | kScalarMask, 2)                     \
  /* dst = scalar0 */                                                                                          \
  X(kMemset, "memset", "MEMSET", kVectorMask | kGpSimdMask, 1)                                                 \
  /* dst = func(src0 * scale + bias); optional accumulate into acc */                                          \
  X(kActivation, "activation", "ACTIVATE", kScalarMask, 2)                                                     \
  /* dst[p, i] = base + p * partition_step + i * free_step */                                                  \
  X(kIota, "iota", "IOTA", kGpSimdMask, 1)                                                                     \
  /* dst[0 or every partition, F] = reduce over partitions of src0 */                                          \
  X(kPartitionReduce, "partition_reduce", "PARTITION_REDUCE", kGpSimdMask, 2)                                  \
  /* any engine: wait for semaphores only */                                                                   \
  X(kWait, "wait", "EVENT_SEMAPHORE", kAnyEngineMask, 0)                                                       \
  /* dst[:, i] = (src0[:, i] <alu0> dst[:, i-1]) <alu1> src1[:, i], scalar0 for i = 0; dst, data0, data1 */    \
  X(kTensorTensorScan, "tensor_tensor_scan", "TENSOR_TENSOR_SCAN", kVectorMask, 3)                            \
  /* dst = (src0 <alu0> scalar0) <alu1> src1; dst, src0, src1 */                                              \
  X(kScalarTensorTensor, "scalar_tensor_tensor", "SCALAR_TENSOR_TENSOR", kVectorMask | kGpSimdMask, 3)       \
  /* dst = src0 <alu0> scalar0; acc[P, 1] = reduce(dst) along the free dims */                                 \
  X(kTensorScalarReduce, "tensor_scalar_reduce", "TENSOR_SCALAR_REDUCE", kVectorMask | kGpSimdMask, 2)       \
  /* dst[i] = src0[i] where predicate src1[i] != 0 (else dst keeps its value); dst, src0, src1 */             \
  X(kTensorCopyPredicated, "tensor_copy_predicated", "TENSOR_COPY_PREDICATED", kVectorMask | kGpSimdMask, 3) \
  /* dst[P, 8] = the 8 largest of each partition's src0 row, largest first */                                 \
  X(kMax8, "max8", "MAX8", kVectorMask, 2)                                                                     \
  /* dst[P, 8] = the index in data's row of each of vals' 8 values (first match); dst, data, vals */          \
  X(kFindIndex8, "nc_find_index8", "FIND_INDEX8", kVectorMask, 3)                                             \
  /* dst[p, i] = src0[p, i] if (base + p * partition_step + i * free_step) <alu0> 0, else scalar0 */         \
  X(kAffineSelect, "affine_select", "AFFINE_SELECT", kGpSimdMask, 2)                                          \
  /* dst[P, 6] = (count, mean, variance * count) of src0's even, then odd elements per partition */           \
  X(kBnStats, "bn_stats", "BN_STATS", kVectorMask, 2)                                                          \
  /* dst[P, 2] = (mean, variance) aggregated from src0's (count, mean, variance * count) triples */           \
  X(kBnAggr, "bn_aggr", "BN_AGGR", kVectorMask, 2)                                                             \
  /* dst = data with the first match of each of vals' 8 values per partition replaced by scalar0; idx= */      \
  /* (optional) gets the matched positions; dst, data, vals */                                                 \
  X(kMatchReplace8, "nc_match_replace8", "MATCH_REPLACE8", kVectorMask, 3)                                     \
  /* dst[p, 0:T+1] = src's non-zero positions + base, padding scalar0, then their count, for p = 0, 16, ... */ \
  /* (each GpSimd core's 0-th partition; other partitions keep their values); dst, src */                      \
  X(kNonzeroWithCount, "nonzero_with_count", "NONZERO_WITH_COUNT", kGpSimdMask, 2)                             \
  /* dst[p, j] = data[p, indices[p, j]] (data's free dims flattened); dst, data, indices */                    \
  X(kNGather, "nc_n_gather", "NC_N_GATHER", kGpSimdMask, 3)                                                    \
  /* per 32-partition quadrant q, dst[32q + j] = src[32q + base + j * free_step] for the partition_step j */     \
  /* from scalar0 on (the affine shuffle masks; other dst partitions keep their values); dst, src */                           \
  X(kStreamShuffle, "nc_stream_shuffle", "STREAM_SHUFFLE", kVectorMask, 2)                                   \
  /* dst[p, i] = src0[p, i] where (i + base) <alu0> scalar0[p] and (i + base) <alu1> scalar1[p], else */       \
  /* free_step (the fill value); acc= (optional) gets each row's reduce; dst, on_true */                       \
  X(kRangeSelect, "range_select", "RANGE_SELECT", kVectorMask, 2)                                             \
  /* any engine: a DMA transfer dst = src, src given in the transposed order (the DGE transposes, */           \
  /* at a fraction of the copy's throughput: dma.transpose_from_hbm / _from_sbuf); dst, src */                 \
  X(kDmaTranspose, "dma_transpose", "DMA_TRANSPOSE", kAnyEngineMask, 2)                                       \
  /* any engine, LNC=2: this program's src goes to its pair peer's dst by this core's DMA while the peer's */  \
  /* src comes into dst; the Nth of one engine stream pairs with the peer's Nth there (model/core_link.h) */  \
  X(kSendRecv, "sendrecv", "SEND_RECV", kAnyEngineMask, 2)                                                     \
  /* any engine: waits until the pair peer's matching core_barrier (remote + local semaphore, core_link.h) */ \
  X(kCoreBarrier, "core_barrier", "CORE_BARRIER", kAnyEngineMask, 0)                                           \
  /* any engine: a DMA transfer dst = src whose HBM side's address is read from INDEX (SBUF int32/uint32) */    \
  /* when it runs: one value moves the whole access by value x stride= (scalar_offset), N values (N = the */    \
  /* HBM side's first dim) move row i by INDEX[i] x stride= (vector_offset: gather, scatter=true for dst); */    \
  /* a row reaching outside its tensor is an error, or skipped with skip=true; dst, src, index */               \
  X(kDmaIndirect, "dma_indirect", "DMA_INDIRECT", kAnyEngineMask, 3)
