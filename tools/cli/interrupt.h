#pragma once
// Ctrl-C for long runs: the first SIGINT only sets a flag that loops check
// between steps, so the run stops at a step boundary and writes complete
// files; a second SIGINT ends the process at once (files are written to a
// temporary name and renamed, so none is left half-written even then).
namespace nsim {
namespace cli {

void InstallInterruptHandler();
bool Interrupted();

}  // namespace cli
}  // namespace nsim
