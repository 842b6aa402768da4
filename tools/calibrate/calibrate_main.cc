// bazel run //tools:calibrate -- --suite validation/trn1 --config trn1
//     --free dma.queue_setup,kernel.neff_preamble,... [--only CASE,...]
//     [--max-evaluations N] [--date YYYY-MM-DD] --out configs/trn1-calibrated.yaml
// Fits the free parameters to the suite (least squares on log error, within
// each key's limits), prints measured / model before and after for every
// case, and writes a config inheriting --config with the fitted values.
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include "sim/base/error.h"
#include "sim/config/loader.h"
#include "sim/config/params.h"
#include "tools/calibrate/calibrate.h"
#include "validation/report.h"
#include "validation/suite.h"

namespace {

std::vector<std::string> SplitComma(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');)
    if (!x.empty()) out.push_back(x);
  return out;
}

std::string Today() {
  const std::time_t t = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nsim;
  std::string suite = "validation/trn1", config = "trn1", free, out, only, date = Today();
  int max_evals = 200;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= argc) throw SimError("missing value after " + a);
        return argv[++i];
      };
      if (a == "--suite") suite = value();
      else if (a == "--config") config = value();
      else if (a == "--free") free = value();
      else if (a == "--out") out = value();
      else if (a == "--only") only = value();
      else if (a == "--date") date = value();
      else if (a == "--max-evaluations") max_evals = std::stoi(value());
      else throw SimError("unknown argument '" + a + "'");
    }
    if (free.empty()) throw SimError("--free KEY,... is required");
    const HardwareConfig base = LoadHardwareConfig(validation::UserConfig(config));
    validation::SuiteRunner runner(validation::SelectCases(validation::LoadSuite(suite), only));
    const std::vector<std::string> keys = SplitComma(free);
    std::cout << "before:\n" << validation::ReportTable(base, runner.Run(base));
    const calibrate::FitResult fit = calibrate::Fit(runner, base, keys, max_evals, [&](const std::vector<double>& v,
                                                                                      double cost) {
      std::cerr << "  cost " << cost << ":";
      for (size_t i = 0; i < keys.size(); ++i)
        std::cerr << " " << keys[i] << "=" << FormatQuantity(FindParam(keys[i])->kind, calibrate::GetValue(calibrate::WithValues(base, {keys[i]}, {v[i]}), keys[i]));
      std::cerr << "\n";
    });
    const HardwareConfig fitted = calibrate::WithValues(base, keys, fit.after);
    std::cout << "\nafter:\n" << validation::ReportTable(fitted, runner.Run(fitted)) << "\n";
    for (size_t i = 0; i < keys.size(); ++i) {
      const UnitKind kind = FindParam(keys[i])->kind;
      std::cout << keys[i] << ": " << FormatQuantity(kind, fit.before[i]) << " -> " << FormatQuantity(kind, fit.after[i])
                << "\n";
    }
    const std::string yaml = calibrate::CalibratedYaml(config, only.empty() ? suite : suite + " cases " + only, date, fit);
    if (out.empty()) {
      std::cout << "\n" << yaml;
    } else {
      std::ofstream f(validation::UserPath(out));
      if (!(f << yaml)) throw SimError("cannot write '" + out + "'");
      std::cout << "wrote " << out << "\n";
    }
  } catch (const std::exception& e) {
    std::cerr << "calibrate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
