#include "backend/neuron/codegen/tiling.h"

#include <algorithm>

#include "sim/base/error.h"
#include "sim/kernel/builder.h"

namespace nsim {
namespace neuron {
namespace codegen {
namespace {

int64_t StrideAt(const std::vector<int64_t>& strides, int dim) { return dim < 0 ? 0 : strides[dim]; }

bool AllMerge(const std::vector<std::vector<int64_t>>& ops, int outer, int inner, int64_t inner_size) {
  for (const auto& st : ops) {
    if (StrideAt(st, outer) != StrideAt(st, inner) * inner_size) return false;
  }
  return true;
}

// `keep_last`: the innermost row dim stays a dim of its own even of size 1.
std::vector<RowDim> RowDims(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& ops,
                            bool merge, bool keep_last) {
  std::vector<RowDim> rows;
  const int last_row = static_cast<int>(sizes.size()) - 2;
  for (int d = 0; d <= last_row; ++d) {
    if (sizes[d] == 1 && !(keep_last && d == last_row)) continue;
    // rows.back() is outer to d: merging keeps row-major order when the
    // outer stride is exactly d's stride times d's size for every operand.
    if (merge && !rows.empty() && AllMerge(ops, rows.back().innermost, d, sizes[d])) {
      rows.back().size *= sizes[d];
      rows.back().innermost = d;
    } else {
      rows.push_back({sizes[d], d});
    }
  }
  if (rows.empty()) rows.push_back({1, -1});
  return rows;
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> TiledSpace::RowBlocks() const {
  std::vector<std::pair<int64_t, int64_t>> blocks;
  for (const Tile& t : tiles) {
    if (t.col_chunk == 0) blocks.push_back({t.flat_row, t.partitions});
  }
  return blocks;
}

TiledSpace TileSpace(const std::vector<int64_t>& sizes, const std::vector<std::vector<int64_t>>& operand_strides,
                     int64_t max_rows, int64_t max_cols, bool merge_rows, bool split_last_row) {
  TiledSpace s;
  s.sizes = sizes.empty() ? std::vector<int64_t>{1} : sizes;
  std::vector<std::vector<int64_t>> ops = operand_strides;
  for (auto& st : ops) if (st.empty()) st = {0};
  for (int64_t d : s.sizes) {
    if (d <= 0) throw SimError("codegen: cannot tile an empty space");
  }
  s.rows = RowDims(s.sizes, ops, merge_rows, split_last_row);
  s.cols = s.sizes.back();
  // The outermost chunk dim whose inner rows still fit a tile, so tiles are
  // as tall as the partitions allow.
  s.chunk_dim = static_cast<int>(s.rows.size()) - 1;
  s.inner = 1;
  while (!split_last_row && s.chunk_dim > 0 && s.inner * s.rows[s.chunk_dim].size <= max_rows) {
    s.inner *= s.rows[s.chunk_dim].size;
    --s.chunk_dim;
  }
  s.chunk = std::max<int64_t>(1, std::min(s.rows[s.chunk_dim].size, max_rows / s.inner));
  if (s.chunk * s.inner > max_rows) {
    throw SimError("codegen: row dims of " + std::to_string(s.inner) + " rows do not fit " +
                   std::to_string(max_rows) + " partitions");
  }
  s.tile_cols = std::max<int64_t>(1, std::min(s.cols, max_cols));
  s.col_chunks = static_cast<int>((s.cols + s.tile_cols - 1) / s.tile_cols);

  std::vector<int64_t> row_pitch(s.rows.size(), 1);  // flattened rows per index step
  for (int i = static_cast<int>(s.rows.size()) - 2; i >= 0; --i) row_pitch[i] = row_pitch[i + 1] * s.rows[i + 1].size;
  std::vector<int64_t> outer(s.chunk_dim, 0);
  while (true) {
    for (int64_t c = 0; c < s.rows[s.chunk_dim].size; c += s.chunk) {
      for (int cc = 0; cc < s.col_chunks; ++cc) {
        Tile t;
        t.index = static_cast<int>(s.tiles.size());
        t.outer = outer;
        t.chunk_start = c;
        t.chunk_len = std::min(s.chunk, s.rows[s.chunk_dim].size - c);
        t.c0 = cc * s.tile_cols;
        t.ncols = std::min(s.tile_cols, s.cols - t.c0);
        t.partitions = t.chunk_len * s.inner;
        t.col_chunk = cc;
        t.flat_row = c * row_pitch[s.chunk_dim];
        for (int i = 0; i < s.chunk_dim; ++i) t.flat_row += outer[i] * row_pitch[i];
        s.max_partitions = std::max(s.max_partitions, t.partitions);
        s.tiles.push_back(std::move(t));
      }
    }
    int d = s.chunk_dim - 1;
    for (; d >= 0; --d) {
      if (++outer[d] < s.rows[d].size) break;
      outer[d] = 0;
    }
    if (d < 0) break;
  }
  return s;
}

std::vector<int64_t> BroadcastStrides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                                      const std::vector<int64_t>& space) {
  std::vector<int64_t> out(space.size(), 0);
  const size_t lead = space.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] != 1) out[lead + i] = strides[i];
  }
  return out;
}

AccessPattern HbmTileAp(const Kernel& k, int tensor, const TiledSpace& s, const Tile& tile,
                        const std::vector<int64_t>& strides, int64_t offset, bool column) {
  const std::vector<int64_t> st = strides.empty() ? std::vector<int64_t>{0} : strides;
  auto rs = [&](int j) { return StrideAt(st, s.rows[j].innermost); };
  const int64_t cs = st.back();
  for (int i = 0; i < s.chunk_dim; ++i) offset += tile.outer[i] * rs(i);
  offset += tile.chunk_start * rs(s.chunk_dim) + tile.c0 * cs;
  std::vector<ApDim> dims{{rs(s.chunk_dim), tile.chunk_len}};
  for (int j = s.chunk_dim + 1; j < static_cast<int>(s.rows.size()); ++j) dims.push_back({rs(j), s.rows[j].size});
  dims.push_back({cs, column ? 1 : tile.ncols});
  return Ap(k, tensor, offset, std::move(dims));
}

AccessPattern OnChipAp(const Kernel& k, int tensor, int64_t partitions, int64_t c0, int64_t ncols) {
  return Slice(k, tensor, {SliceSpec::Range(0, partitions), SliceSpec::Range(c0, c0 + ncols)});
}

}  // namespace codegen
}  // namespace neuron
}  // namespace nsim
