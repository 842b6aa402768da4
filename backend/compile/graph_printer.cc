#include "backend/compile/graph_printer.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace nsim {
namespace compiler {
namespace {

std::string FormatNumber(double v, bool exact) {
  char buf[40];
  std::snprintf(buf, sizeof buf, exact ? "%.17g" : "%g", v);
  return buf;
}

std::string FormatArg(const Graph& g, const Arg& a, bool exact) {
  switch (a.kind) {
    case Arg::Kind::kValue:
      return "%" + g.value(a.value).name;
    case Arg::Kind::kScalarTensor:
      return FormatNumber(a.scalar_value(), exact);
    case Arg::Kind::kConstant:
      break;
  }
  if (a.constant.isDouble()) return FormatNumber(a.constant.toDouble(), exact);
  std::ostringstream os;
  os << a.constant;
  return os.str();
}

// FX separates positional args from kwargs; like FX's printed graphs, we
// leave out keyword arguments that still have their schema default, unless
// the text must be exact.
std::string FormatCallArgs(const Graph& g, const Graph::Call& c, bool exact) {
  const std::vector<at::Argument>& schema = c.op.schema().arguments();
  std::string args, kwargs;
  int positional = 0;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const std::string text = FormatArg(g, c.args[i], exact);
    if (!schema[i].kwarg_only) {
      args += (args.empty() ? "" : ", ") + text;
      ++positional;
    } else if (exact || !schema[i].default_value || *schema[i].default_value != text) {
      kwargs += (kwargs.empty() ? "" : ", ") + schema[i].name + ": " + text;
    }
  }
  if (positional == 1) args += ",";  // a Python 1-tuple
  std::string out = "(args = (" + args + ")";
  if (!kwargs.empty()) out += ", kwargs = {" + kwargs + "}";
  return out + ")";
}

std::string OutputList(const Graph& g, const char* prefix) {
  std::string out;
  for (int v : g.outputs()) out += (out.empty() ? "" : ", ") + std::string(prefix) + g.value(v).name;
  return "(" + out + (g.outputs().size() == 1 ? ",)" : ")");
}

std::string ResultNames(const Graph& g, const Graph::Call& c) {
  std::string out;
  for (size_t i = 0; i < c.outputs.size(); ++i) out += (i ? ", %" : "%") + g.value(c.outputs[i]).name;
  return out;
}

std::string ResultMetas(const Graph& g, const Graph::Call& c) {
  std::string out;
  for (size_t i = 0; i < c.outputs.size(); ++i) out += (i ? ", " : "") + FormatMeta(g.value(c.outputs[i]).meta);
  return c.outputs.size() == 1 ? out : "(" + out + ")";
}

std::string GraphText(const Graph& g, bool exact) {
  std::string out = "graph():\n";
  for (const Graph::Placeholder& p : g.placeholders()) {
    const Graph::Value& v = g.value(p.value);
    out += "    %" + v.name + " : " + FormatMeta(v.meta) + " " + v.meta.device.str() +
           " = placeholder[target=" + v.name + "]\n";
  }
  for (const Graph::Call& c : g.calls()) {
    out += "    " + ResultNames(g, c) + " : " + ResultMetas(g, c) + " = call_function[target=" +
           c.op.schema().full_name() + "]" + FormatCallArgs(g, c, exact) + "\n";
  }
  return out + "    return " + OutputList(g, "%") + "\n";
}

std::string Pad(const std::string& s, size_t width) { return s + std::string(width - s.size(), ' '); }

}  // namespace

std::string FormatMeta(const ValueMeta& m) {
  std::string out = std::string(at::ToString(m.dtype)) + at::ShapeToString(m.sizes);
  if (!m.is_contiguous()) out += " stride=" + at::ShapeToString(m.strides);
  if (m.storage_offset != 0) out += " offset=" + std::to_string(m.storage_offset);
  return out;
}

std::string FormatGraph(const Graph& g) { return GraphText(g, false); }
std::string Fingerprint(const Graph& g) { return GraphText(g, true); }

std::string FormatTabular(const Graph& g) {
  std::vector<std::vector<std::string>> rows = {{"opcode", "name", "target", "args", "meta"}};
  for (const Graph::Placeholder& p : g.placeholders()) {
    const Graph::Value& v = g.value(p.value);
    rows.push_back({"placeholder", v.name, v.name, "()", FormatMeta(v.meta)});
  }
  for (const Graph::Call& c : g.calls()) {
    std::string args = FormatCallArgs(g, c, false);
    args = args.substr(8, args.size() - 9);  // strip "(args = " and the closing ")"
    args.erase(std::remove(args.begin(), args.end(), '%'), args.end());
    std::string names = ResultNames(g, c);
    names.erase(std::remove(names.begin(), names.end(), '%'), names.end());
    rows.push_back({"call_function", names, c.op.schema().full_name(), args, ResultMetas(g, c)});
  }
  rows.push_back({"output", "output", "output", "(" + OutputList(g, "") + ",)", ""});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (size_t n = 0; n < rows.size(); ++n) {
    std::string line;
    for (size_t i = 0; i < rows[n].size(); ++i) line += Pad(rows[n][i], width[i]) + "  ";
    out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
    if (n == 0) {
      std::string rule;
      for (size_t w : width) rule += std::string(w, '-') + "  ";
      out += rule.substr(0, rule.size() - 2) + "\n";
    }
  }
  return out;
}

}  // namespace compiler
}  // namespace nsim
