#include "profiler/neuron_config.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace nsim {
namespace prof {
namespace {

int ParseIndex(const std::string& text, const std::string& whole) {
  size_t used = 0;
  int value = -1;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < 0) {
    throw std::invalid_argument("capture_enabled_for_nc: bad core index '" + text + "' in '" +
                                whole + "'");
  }
  return value;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

bool NeuronConfig::Has(ProfileMode mode) const {
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

NcSelection NcSelection::Parse(const std::string& text) {
  NcSelection sel;
  if (Trim(text).empty()) return sel;
  sel.all_ = false;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    item = Trim(item);
    const size_t dash = item.find('-');
    if (dash == std::string::npos) {
      sel.ncs_.insert(ParseIndex(item, text));
      continue;
    }
    const int lo = ParseIndex(Trim(item.substr(0, dash)), text);
    const int hi = ParseIndex(Trim(item.substr(dash + 1)), text);
    if (hi < lo) throw std::invalid_argument("capture_enabled_for_nc: empty range in '" + text + "'");
    for (int nc = lo; nc <= hi; ++nc) sel.ncs_.insert(nc);
  }
  return sel;
}

}  // namespace prof
}  // namespace nsim
