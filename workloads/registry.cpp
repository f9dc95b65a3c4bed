#include "workloads/registry.h"

#include <algorithm>

namespace latsim::workloads {
namespace {

// Constructed on first use: registrations run during static initialisation.
std::vector<Kind>& table() {
  static std::vector<Kind> kinds;
  return kinds;
}

}  // namespace

Registration::Registration(Kind k) {
  // Every kind can be switched off, so a case can run a scenario without one of its loads.
  k.keys.insert(k.keys.begin() + 1,
                params::bind<Config>(params::of_type(params::ValueType::Bool, "enabled",
                                                     "false: the item does not run (a case "
                                                     "without this load)"),
                                     &Config::enabled));
  auto& t = table();
  // Sorted by name, so the listing does not depend on link order.
  auto at = std::lower_bound(t.begin(), t.end(), k.name,
                             [](const Kind& a, const std::string& n) { return a.name < n; });
  t.insert(at, std::move(k));
}

const std::vector<Kind>& kinds() { return table(); }

const Kind* find_kind(const std::string& name) {
  for (const auto& k : table())
    if (k.name == name) return &k;
  return nullptr;
}

Config make_config(const Kind& kind) { return Config{kind.name, kind.name, true, kind.defaults()}; }

params::Key<Config> name_key() {
  return params::bind<Config>(
      params::of_type(params::ValueType::Name, "name",
                      "instance name, unique in the list (default: the kind)"),
      &Config::name);
}

}  // namespace latsim::workloads
