// libFuzzer target: a scenario file's text through the scenario loader. Rejection is
// a ScenarioError; any other exception, a crash or a sanitizer report is a finding.
#include "platform/scenario_loader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    latsim::platform::load_scenario_text(latsim::fuzz::as_text(data, size), "fuzz.yaml");
  } catch (const latsim::platform::ScenarioError&) {
  }
  return 0;
}
