#include "sim/model/run_alone.h"

#include <memory>
#include <utility>

#include "sim/model/chip_scheduler.h"

namespace nsim {

ExecutionResult RunAlone(const HardwareConfig& config, const LoadedKernel& kernel, BoundGrid bound, bool allow_races,
                         const ProgressFn& progress) {
  // Only its scheduling is used (the caller bound the kernel); its memory is
  // sparse and its cores' SBUF is made on first use, so it costs nothing. The
  // scheduler holds one core's modules for this run only: any number of
  // devices may exist at once.
  Chip chip(config);
  ChipScheduler scheduler(chip, /*cores=*/1);
  KernelLaunch launch;
  launch.programs = {std::shared_ptr<const LoadedKernel>(std::shared_ptr<const LoadedKernel>(), &kernel)};  // not owned
  launch.cores = {0};
  launch.allow_races = allow_races;
  auto binding = std::make_shared<BoundGrid>(std::move(bound));
  launch.bind = [binding] { return std::move(*binding); };
  const ItemRef item = scheduler.LaunchAndWait(/*stream=*/0, std::move(launch), progress);
  return std::move(item->results.front());
}

}  // namespace nsim
