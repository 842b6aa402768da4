#pragma once
// Tiling of an iteration space onto the NeuronCore's partitions: the last
// dim is the free (column) dim, every other dim is a row dim; a tile is a
// box of rows (at most `max_rows`, one per partition) by a chunk of columns.
//
// Row dims that every operand walks as one (stride[i] == stride[i+1] *
// size[i+1] for all of them) are merged first, so contiguous tensors of any
// rank tile as [rows, cols]. A tile then fixes the row dims before
// `chunk_dim`, takes `chunk` consecutive indices of `chunk_dim` and all of
// the row dims after it: a box, which one DMA access pattern describes for
// any operand, whatever its strides.
//
//   TiledSpace s = TileSpace({4, 512}, {{512, 1}}, /*max_rows=*/128, /*max_cols=*/512, true);
//   // one tile: rows 0..3, cols 0..511
//   AccessPattern ap = HbmTileAp(k, x, s, s.tiles[0], {512, 1}, 0, /*column=*/false);
#include <cstdint>
#include <vector>

#include "sim/kernel/kernel.h"

namespace nsim {
namespace neuron {
namespace codegen {

struct RowDim {
  int64_t size = 1;
  int innermost = 0;  // logical dim whose stride the merged dim walks with
};

struct Tile {
  int index = 0;               // position in TiledSpace::tiles
  std::vector<int64_t> outer;  // indices of row dims [0, chunk_dim)
  int64_t chunk_start = 0, chunk_len = 0;
  int64_t c0 = 0, ncols = 0;
  int64_t partitions = 0;      // chunk_len * inner
  int64_t flat_row = 0;        // first row in the flattened (row-major) row index
  int col_chunk = 0;           // which column chunk (0 .. col_chunks-1)
};

struct TiledSpace {
  std::vector<int64_t> sizes;  // the logical space; a 0-dim space is [1]
  std::vector<RowDim> rows;    // merged row dims, outermost first (at least one)
  int chunk_dim = 0;
  int64_t chunk = 1;           // indices of rows[chunk_dim] per tile
  int64_t inner = 1;           // product of rows after chunk_dim
  int64_t cols = 1;
  int64_t tile_cols = 1;
  int col_chunks = 1;
  int64_t max_partitions = 1;  // of any tile
  std::vector<Tile> tiles;     // row tiles in row-major order, column chunks innermost

  // (flat_row, partitions) of each row tile, in order: equal lists mean two
  // stages place the same rows on the same partitions.
  std::vector<std::pair<int64_t, int64_t>> RowBlocks() const;
};

// `operand_strides` are the strides (elements) of each operand over the
// logical space (0 along broadcast dims). `merge_rows`: merge row dims where
// all operands allow (false keeps each dim, e.g. for matmul batch loops).
// `split_last_row`: chunk only the innermost row dim (each tile lies in one
// index of every outer dim, as matmul tiles of one batch must).
TiledSpace TileSpace(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& operand_strides,
                     int64_t max_rows, int64_t max_cols, bool merge_rows, bool split_last_row = false);

// Strides of a tensor of `sizes`/`strides` over a space it broadcasts to
// (right-aligned; size-1 and missing dims get stride 0).
std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& space);

// The elements of `tile` of an HBM tensor whose strides over the space are
// `strides`, starting at element `offset`, in tile order (partition-major).
// `column`: only the tile's first column ([partitions, 1]).
AccessPattern HbmTileAp(const Kernel& k, int tensor, const TiledSpace& s, const Tile& tile,
                        const std::vector<int64_t>& strides, int64_t offset, bool column);

// [0:partitions, c0:c0+ncols] of an on-chip tensor [P, F].
AccessPattern OnChipAp(const Kernel& k, int tensor, int64_t partitions, int64_t c0, int64_t ncols);

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
