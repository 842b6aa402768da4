"""The frontend rows of the validation suite: which NKI source (in this folder) and which arguments
reproduce each case of validation/suite.cc. Measured values, methods and sources stay in the suite
(one table per fact); this table only says how to call the kernel. Cases the frontend cannot express
from their published source are listed in NOT_EXPRESSIBLE with the reason."""
import ml_dtypes
import numpy as np

import cs149_vector_add as cs149
import matmul_tutorial as mm

F32, BF16 = np.float32, ml_dtypes.bfloat16
MATMUL = {"lhsT": ((8192, 4096), BF16), "rhs": ((8192, 8192), BF16)}


def _vectors(n):
    return {"a_vec": ((n,), F32), "b_vec": ((n,), F32)}


# case name (validation/suite.cc) -> (kernel, {argument: (shape, dtype)}, keyword arguments)
CASES = {
    "cs149_tiled_row_chunk_1": (cs149.vector_add_tiled, _vectors(25600), {"row_chunk": 1}),
    "cs149_tiled_row_chunk_128": (cs149.vector_add_tiled, _vectors(25600), {"row_chunk": 128}),
    "cs149_stream_free_dim_2": (cs149.vector_add_stream, _vectors(25600), {"free_dim": 2}),
    "cs149_stream_free_dim_200": (cs149.vector_add_stream, _vectors(25600), {"free_dim": 200}),
    "cs149_stream_free_dim_2000": (cs149.vector_add_stream, _vectors(256000), {"free_dim": 2000}),
    "cs149_stream_free_dim_1000": (cs149.vector_add_stream, _vectors(256000), {"free_dim": 1000}),
    "cs149_modulo_alloc_4_buffers": (cs149.vector_add_direct_allocation, _vectors(256000), {"free_dim": 1000}),
    "matmul_tiled": (mm.matmul_tiled, MATMUL, {}),
    "matmul_hoist_loads": (mm.matmul_hoist_load, MATMUL, {}),
    "matmul_block_free_dims": (mm.matmul_block_free_dimension, MATMUL, {}),
    "matmul_fully_optimised": (mm.matmul_fully_optimized, MATMUL, {}),
}

NOT_EXPRESSIBLE = {
    "matmul_tiled_later_compiler": "the same source as matmul_tiled, built by a later neuronx-cc whose decisions "
                                   "are not published; the frontend models one compiler",
    "nrtpy_trivial_add": "a host-runtime (nrtpy) sample, not an NKI kernel",
    "dma_32KiB_one_engine_store": "a single-instruction profiler point, not a kernel",
    "dma_4B_data_time": "a single-instruction profiler point, not a kernel",
    "act_table_load": "a single-instruction profiler point, not a kernel",
    "gpsimd_small_instruction": "a single-instruction profiler point, not a kernel",
    "act_dependent_duration": "a single-instruction profiler point, not a kernel",
    "act_dependent_interval": "a single-instruction profiler point, not a kernel",
}


def arguments(case):
    kernel, arrays, kwargs = CASES[case]
    args = {name: np.zeros(shape, dtype=dtype) for name, (shape, dtype) in arrays.items()}
    args.update(kwargs)
    return kernel, args
