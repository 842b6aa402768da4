// Runtime::AllReduce: the ring of sim/model/all_reduce.h, each step one item
// of the chip scheduler over the participating devices' streams.
#include <set>
#include <string>

#include "runtime/errors.h"
#include "runtime/runtime.h"
#include "sim/kernel/parser.h"
#include "sim/model/all_reduce.h"

namespace nsim {
namespace rt {
namespace {

std::vector<NeuronCoreDevice*> CheckedDevices(Runtime& runtime, const std::vector<CollectiveBuffer>& buffers) {
  if (buffers.size() < 2) {
    throw RuntimeError("AllReduce: needs buffers on at least 2 logical devices, got " +
                       std::to_string(buffers.size()));
  }
  std::vector<NeuronCoreDevice*> devices;
  std::set<int> seen;
  for (const CollectiveBuffer& b : buffers) {
    if (!seen.insert(b.device).second) {
      throw RuntimeError("AllReduce: neuron:" + std::to_string(b.device) + " is given twice (one buffer per device)");
    }
    devices.push_back(&runtime.core(b.device));
    if (&devices.back()->chip() != &devices.front()->chip()) {
      throw RuntimeError("AllReduce: " + devices.back()->name() + " is on another chip than " +
                         devices.front()->name() + " (a collective runs within one chip)");
    }
  }
  return devices;
}

}  // namespace

ExecutionHandle Runtime::AllReduce(const std::vector<CollectiveBuffer>& buffers, int64_t elements, DType dtype,
                                   int stream) {
  const std::vector<NeuronCoreDevice*> devices = CheckedDevices(*this, buffers);
  NeuronCoreDevice& lead = *devices.front();
  const int n = static_cast<int>(devices.size());
  CheckRingShape(n, lead.chip().cores(), elements);
  const uint64_t bytes = static_cast<uint64_t>(elements * DTypeSize(dtype));
  Bindings bindings;
  std::vector<int> cores, streams;
  for (int i = 0; i < n; ++i) {
    NeuronCoreDevice& d = *devices[i];
    d.CheckStream(stream, "AllReduce");
    d.CheckRange(buffers[i].address, bytes,
                 "AllReduce buffer of " + std::to_string(bytes) + " bytes at " + HexAddress(buffers[i].address));
    bindings["b" + std::to_string(i)] = buffers[i].address;
    cores.push_back(d.physical_cores().front());
    streams.push_back(d.streams_[stream]);
  }
  ExecutionHandle last;
  for (int step = 0; step < RingSteps(n); ++step) {
    KernelLaunch launch;
    std::vector<std::shared_ptr<ExecutionRecord>> records;
    for (int p = 0; p < n; ++p) {
      NeuronCoreDevice& d = *devices[p];
      const KernelRef k = d.LoadKernel(ParseKernel(RingStepKernel(n, elements, dtype, step, p), "<all-reduce>"));
      launch.programs.push_back(k->loaded);
      auto record = d.NewRecord(RecordKind::kExecution, stream, 0);
      record->kernel_hash = k->hash;
      record->kernel_name = k->name;
      record->kernel = k;
      record->cores = {cores[p]};
      records.push_back(record);
    }
    launch.cores = cores;
    launch.bindings = bindings;
    launch.scratch_top = lead.memory_base() + lead.memory_bytes();
    launch.timing_only = lead.timing_only();
    // One submission for the step: its host cost is the lead's, shown on every device.
    lead.SubmitOnHost(records.front().get(), lead.config().host.runtime_submit_ps);
    for (const auto& r : records) {
      r->submit_start = records.front()->submit_start;
      r->submit_end = r->host_return = records.front()->submit_end;
    }
    const std::string what = "AllReduce step " + std::to_string(step + 1) + " of " + std::to_string(RingSteps(n)) + ": ";
    ItemRef item = lead.scheduler().SubmitKernel(streams, records.front()->submit_end, std::move(launch),
                                                 [records, what](ScheduledItem& it) {
      for (size_t p = 0; p < records.size(); ++p) {
        ExecutionRecord& r = *records[p];
        r.device_start = it.start;
        r.device_end = it.end;
        if (it.error) continue;
        r.programs = {std::make_shared<const ExecutionResult>(std::move(it.results[p]))};
        r.result = r.programs.front();
        r.completed = true;
      }
      NeuronCoreDevice::PrefixError(it, what);
    });
    for (int p = 0; p < n; ++p) {
      const ExecutionHandle h = devices[p]->Track(records[p], item);
      if (p == 0) last = h;
    }
  }
  return last;
}

}  // namespace rt
}  // namespace nsim
