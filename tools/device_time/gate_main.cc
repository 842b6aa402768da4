// Gate your own kernels and configs on device time:
//   bazel run //tools/device_time:gate -- --goldens my_goldens.tsv \
//       --kernel path/to/a.nk --kernel path/to/b.nk --config trn2 --config my_part.yaml [--update]
// Without --update it exits 1 and prints old/new/change when any device time
// moved; with --update it rewrites the golden file.
#include <iostream>
#include <string>
#include <vector>

#include "tools/device_time/gate.h"

namespace {

std::string UserPath(const std::string& p) {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (p.empty() || p[0] == '/' || wd == nullptr) return p;
  return std::string(wd) + "/" + p;
}

int Main(int argc, char** argv) {
  std::string goldens;
  std::vector<std::string> kernels, configs;
  bool update = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument("missing value after " + a);
      return argv[++i];
    };
    if (a == "--goldens") goldens = UserPath(value());
    else if (a == "--kernel") kernels.push_back(value());
    else if (a == "--config") {
      const std::string c = value();
      configs.push_back(c.find('/') != std::string::npos ? UserPath(c) : c);
    } else if (a == "--update") update = true;
    else throw std::invalid_argument("unknown argument " + a);
  }
  if (goldens.empty() || kernels.empty()) throw std::invalid_argument("need --goldens FILE and at least one --kernel");
  if (configs.empty()) configs.push_back("trn2");
  std::vector<nsim::gate::Workload> workloads;
  for (const std::string& c : configs)
    for (const std::string& k : kernels) workloads.push_back(nsim::gate::KernelFileWorkload(UserPath(k), c, k));
  const auto measured = nsim::gate::Measure(workloads);
  if (update) {
    nsim::gate::WriteGoldens(goldens, measured, "# device-time goldens written by //tools/device_time:gate --update\n");
    std::cout << "wrote " << measured.size() << " goldens to " << goldens << "\n";
    return 0;
  }
  const auto cmp = nsim::gate::Compare(nsim::gate::ReadGoldens(goldens), measured);
  std::cout << cmp.table << (cmp.ok ? "device times unchanged\n" : "DEVICE TIME CHANGED (rerun with --update if intended)\n");
  return cmp.ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "gate: " << e.what() << "\n";
    return 2;
  }
}
