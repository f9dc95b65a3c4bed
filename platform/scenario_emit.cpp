#include "platform/scenario_emit.h"

#include <yaml-cpp/yaml.h>

#include "platform/scenario_schema.h"

namespace latsim::platform {
namespace {

void emit_scalar(YAML::Emitter& out, const KeySpec& spec, const Value& value) {
  const std::string text = format_value(spec, value);
  if (spec.type == ValueType::String || spec.type == ValueType::Name) {
    // Free text is always quoted so that "1", "on" or "" stay strings.
    out << (text.find('\n') != std::string::npos ? YAML::Literal : YAML::DoubleQuoted) << text;
  } else {
    out << text;
  }
}

void emit_workload(YAML::Emitter& out, const Scenario& s) {
  out << YAML::BeginSeq;
  for (const auto& w : s.workload) {
    const WorkloadKind* kind = find_workload_kind(w.kind);
    out << YAML::BeginMap << YAML::Key << w.kind << YAML::Value << YAML::BeginMap;
    if (kind) {
      for (const auto& param : kind->keys) {
        out << YAML::Key << param.spec.path << YAML::Value;
        emit_scalar(out, param.spec, param.get(w));
      }
    }
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void emit_section(YAML::Emitter& out, const SchemaNode& section, const Scenario& s) {
  out << YAML::BeginMap;
  for (const auto& child : section.children) {
    out << YAML::Key << child.name << YAML::Value;
    if (child.leaf) {
      emit_scalar(out, child.leaf->spec, child.leaf->get(s));
    } else if (child.is_workload) {
      emit_workload(out, s);
    } else if (child.is_sweep) {
      out << YAML::BeginMap << YAML::Key << "params" << YAML::Value << YAML::BeginMap;
      for (const auto& p : s.sweep.params)
        out << YAML::Key << p.substr(0, p.find('=')) << YAML::Value << YAML::DoubleQuoted
            << p.substr(p.find('=') + 1);
      out << YAML::EndMap;
      if (s.sweep.seeds) out << YAML::Key << "seeds" << YAML::Value << s.sweep.seeds;
      if (!s.sweep.metrics.empty())
        out << YAML::Key << "metrics" << YAML::Value << YAML::DoubleQuoted << s.sweep.metrics;
      out << YAML::EndMap;
    } else {
      emit_section(out, child, s);
    }
  }
  out << YAML::EndMap;
}

}  // namespace

std::string scenario_to_yaml(const Scenario& scenario) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::Comment("latsim scenario, fully resolved (preset and --set overrides applied)");
  out << YAML::Newline;
  emit_section(out, schema_tree(), scenario);
  return std::string(out.c_str()) + "\n";
}

}  // namespace latsim::platform
