"""CS149 assignment 4 vector add (hardware-measurements.md section 1), written by the team from the
published description: the structure, tiles and calls of the course's kernels, ours in wording.

vector_add_tiled declares its tiles with nl.ndarray and fills them by slice assignment;
vector_add_stream reshapes the vectors to (tiles, 128, FREE_DIM) and binds each iteration's tiles
to what nl.load returns (the nl.ndarray lines before the loads are dead, as in the course code);
vector_add_direct_allocation places the tiles itself with a modulo allocation over 4 buffers."""
import nsim.nki as nki
import nsim.nki.compiler as ncc
import nsim.nki.language as nl

PARTITION_DIM = 128


@nki.jit
def vector_add_tiled(a_vec, b_vec, row_chunk=1):
    out = nl.ndarray(shape=a_vec.shape, dtype=a_vec.dtype, buffer=nl.hbm)
    n = a_vec.shape[0]
    for m in nl.affine_range(n // row_chunk):
        a_tile = nl.ndarray((row_chunk, 1), dtype=a_vec.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((row_chunk, 1), dtype=b_vec.dtype, buffer=nl.sbuf)
        a_tile[...] = nl.load(a_vec[m * row_chunk:(m + 1) * row_chunk])
        b_tile[...] = nl.load(b_vec[m * row_chunk:(m + 1) * row_chunk])
        res = nl.add(a_tile, b_tile)
        nl.store(out[m * row_chunk:(m + 1) * row_chunk], value=res)
    return out


@nki.jit
def vector_add_stream(a_vec, b_vec, free_dim=2):
    n = a_vec.shape[0]
    tile_m = PARTITION_DIM * free_dim
    a_re = a_vec.reshape((n // tile_m, PARTITION_DIM, free_dim))
    b_re = b_vec.reshape((n // tile_m, PARTITION_DIM, free_dim))
    out = nl.ndarray(shape=a_re.shape, dtype=a_re.dtype, buffer=nl.hbm)
    for m in nl.affine_range(n // tile_m):
        a_tile = nl.ndarray((PARTITION_DIM, free_dim), dtype=a_vec.dtype, buffer=nl.sbuf)
        b_tile = nl.ndarray((PARTITION_DIM, free_dim), dtype=b_vec.dtype, buffer=nl.sbuf)
        a_tile = nl.load(a_re[m])
        b_tile = nl.load(b_re[m])
        res = nl.add(a_tile, b_tile)
        nl.store(out[m], value=res)
    return out


@nki.jit
def vector_add_direct_allocation(a_vec, b_vec, free_dim=1000, buffers=4):
    n = a_vec.shape[0]
    tile_m = PARTITION_DIM * free_dim
    a_re = a_vec.reshape((n // tile_m, PARTITION_DIM, free_dim))
    b_re = b_vec.reshape((n // tile_m, PARTITION_DIM, free_dim))
    out = nl.ndarray(shape=a_re.shape, dtype=a_re.dtype, buffer=nl.hbm)
    tile_bytes = free_dim * 4
    for m in nl.affine_range(n // tile_m):
        a_tile = nl.ndarray((PARTITION_DIM, free_dim), dtype=a_vec.dtype,
                            buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(buffers,)))
        b_tile = nl.ndarray((PARTITION_DIM, free_dim), dtype=b_vec.dtype,
                            buffer=ncc.sbuf.mod_alloc(base_addr=buffers * tile_bytes, num_free_tiles=(buffers,)))
        res = nl.ndarray((PARTITION_DIM, free_dim), dtype=a_vec.dtype,
                         buffer=ncc.sbuf.mod_alloc(base_addr=2 * buffers * tile_bytes, num_free_tiles=(buffers,)))
        a_tile[...] = nl.load(a_re[m])
        b_tile[...] = nl.load(b_re[m])
        res[...] = nl.add(a_tile, b_tile)
        nl.store(out[m], value=res)
    return out
