#pragma once
// The fully resolved scenario as YAML: every key, canonical (schema) order. `run` writes
// it next to the results so a result says exactly what ran; loading it gives back the
// same Scenario.
#include <string>

#include "platform/scenario.h"

namespace latsim::platform {

std::string scenario_to_yaml(const Scenario& scenario);

}  // namespace latsim::platform
