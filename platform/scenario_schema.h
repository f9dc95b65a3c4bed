#pragma once
// The scenario schema (schema_version 1): one row per YAML key with its type, accepted
// range or values, a one-line doc and the setter into Scenario. The loader, the --set
// overrides, scenario_to_yaml and schema_reference all read this one table.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/params.h"
#include "platform/scenario.h"

namespace latsim::platform {

// The declaration types and value parsing live in common/params.h.
using params::accepted_text;
using params::closest_match;
using params::format_value;
using params::Key;
using params::KeySpec;
using params::not_a_scalar;
using params::parse_duration;
using params::parse_value;
using params::ParsedValue;
using params::type_name;
using params::Value;
using params::ValueType;

// Workload kinds declare themselves (workloads/registry.h).
using WorkloadKind = workloads::Kind;

// The table, in canonical order (the order scenario_to_yaml writes).
const std::vector<Key<Scenario>>& scenario_keys();
const std::vector<WorkloadKind>& workload_kinds();
const WorkloadKind* find_workload_kind(const std::string& kind);

// The table as a tree of sections (canonical order), with `workload` (a list of
// one-key maps, see workload_kinds()) between mechanisms and tracing.
struct SchemaNode {
  std::string name;  // one path segment
  std::string path;  // full dotted path ("" for the root)
  const Key<Scenario>* leaf = nullptr;
  bool is_workload = false;
  bool is_sweep = false;  // the sweep: block, read by `latsim sweep`, ignored by `run`
  std::vector<SchemaNode> children;

  const SchemaNode* find(const std::string& child) const;
  std::vector<std::string> child_names() const;
};
const SchemaNode& schema_tree();

// Splits "kernel.tunables./sys/block/hda/queue/max_sectors_kb" into
// {"kernel", "tunables", "/sys/block/hda/queue/max_sectors_kb"}.
std::vector<std::string> split_key_path(const std::string& path);

// Every key with type, range/accepted values, default and doc (latsim validate --list-keys).
std::string schema_reference();

// One row of `latsim list params`: a key (workload params as workload[].KIND.PARAM)
// with its default under the default preset, its unit ("" if none) and doc.
struct ParamRow {
  std::string key, default_value, unit, doc;
};
std::vector<ParamRow> param_rows();
// The rows as an aligned table: KEY, DEFAULT, UNIT ("-" if none), DOC.
std::string params_table();

}  // namespace latsim::platform
