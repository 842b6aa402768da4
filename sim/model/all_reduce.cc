#include "sim/model/all_reduce.h"

#include <string>

#include "sim/base/error.h"
#include "sim/kernel/parser.h"
#include "sim/model/loaded_kernel.h"

namespace nsim {
namespace {

constexpr int64_t kPartitions = 128;

struct Ring {
  int n;              // cores
  int64_t free;       // F: free elements per partition of one chunk
  std::string dtype;  // kernel-text name
};

std::string Chunk(const std::string& buffer, int64_t chunk) {
  return buffer + "[" + std::to_string(chunk * kPartitions) + ":" + std::to_string((chunk + 1) * kPartitions) + "]";
}

// The kernel core `p` runs in one ring step: it pulls chunk `c` of core
// p-1's buffer; reduce-scatter adds its own chunk, all-gather keeps the pull.
std::string StepKernel(const Ring& r, int p, int64_t c, bool reduce) {
  const std::string rows = "[" + std::to_string(r.n * kPartitions) + ", " + std::to_string(r.free) + "]";
  const std::string tile = "[" + std::to_string(kPartitions) + ", " + std::to_string(r.free) + "]";
  std::string k = std::string("kernel ring_") + (reduce ? "reduce" : "gather") + "\n";
  for (int i = 0; i < r.n; ++i) k += "tensor b" + std::to_string(i) + " hbm " + r.dtype + " " + rows + "\n";
  k += "tensor pulled sbuf " + r.dtype + " " + tile + "\ntensor own sbuf " + r.dtype + " " + tile + "\n";
  k += "semaphore loaded\nsemaphore summed\n";
  const std::string prev = "b" + std::to_string((p + r.n - 1) % r.n), mine = "b" + std::to_string(p);
  k += "sync: dma_copy pulled, " + Chunk(prev, c) + " queue=0 signal=loaded\n";
  if (!reduce) return k + "sync: dma_copy " + Chunk(mine, c) + ", pulled wait=loaded>=1\n";
  k += "sync: dma_copy own, " + Chunk(mine, c) + " queue=1 signal=loaded\n";
  k += "vector: tensor_tensor own, own, pulled op=add wait=loaded>=2 signal=summed\n";
  return k + "sync: dma_copy " + Chunk(mine, c) + ", own wait=summed>=1\n";
}

}  // namespace

void CheckRingShape(int n, int max_cores, int64_t elements) {
  if (n < 2 || n > max_cores) {
    throw SimError("all-reduce over " + std::to_string(n) + " cores: needs 2.." + std::to_string(max_cores) +
                   " buffers, one per core of the chip");
  }
  if (elements <= 0 || elements % (kPartitions * n) != 0) {
    throw SimError("all-reduce of " + std::to_string(elements) + " elements over " + std::to_string(n) +
                   " cores: the count must be a positive multiple of 128 x cores (" +
                   std::to_string(kPartitions * n) + ")");
  }
}

std::string RingStepKernel(int n, int64_t elements, DType dtype, int step, int p) {
  const Ring ring{n, elements / (kPartitions * n), DTypeName(dtype)};
  const bool reduce = step < n - 1;
  const int s = reduce ? step : step - (n - 1);
  // Reduce-scatter step s: core p adds chunk p-1-s; after N-1 steps it
  // holds the full sum of chunk p+1. All-gather step s passes chunk p-s on.
  const int64_t c = reduce ? (p - 1 - s + 2 * n) % n : (p - s + n) % n;
  return StepKernel(ring, p, c, reduce);
}

AllReduceResult RingAllReduce(Chip& chip, const std::vector<uint64_t>& buffers, int64_t elements, DType dtype) {
  const int n = static_cast<int>(buffers.size());
  CheckRingShape(n, chip.cores(), elements);
  std::map<std::string, uint64_t> bindings;
  for (int i = 0; i < n; ++i) bindings["b" + std::to_string(i)] = buffers[i];

  AllReduceResult out;
  out.chunk_bytes = elements / n * DTypeSize(dtype);
  for (int step = 0; step < RingSteps(n); ++step) {
    std::vector<std::shared_ptr<const LoadedKernel>> programs;
    for (int p = 0; p < n; ++p) {
      programs.push_back(chip.Load(ParseKernel(RingStepKernel(n, elements, dtype, step, p), "<all-reduce>")));
    }
    out.steps.push_back(chip.Launch(programs, bindings));
    out.device_time += out.steps.back().device_time;
  }
  out.start = out.steps.front().start;
  return out;
}

}  // namespace nsim
