"""Writes a tiled GEMM C[M, N] = A[K, M]^T @ B[K, N] as an nsim kernel (.nk,
docs/kernel-format.md) for the SCALE-Sim comparison (compare.sh).

    python3 benchmarks/scalesim/gemm_nk.py 1024 > /tmp/gemm_1024.nk

One square size S (a multiple of 512): the whole of A and B is loaded into
SBUF as K-tiles of 128 partitions (one DMA per tile); for each 128-row block
m of C, TensorE accumulates the K-tiles into a PSUM block [128, S] in
512-wide column chunks (the moving-tensor limit), VectorE casts it to bf16
and the Sync engine stores it. PSUM and the bf16 staging tile are double
buffered across m, with semaphores guarding their reuse.
"""
import sys

PARTITIONS = 128  # contraction tile (SBUF partitions) and stationary width
MOVING = 512      # widest moving tile of one matmul (nl.tile_size.gemm_moving_fmax)


def gemm_kernel(size):
    if size <= 0 or size % MOVING != 0:
        raise ValueError(f"size {size}: expected a positive multiple of {MOVING}")
    kt = size // PARTITIONS  # K-tiles
    mt = size // PARTITIONS  # 128-row blocks of C
    nt = size // MOVING      # 512-column chunks of C
    out = [f"# C[{size}, {size}] = A[{size}, {size}]^T @ B[{size}, {size}], bf16 in, f32 PSUM, bf16 out",
           f"kernel gemm_{size}",
           f"tensor a hbm bf16 [{size}, {size}] init=randn(seed=1)  # [K, M]",
           f"tensor b hbm bf16 [{size}, {size}] init=randn(seed=2)  # [K, N]",
           f"tensor c hbm bf16 [{size}, {size}]"]
    for k in range(kt):
        out.append(f"tensor a{k} sbuf bf16 [{PARTITIONS}, {size}]")
        out.append(f"tensor b{k} sbuf bf16 [{PARTITIONS}, {size}]")
    for i in range(2):
        out.append(f"tensor p{i} psum f32 [{PARTITIONS}, {size}]")
        out.append(f"tensor c{i} sbuf bf16 [{PARTITIONS}, {size}]")
    out += ["semaphore loaded", "semaphore multiplied", "semaphore evacuated", "semaphore stored"]
    for k in range(kt):
        rows = f"{k * PARTITIONS}:{(k + 1) * PARTITIONS}"
        out.append(f"sync: dma_copy a{k}, a[{rows}] queue={(2 * k) % 16} signal=loaded")
        out.append(f"sync: dma_copy b{k}, b[{rows}] queue={(2 * k + 1) % 16} signal=loaded")
    for m in range(mt):
        buf = m % 2
        cols_m = f"{m * PARTITIONS}:{(m + 1) * PARTITIONS}"
        for n in range(nt):
            cols_n = f"{n * MOVING}:{(n + 1) * MOVING}"
            for k in range(kt):
                attrs = []
                if m == 0 and n == 0 and k == 0:
                    attrs.append(f"wait=loaded>={2 * kt}")
                if m >= 2 and n == 0 and k == 0:
                    attrs.append(f"wait=evacuated>={m - 1}")  # PSUM block of m-2 copied out
                if k > 0:
                    attrs.append("accumulate=true")
                if n == nt - 1 and k == kt - 1:
                    attrs.append("signal=multiplied")
                out.append(f"tensor: matmul p{buf}[:, {cols_n}], a{k}[:, {cols_m}], b{k}[:, {cols_n}] "
                           + " ".join(attrs))
        reuse = f" wait=stored>={m - 1}" if m >= 2 else ""  # staging tile of m-2 stored
        out.append(f"vector: tensor_copy c{buf}, p{buf} wait=multiplied>={m + 1}{reuse} signal=evacuated")
        out.append(f"sync: dma_copy c[{cols_m}], c{buf} queue={m % 16} wait=evacuated>={m + 1} signal=stored")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: gemm_nk.py SIZE")
    sys.stdout.write(gemm_kernel(int(sys.argv[1])))
