// libFuzzer target: --set overrides. The first byte picks a base scenario from
// scenarios/, each following line is one KEY=VALUE, as `latsim run --set` passes them.
#include "platform/scenario_loader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& bases = latsim::fuzz::base_scenarios();
  const std::string& base = bases[data[0] % bases.size()];
  const auto sets = latsim::fuzz::lines_of(latsim::fuzz::as_text(data + 1, size - 1));
  try {
    latsim::platform::load_scenario_text(base, "base.yaml", sets);
  } catch (const latsim::platform::ScenarioError&) {
  }
  return 0;
}
