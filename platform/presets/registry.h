#pragma once
// Named platform presets, each registering itself from its own file. The loader applies
// the scenario's preset first, then the scenario's own platform.* keys override fields.
#include <string>
#include <vector>

#include "platform/scenario.h"

namespace latsim::platform {

struct PresetInfo {
  std::string name;         // the value of platform.preset
  std::string description;  // one line for --list-keys
  void (*fill)(PlatformConfig&);
};

// Registers a preset at static initialisation: `const PresetRegistration kR{{...}};`.
struct PresetRegistration {
  explicit PresetRegistration(PresetInfo p);
};

const std::vector<PresetInfo>& platform_presets();  // by name
std::vector<std::string> preset_names();
const PresetInfo* find_preset(const std::string& name);  // nullptr if unknown

// Fills `platform` from the named preset; throws std::invalid_argument if unknown.
void apply_preset(const std::string& name, PlatformConfig& platform);

}  // namespace latsim::platform
