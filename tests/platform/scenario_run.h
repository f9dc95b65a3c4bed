#pragma once
// One whole run of a scenario from scenarios/ with --set overrides, in this test's
// process (ctest runs each TEST alone: SystemC elaborates once per process).
#include <gtest/gtest.h>
#include <unistd.h>
#include <string>
#include <vector>
#include "platform/run.h"
#include "platform/scenario_loader.h"

namespace latsim::platform {

inline nlohmann::json run_metrics(const std::string& scenario, const std::vector<std::string>& sets,
                                  const std::string& tag) {
  Scenario s = load_scenario(std::string(LATSIM_SOURCE_DIR "/scenarios/") + scenario, sets);
  RunOptions o;
  o.quiet = true;
  o.progress = false;
  o.out_dir = ::testing::TempDir() + "latsim-" + tag + "-" + std::to_string(::getpid());
  return run_scenario(s, o).metrics;
}

}  // namespace latsim::platform
