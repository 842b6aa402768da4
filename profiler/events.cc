// The free functions of events.h: each looks up the active collector once and
// returns when there is none. The per-thread stack of open ops lives here,
// outside any collector, so that an op opened before a window closed still
// pops cleanly afterwards.
#include "profiler/events.h"

#include <utility>

#include "profiler/collector.h"
#include "sim/base/sim_clock.h"

namespace nsim {
namespace prof {
namespace {

struct OpenOp {
  uint64_t correlation_id;
  uint64_t collector_serial;
  int64_t slot;
};

std::vector<OpenOp>& OpenOps() {
  thread_local std::vector<OpenOp> open;
  return open;
}

std::atomic<SourceProvider> g_source_provider{nullptr};

}  // namespace

void SetSourceProvider(SourceProvider provider) { g_source_provider.store(provider); }

uint64_t BeginOp(OpInfo info, Picos start) {
  Collector* c = Collector::Active();
  if (c == nullptr) return 0;
  const SourceProvider provider = g_source_provider.load();
  if (provider != nullptr && info.source.empty() && info.kind != OpKind::kUserAnnotation &&
      c->options().record_ops) {
    info.source = provider();
  }
  const uint64_t id = NextCorrelationId();
  const int64_t slot = c->AddOp(std::move(info), id, start);
  OpenOps().push_back({id, c->serial(), slot});
  return id;
}

void EndOp(uint64_t correlation_id, Picos end) {
  if (correlation_id == 0) return;
  std::vector<OpenOp>& open = OpenOps();
  // Normally the op is on top; searching down tolerates a caller that left an
  // inner op open (that one stays incomplete and is dropped at export).
  for (size_t i = open.size(); i-- > 0;) {
    if (open[i].correlation_id != correlation_id) continue;
    const OpenOp op = open[i];
    open.resize(i);
    Collector* c = Collector::Active();
    if (c != nullptr && c->serial() == op.collector_serial) c->CloseOp(op.slot, end);
    return;
  }
}

uint64_t CurrentCorrelationId() {
  const std::vector<OpenOp>& open = OpenOps();
  return open.empty() ? 0 : open.back().correlation_id;
}

uint64_t RecordRuntimeCall(RuntimeCall call) {
  Collector* c = Collector::Active();
  return c == nullptr ? 0 : c->AddRuntimeCall(std::move(call));
}

bool DeviceCaptureWanted(int nc) {
  Collector* c = Collector::Active();
  return c != nullptr && c->DeviceCaptureWanted(nc);
}

void RecordDeviceExecution(DeviceExecution exec) {
  Collector* c = Collector::Active();
  if (c != nullptr) c->AddDeviceExecution(std::move(exec));
}

void RecordMemory(const MemoryEvent& event) {
  Collector* c = Collector::Active();
  if (c != nullptr) c->AddMemory(event);
}

bool RecordingShapes() {
  Collector* c = Collector::Active();
  return c != nullptr && c->options().record_shapes;
}

std::string FormatShapes(const std::vector<std::vector<int64_t>>& shapes) {
  std::string out = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) out += ", ";
    out += "[";
    for (size_t d = 0; d < shapes[i].size(); ++d) {
      if (d > 0) out += ", ";
      out += std::to_string(shapes[i][d]);
    }
    out += "]";
  }
  return out + "]";
}

std::string FormatDtypes(const std::vector<std::string>& dtypes) {
  std::string out = "[";
  for (size_t i = 0; i < dtypes.size(); ++i) {
    if (i > 0) out += ", ";
    out += dtypes[i];
  }
  return out + "]";
}

void ScopedOp::Begin(OpInfo info) {
  correlation_id_ = BeginOp(std::move(info), SimClock::Get().now());
}

ScopedOp::~ScopedOp() { EndOp(correlation_id_, SimClock::Get().now()); }

}  // namespace prof
}  // namespace nsim
