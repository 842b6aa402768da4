#pragma once
// The text table of EventList::table(), PyTorch's _build_table
// (profiler-conventions 1.2-1.6): same columns, widths, alignment, header
// overflow, unit switching, percentages, sort keys and footers.
#include <string>
#include <vector>

#include "profiler/event_list.h"

namespace nsim {
namespace prof {

std::string BuildTable(const std::vector<EventStats>& events, const std::string& use_device,
                       const TableOptions& options);

// The value `sort_by` names, after PyTorch's cuda/xpu/privateuse1 -> device
// aliasing; throws std::invalid_argument for an unknown attribute (PyTorch's
// AttributeError), e.g. "self_neuron_time_total".
double SortValue(const EventStats& event, const std::string& sort_by);

// Footer denominators: Self CPU over every row; Self device over device rows
// only (not user annotations), as PyTorch sums them.
Picos SumSelfCpu(const std::vector<EventStats>& events);
Picos SumSelfDevice(const std::vector<EventStats>& events);

}  // namespace prof
}  // namespace nsim
