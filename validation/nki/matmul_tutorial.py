"""The NKI matmul tutorial's kernels (hardware-measurements.md section 3), written by the team from
the published description: C[M,N] = lhsT[K,M]^T rhs[K,N], bf16 in and out, TensorE tiles 128x128
stationary and 128x512 moving, fp32 accumulation in PSUM. Tiles are declared with nl.ndarray /
nl.zeros and filled by slice assignment, as in the tutorial."""
import nsim.nki as nki
import nsim.nki.isa as nisa
import nsim.nki.language as nl

TILE_M, TILE_K, TILE_N = 128, 128, 512


@nki.jit
def matmul_tiled(lhsT, rhs):
    k_dim, m_dim = lhsT.shape
    n_dim = rhs.shape[1]
    result = nl.ndarray((m_dim, n_dim), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(m_dim // TILE_M):
        for n in nl.affine_range(n_dim // TILE_N):
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(k_dim // TILE_K):
                lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                lhsT_tile[...] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                rhs_tile[...] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                res_psum += nl.matmul(lhsT_tile, rhs_tile, transpose_x=True)
            res_sb = nl.copy(res_psum, dtype=result.dtype)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=res_sb)
    return result


@nki.jit
def matmul_hoist_load(lhsT, rhs):
    k_dim, m_dim = lhsT.shape
    n_dim = rhs.shape[1]
    result = nl.ndarray((m_dim, n_dim), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    tiles_k = k_dim // TILE_K
    for m in nl.affine_range(m_dim // TILE_M):
        lhsT_tiles = nl.ndarray((tiles_k, nl.par_dim(TILE_K), TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(tiles_k):
            lhsT_tiles[k] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
        for n in nl.affine_range(n_dim // TILE_N):
            rhs_tiles = nl.ndarray((tiles_k, nl.par_dim(TILE_K), TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(tiles_k):
                rhs_tiles[k] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
            res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(tiles_k):
                res_psum += nl.matmul(lhsT_tiles[k], rhs_tiles[k], transpose_x=True)
            res_sb = nl.copy(res_psum, dtype=result.dtype)
            nl.store(result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], value=res_sb)
    return result


@nki.jit
def matmul_block_free_dimension(lhsT, rhs, tiles_in_block_m=2, tiles_in_block_n=2):
    k_dim, m_dim = lhsT.shape
    n_dim = rhs.shape[1]
    result = nl.ndarray((m_dim, n_dim), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    block_m, block_n = TILE_M * tiles_in_block_m, TILE_N * tiles_in_block_n
    tiles_k = k_dim // TILE_K
    for m in nl.affine_range(m_dim // block_m):
        lhsT_tiles = nl.ndarray((tiles_k, nl.par_dim(TILE_K), block_m), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(tiles_k):
            lhsT_tiles[k] = nl.load(lhsT[k * TILE_K:(k + 1) * TILE_K, m * block_m:(m + 1) * block_m])
        for n in nl.affine_range(n_dim // block_n):
            rhs_tiles = nl.ndarray((tiles_k, nl.par_dim(TILE_K), block_n), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(tiles_k):
                rhs_tiles[k] = nl.load(rhs[k * TILE_K:(k + 1) * TILE_K, n * block_n:(n + 1) * block_n])
            for bm in nl.affine_range(tiles_in_block_m):
                for bn in nl.affine_range(tiles_in_block_n):
                    res_psum = nl.zeros((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(tiles_k):
                        res_psum += nl.matmul(lhsT_tiles[k, :, bm * TILE_M:(bm + 1) * TILE_M],
                                              rhs_tiles[k, :, bn * TILE_N:(bn + 1) * TILE_N], transpose_x=True)
                    res_sb = nl.copy(res_psum, dtype=result.dtype)
                    row, col = m * block_m + bm * TILE_M, n * block_n + bn * TILE_N
                    nl.store(result[row:row + TILE_M, col:col + TILE_N], value=res_sb)
    return result


@nki.jit
def matmul_fully_optimized(lhsT, rhs, tiles_in_block_m=16, tiles_in_block_n=2, tiles_in_block_k=8):
    k_dim, m_dim = lhsT.shape
    n_dim = rhs.shape[1]
    result = nl.ndarray((m_dim, n_dim), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    block_m, block_n, block_k = TILE_M * tiles_in_block_m, TILE_N * tiles_in_block_n, TILE_K * tiles_in_block_k
    blocks_m, blocks_n, blocks_k = m_dim // block_m, n_dim // block_n, k_dim // block_k
    for n in nl.affine_range(blocks_n):
        result_tiles = nl.zeros((blocks_m, tiles_in_block_m, tiles_in_block_n, nl.par_dim(TILE_M), TILE_N),
                                dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.sequential_range(blocks_k):
            rhs_tiles = nl.ndarray((tiles_in_block_k, nl.par_dim(TILE_K), block_n), dtype=rhs.dtype, buffer=nl.sbuf)
            for bk in nl.affine_range(tiles_in_block_k):
                row = (tiles_in_block_k * k + bk) * TILE_K
                rhs_tiles[bk] = nl.load(rhs[row:row + TILE_K, block_n * n:block_n * (n + 1)])
            for m in nl.affine_range(blocks_m):
                lhsT_tiles = nl.ndarray((tiles_in_block_k, nl.par_dim(TILE_K), block_m), dtype=lhsT.dtype,
                                        buffer=nl.sbuf)
                for bk in nl.affine_range(tiles_in_block_k):
                    row = (tiles_in_block_k * k + bk) * TILE_K
                    lhsT_tiles[bk] = nl.load(lhsT[row:row + TILE_K, block_m * m:block_m * (m + 1)])
                for bn in nl.affine_range(tiles_in_block_n):
                    for bm in nl.affine_range(tiles_in_block_m):
                        res_tile = nl.zeros((TILE_M, TILE_N), dtype=nl.float32, buffer=nl.psum)
                        for bk in nl.affine_range(tiles_in_block_k):
                            res_tile[...] += nisa.nc_matmul(lhsT_tiles[bk, :, bm * TILE_M:(bm + 1) * TILE_M],
                                                            rhs_tiles[bk, :, bn * TILE_N:(bn + 1) * TILE_N])
                        result_tiles[m, bm, bn] = nl.add(result_tiles[m, bm, bn], res_tile)
        for m in nl.affine_range(blocks_m):
            for bm in nl.affine_range(tiles_in_block_m):
                for bn in nl.affine_range(tiles_in_block_n):
                    row, col = block_m * m + bm * TILE_M, block_n * n + bn * TILE_N
                    nl.store(result[row:row + TILE_M, col:col + TILE_N], value=result_tiles[m, bm, bn])
    return result
