#include "backend/copy_registry.h"

#include <cstring>

#include "sim/base/error.h"

namespace nsim {
namespace at {
namespace {

void CopyHostToHost(const CopyRequest& r) {
  if (r.nbytes == 0) return;
  std::memmove(static_cast<char*>(r.dst_base) + r.dst_offset,
               static_cast<const char*>(r.src_base) + r.src_offset, r.nbytes);
}

// Meta tensors have no bytes; copying to or from them only checks shapes,
// which aten::copy_ has already done.
void CopyNothing(const CopyRequest&) {}

using Table = CopyFunction[kNumDeviceTypes][kNumDeviceTypes];

Table& Registry() {
  static Table table = {};
  static const bool init = [] {
    const DeviceType all[] = {kCPU, kNeuron, kMeta};
    for (DeviceType t : all) {
      table[static_cast<int>(t)][static_cast<int>(kMeta)] = &CopyNothing;
      table[static_cast<int>(kMeta)][static_cast<int>(t)] = &CopyNothing;
    }
    table[static_cast<int>(kCPU)][static_cast<int>(kCPU)] = &CopyHostToHost;
    return true;
  }();
  (void)init;
  return table;
}

}  // namespace

CopyFunction SetCopyFunction(DeviceType src, DeviceType dst, CopyFunction fn) {
  CopyFunction& slot = Registry()[static_cast<int>(src)][static_cast<int>(dst)];
  CopyFunction previous = slot;
  slot = fn;
  return previous;
}

CopyFunction GetCopyFunction(DeviceType src, DeviceType dst) {
  CopyFunction fn = Registry()[static_cast<int>(src)][static_cast<int>(dst)];
  if (fn == nullptr) {
    throw SimError(std::string("no copy function registered from ") + ToString(src) + " to " +
                   ToString(dst));
  }
  return fn;
}

}  // namespace at
}  // namespace nsim
