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

#include "platform/scenario.h"

namespace latsim::platform {

enum class ValueType {
  Int,       // integer in [min, max]
  UInt64,    // any non-negative 64-bit integer (seed)
  Double,    // number in [min, max]
  Bool,      // true/false, on/off, yes/no, 1/0; written true/false
  OnOff,     // as Bool; written on/off (hdparm style)
  Switch,    // 0 or 1 (kernel /proc switches); also accepts the Bool spellings
  Enum,      // one of `accepted`
  IntEnum,   // an integer that is one of `accepted` (HZ)
  String,    // free text
  Name,      // [a-z0-9._-]+
  Duration,  // "30s", "500ms", "250us", "2.5s" or plain seconds; range in seconds
};

// A parsed value: int64_t (Int, Switch, IntEnum), uint64_t (UInt64), double (Double,
// Duration in seconds), bool (Bool, OnOff), std::string (Enum, String, Name).
using Value = std::variant<int64_t, uint64_t, double, bool, std::string>;

// Everything about a key except where its value goes.
struct KeySpec {
  std::string path;  // dotted YAML path; a segment starting with '/' runs to the end
  ValueType type = ValueType::Int;
  double min = 0;  // Int, Double, Duration
  double max = 0;
  std::vector<std::string> accepted;     // Enum, IntEnum
  std::vector<std::string> implemented;  // Enum: subset that runs today (empty: all)
  int multiple_of = 0;                   // Int: value must be a multiple (0: any)
  bool required = false;
  std::string unit;  // shown in the reference ("ns", "MHz", ...)
  std::string doc;
};

// A schema row: the spec plus the way into a Target (Scenario or WorkloadConfig).
template <class Target>
struct Key {
  KeySpec spec;
  std::function<void(Target&, const Value&)> set;
  std::function<Value(const Target&)> get;
};

struct WorkloadKind {
  std::string kind;  // kernel_build | disk_read | cyclictest
  std::string doc;
  std::vector<Key<WorkloadConfig>> params;  // spec.path is the bare parameter name
};

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

// Result of checking one scalar against a spec. On failure `message` is the text after
// "KEY: " in a diagnostic, e.g. "300 is out of range (accepted: 0..255)".
struct ParsedValue {
  std::optional<Value> value;
  std::string message;
};
// `text` is the scalar's text; is_null marks an empty YAML value (`key:`).
ParsedValue parse_value(const KeySpec& spec, const std::string& text, bool is_null = false);

// The failure for a mapping or list where `spec` wants a scalar; `got` is "a mapping"...
ParsedValue not_a_scalar(const KeySpec& spec, const std::string& got);

// Canonical text of a value ("64", "33.33", "on", "30s", "rotate").
std::string format_value(const KeySpec& spec, const Value& value);
// "0..255", "rotate, fixed", "1ms..3600s", "[a-z0-9._-]+", "" for free strings.
std::string accepted_text(const KeySpec& spec);
// "integer", "number", "duration", ...
std::string type_name(ValueType type);
// Seconds from "30s", "500ms", "250us", "2.5s", "1min" or a plain number; nullopt if not.
std::optional<double> parse_duration(const std::string& text);

// The closest candidate to `word` if it is a plausible typo, else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

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
