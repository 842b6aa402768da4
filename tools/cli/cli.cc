#include "tools/cli/cli.h"

#include <iostream>

#include "tools/cli/interrupt.h"

namespace nsim {
namespace cli {
namespace {

std::string HelpHint(const CLI::App& app) {
  return "run '" + app.get_name() + " --help' for usage";
}

}  // namespace

int Run(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  const std::string name = app.get_name();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << name << ": " << e.what() << "\n" << HelpHint(app) << "\n";
    return kExitUsage;
  }
  try {
    const int code = body();
    return Interrupted() ? kExitInterrupted : code;
  } catch (const UsageError& e) {
    std::cerr << name << ": " << e.what() << "\n" << HelpHint(app) << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << name << ": " << e.what() << "\n";
    return kExitRuntime;
  }
}

}  // namespace cli
}  // namespace nsim
