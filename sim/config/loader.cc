#include "sim/config/loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "sim/base/error.h"
#include "sim/config/params.h"

namespace nsim {
namespace {

namespace fs = std::filesystem;

constexpr char kInherits[] = "inherits";

// One `key: value` of a file, with nested maps flattened into a dotted key,
// so that `vector: {freq: 1GHz}` and `vector.freq: 1GHz` mean the same.
struct Entry {
  std::string key;
  std::string value;
  int line;  // 1-based
};

struct ConfigFile {
  std::optional<Entry> inherits;
  std::vector<Entry> entries;
};

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string Where(const std::string& path, int line) { return path + ":" + std::to_string(line); }

std::string Where(const std::string& path, const YAML::Mark& mark) {
  return Where(path, mark.line + 1);  // yaml-cpp counts lines from 0
}

[[noreturn]] void Fail(const std::string& where, const std::string& key,
                       const std::string& problem) {
  throw SimError(where + ": key '" + key + "': " + problem);
}

const char* NodeKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "no value";
    default: return "a single value";
  }
}

// Lists the keys that would have been valid at the place of `key`.
std::string UnknownKey(const std::string& key) {
  // Keys that became chip-level facts: say where the value comes from now.
  static const std::map<std::string, std::string> moved = {
      {"dma.hbm_bytes_per_ns", "derived as chip.hbm_stack_bandwidth / cores per stack; set that instead"},
      {"memory.hbm", "derived as chip.hbm_stack_capacity / cores per stack; set that instead"},
      {"host.pcie_bytes_per_ns", "moved to chip.host_link_bandwidth"},
      {"host.copy_device_latency", "moved to chip.host_link_latency"},
  };
  if (auto it = moved.find(key); it != moved.end()) return "no longer a key: " + it->second;
  const size_t dot = key.rfind('.');
  const std::string group = dot == std::string::npos ? "" : key.substr(0, dot);
  if (!group.empty() && IsParamGroup(group)) {
    return "unknown key; the keys of '" + group + "' are " + Join(ParamNamesIn(group), ", ");
  }
  std::vector<std::string> top = ParamNamesIn("");
  top.insert(top.begin(), kInherits);
  return "unknown key; the top-level keys are " + Join(top, ", ");
}

bool IsLeafKey(const std::string& key) { return key == kInherits || FindParam(key); }

// Checks that `key` exists and that a map is given exactly where a group of
// keys is expected, so every later step can trust the key.
void CheckKey(const std::string& key, const YAML::Node& value, const std::string& where) {
  if (value.IsMap()) {
    if (IsParamGroup(key)) return;
    Fail(where, key, IsLeafKey(key) ? "expected a single value, found a map" : UnknownKey(key));
  }
  if (IsLeafKey(key)) {
    if (value.IsScalar()) return;
    Fail(where, key, std::string("expected a single value, found ") + NodeKind(value));
  }
  if (IsParamGroup(key)) {
    Fail(where, key, "is a group of keys (" + Join(ParamNamesIn(key), ", ") +
                         "); write them indented below it");
  }
  Fail(where, key, UnknownKey(key));
}

void Flatten(const YAML::Node& map, const std::string& prefix, const std::string& path,
             std::vector<Entry>* out) {
  for (const auto& kv : map) {
    const std::string where = Where(path, kv.first.Mark());
    if (!kv.first.IsScalar()) throw SimError(where + ": a key must be a plain name");
    const std::string key = prefix.empty() ? kv.first.Scalar() : prefix + "." + kv.first.Scalar();
    CheckKey(key, kv.second, where);
    if (kv.second.IsMap()) {
      Flatten(kv.second, key, path, out);
    } else {
      out->push_back({key, kv.second.Scalar(), kv.first.Mark().line + 1});
    }
  }
}

YAML::Node ParseYaml(const std::string& path) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw SimError(path + ": cannot read the file");
  } catch (const YAML::Exception& e) {
    throw SimError(Where(path, e.mark) + ": malformed YAML: " + e.msg);
  }
}

ConfigFile ReadConfigFile(const std::string& path) {
  const YAML::Node root = ParseYaml(path);
  ConfigFile file;
  if (root.IsNull()) return file;  // an empty file inherits nothing and sets nothing
  if (!root.IsMap()) {
    throw SimError(Where(path, root.Mark()) + ": expected a map of 'key: value' lines, found " +
                   NodeKind(root));
  }
  std::vector<Entry> entries;
  Flatten(root, "", path, &entries);
  std::map<std::string, int> first_line;
  for (const Entry& e : entries) {
    auto [it, fresh] = first_line.emplace(e.key, e.line);
    if (!fresh) {
      Fail(Where(path, e.line), e.key,
           "set twice in this file (first at line " + std::to_string(it->second) + ")");
    }
    if (e.key == kInherits) {
      file.inherits = e;
    } else {
      file.entries.push_back(e);
    }
  }
  return file;
}

bool LooksLikePath(const std::string& s) {
  return s.find('/') != std::string::npos ||
         (s.size() > 5 && s.compare(s.size() - 5, 5, ".yaml") == 0);
}

// Whether `p` is a regular file / a directory. A name the file system rejects
// (too long, invalid) is neither: the overloads without error_code would throw
// filesystem_error instead of the SimError every caller expects.
bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool IsDirectory(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// The file of `name_or_path`. `near` is the directory of the inheriting file:
// a relative path is taken relative to it and a name is looked up in it
// before ConfigDirectory(). At the top level `near` is empty: a path is
// relative to the working directory and a name is only a shipped config.
std::string FindConfigFile(const std::string& name_or_path, const std::string& near) {
  if (LooksLikePath(name_or_path)) {
    fs::path p(name_or_path);
    if (p.is_relative() && !near.empty()) p = fs::path(near) / p;
    if (!IsFile(p)) throw SimError("config file '" + p.string() + "' does not exist");
    return p.lexically_normal().string();
  }
  const fs::path local = fs::path(near) / (name_or_path + ".yaml");
  if (!near.empty() && IsFile(local)) return local.lexically_normal().string();
  const fs::path shipped = fs::path(ConfigDirectory()) / (name_or_path + ".yaml");
  if (IsFile(shipped)) return shipped.lexically_normal().string();
  throw SimError("unknown config '" + name_or_path + "'; available: " +
                 Join(AvailableConfigs(), ", ") + " (in " + ConfigDirectory() +
                 (near.empty() ? "" : " and " + near) + ")");
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

void SetValue(const std::string& key, const std::string& value, const std::string& where,
              HardwareConfig* config) {
  try {
    SetParam(*FindParam(key), value, config);
  } catch (const SimError& e) {
    Fail(where, key, e.what());
  }
  config->origin[key] = where;
}

// Applies the file at `path` after the chain of files it inherits from, so
// that a child's keys override its parent's. `chain` lists the files being
// applied, child first, to detect a cycle.
void ApplyWithParents(const std::string& path, std::vector<std::string>* chain,
                      HardwareConfig* config) {
  chain->push_back(path);
  const ConfigFile file = ReadConfigFile(path);
  if (file.inherits) {
    const std::string where = Where(path, file.inherits->line);
    const fs::path dir = fs::path(path).parent_path();
    std::string parent;
    try {
      parent = FindConfigFile(file.inherits->value, dir.empty() ? "." : dir.string());
    } catch (const SimError& e) {
      Fail(where, kInherits, e.what());
    }
    for (const std::string& seen : *chain) {
      if (Canonical(seen) == Canonical(parent)) {
        Fail(where, kInherits, "inheritance cycle: " + Join(*chain, " -> ") + " -> " + parent);
      }
    }
    ApplyWithParents(parent, chain, config);
  }
  for (const Entry& e : file.entries) {
    SetValue(e.key, e.value, Where(path, e.line), config);
  }
}

void ApplyOverride(const std::string& text, HardwareConfig* config) {
  const std::string where = "override '" + text + "'";
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw SimError("malformed " + where + ": expected key=value, e.g. vector.freq=2GHz");
  }
  const std::string key = text.substr(0, eq);
  if (key == kInherits) Fail(where, key, "cannot be overridden; write a config that inherits");
  if (!FindParam(key)) {
    Fail(where, key, IsParamGroup(key) ? "is a group of keys, not a key" : UnknownKey(key));
  }
  SetValue(key, text.substr(eq + 1), where, config);
}

void CheckComplete(const HardwareConfig& config) {
  std::vector<std::string> missing;
  for (const ParamSpec& p : AllParams()) {
    if (!config.origin.count(p.key)) {
      missing.push_back("key '" + p.key + "' (" + UnitKindName(p.kind) + ": " + p.description +
                        ")");
    }
  }
  if (missing.empty()) return;
  throw SimError(config.source + ": config '" + config.name + "' is incomplete; neither it nor " +
                 "a config it inherits from sets:\n  " + Join(missing, "\n  "));
}

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Where the configs directory may be, most specific first (see loader.h).
std::vector<std::string> ConfigDirectoryCandidates() {
  std::vector<std::string> dirs;
  auto add = [&dirs](const std::string& base, const char* sub) {
    if (!base.empty()) dirs.push_back((fs::path(base) / sub).string());
  };
  add(Getenv("BUILD_WORKSPACE_DIRECTORY"), "configs");
  add(Getenv("TEST_SRCDIR"), "nsim/configs");
  add(Getenv("RUNFILES_DIR"), "nsim/configs");
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) add(exe.string() + ".runfiles", "nsim/configs");
  add(fs::current_path(ec).string(), "configs");
  return dirs;
}

std::string Annotation(const ParamSpec& p, const HardwareConfig& config) {
  auto it = config.origin.find(p.key);
  return p.description + "; set at " +
         (it == config.origin.end() ? "nowhere (unset)" : it->second);
}

}  // namespace

HardwareConfig LoadHardwareConfig(const std::string& name_or_path,
                                  const std::vector<std::string>& overrides) {
  HardwareConfig config;
  config.source = FindConfigFile(name_or_path, "");
  config.name = fs::path(config.source).stem().string();
  std::vector<std::string> chain;
  ApplyWithParents(config.source, &chain, &config);
  for (const std::string& o : overrides) ApplyOverride(o, &config);
  CheckComplete(config);
  CheckConsistency(config);
  DeriveChipShares(&config);
  return config;
}

namespace {
// `text` for a YAML comment line: a line break or other control character
// in it (a multi-line quoted `generation:` folds into one) would end the
// comment and leave the rest as YAML, so they print escaped.
std::string CommentText(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(c));
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

std::string FormatHardwareConfig(const HardwareConfig& config) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  std::string group;  // the group whose map is open, "" at the top level
  for (const ParamSpec& p : AllParams()) {
    const size_t dot = p.key.find('.');
    const std::string g = dot == std::string::npos ? "" : p.key.substr(0, dot);
    if (g != group) {
      if (!group.empty()) out << YAML::EndMap;
      if (!g.empty()) out << YAML::Key << g << YAML::Value << YAML::BeginMap;
      group = g;
    }
    out << YAML::Key << p.key.substr(dot + 1) << YAML::Value << FormatParam(p, config)
        << YAML::Comment(Annotation(p, config));
  }
  if (!group.empty()) out << YAML::EndMap;
  out << YAML::EndMap;
  return "# Hardware config '" + CommentText(config.name) + "' (" + CommentText(config.generation) +
         "), resolved from " + CommentText(config.source) + ".\n# Every key, with its unit and the file and line that set it.\n" +
         out.c_str() + "\n";
}

std::string ConfigDirectory() {
  const std::string explicit_dir = Getenv("NSIM_CONFIG_DIR");
  if (!explicit_dir.empty()) {
    if (IsDirectory(explicit_dir)) return explicit_dir;
    throw SimError("NSIM_CONFIG_DIR='" + explicit_dir + "' is not a directory");
  }
  const std::vector<std::string> candidates = ConfigDirectoryCandidates();
  for (const std::string& dir : candidates) {
    if (IsDirectory(dir)) return dir;
  }
  throw SimError("cannot find the configs directory; looked in " + Join(candidates, ", ") +
                 ". Set NSIM_CONFIG_DIR, or add data = [\"//configs\"] to the Bazel target");
}

std::vector<std::string> AvailableConfigs() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(ConfigDirectory())) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace nsim
