#pragma once
// Reads a scenario file (schema_version 1), applies --set overrides, validates every key
// against the schema (scenario_schema.h) and returns the typed Scenario. All problems
// are collected and reported together, one compiler-style line each, for example
//   x.yaml:12:20: error: platform.pci.latency_timer: 300 is out of range (accepted: 0..255)
//   --set kernel.hz=300: error: kernel.hz: `300` is not an accepted value (accepted: 100, ...)
#include <string>
#include <vector>

#include "platform/input_file.h"
#include "platform/scenario.h"

namespace latsim::platform {

// A scenario's problems (Diagnostic: platform/input_file.h), in the order found.
class ScenarioError : public InputError {
 public:
  using InputError::InputError;
};

// Loads `path` (read_input_file: a regular file within the input limits). Each entry of `sets` is
// KEY=VALUE: KEY is a dotted path (platform.pci.latency_timer), a kernel path
// (/sys/block/hda/queue/max_sectors_kb, meaning kernel.tunables./sys/...), workload.N.PARAM (N from
// 0) or workload.NAME.PARAM; VALUE is a YAML scalar. Overrides apply in order, before validation.
// Throws ScenarioError.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets = {});

// The same from YAML text; `display_name` stands for the file in messages and in
// Scenario::source_file.
Scenario load_scenario_text(const std::string& yaml_text, const std::string& display_name,
                            const std::vector<std::string>& sets = {});

}  // namespace latsim::platform
