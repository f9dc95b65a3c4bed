#include "platform/presets/registry.h"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace latsim::platform {
namespace {

// Constructed on first use: registrations run during static initialisation.
std::vector<PresetInfo>& table() {
  static std::vector<PresetInfo> presets;
  return presets;
}

}  // namespace

PresetRegistration::PresetRegistration(PresetInfo p) {
  auto& t = table();
  // Sorted by name, so the listing does not depend on link order.
  auto at = std::lower_bound(t.begin(), t.end(), p.name,
                             [](const PresetInfo& a, const std::string& n) { return a.name < n; });
  t.insert(at, std::move(p));
}

const std::vector<PresetInfo>& platform_presets() { return table(); }
std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : platform_presets()) names.push_back(p.name);
  return names;
}

const PresetInfo* find_preset(const std::string& name) {
  for (const auto& p : platform_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

void apply_preset(const std::string& name, PlatformConfig& platform) {
  const PresetInfo* preset = find_preset(name);
  if (!preset) {
    throw std::invalid_argument(fmt::format("unknown platform preset `{}` (accepted: {})", name,
                                            fmt::join(preset_names(), ", ")));
  }
  // A preset is a whole machine: it starts from the declared defaults.
  const std::string preset_name = preset->name;
  platform = PlatformConfig{};
  preset->fill(platform);
  platform.preset = preset_name;
}

}  // namespace latsim::platform
