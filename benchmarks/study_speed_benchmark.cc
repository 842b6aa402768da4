// Real (wall-clock) cost of the RMSNorm study per implementation: dispatch,
// simulation, profiling and trace export of four profiled steps.
//   bazel run -c opt //benchmarks:study_speed
#include <benchmark/benchmark.h>

#include <filesystem>

#include "benchmarks/rmsnorm/implementations.h"
#include "benchmarks/rmsnorm/study_runner.h"
#include "runtime/runtime.h"

namespace nsim {
namespace study {
namespace {

void BM_Study(benchmark::State& state) {
  StudyOptions o;
  o.shape = {state.range(0), state.range(1)};
  o.out_dir = (std::filesystem::temp_directory_path() / "nsim_study_speed").string();
  const int which = static_cast<int>(state.range(2));
  for (auto _ : state) {
    rt::Runtime::Get().Reset();
    const Implementation impl = StudyImplementations(o)[which];
    benchmark::DoNotOptimize(RunImplementation(impl.name, impl.fn, o));
  }
  state.SetLabel(StudyImplementations(o)[which].name);
}
BENCHMARK(BM_Study)
    ->ArgsProduct({{4}, {512}, {0, 1, 2}})
    ->Args({128, 2048, 0})
    ->Args({128, 2048, 2})
    ->ArgNames({"rows", "cols", "impl"})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace study
}  // namespace nsim
