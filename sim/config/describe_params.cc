// Prints the table of config keys (params.cc) as Markdown. The key list in
// configs/README.md is this output; params_test checks that they agree.
#include <iostream>

#include "sim/config/params.h"

int main() {
  std::cout << nsim::DescribeParams();
  return 0;
}
