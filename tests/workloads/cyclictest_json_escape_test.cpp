// cyclictest.json stays valid JSON whatever kernel.version holds: its strings are escaped
// by the JSON library (a tab, a newline and a control character here), even though the
// loader accepts only printable text there.
#include <gtest/gtest.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "platform/run.h"
#include "platform/scenario_loader.h"

namespace latsim::platform {
namespace {

TEST(CyclictestJson, ControlCharactersInTheReleaseAreEscaped) {
  Scenario s = load_scenario_text(
      "schema_version: 1\nname: esc\nduration: 20ms\nworkload:\n  - cyclictest: {}\n", "esc.yaml");
  // The loader refuses such text; the writer must not depend on that.
  s.kernel.version = "2.6.9\tR1\nx\x01";
  RunOptions o;
  o.out_dir = ::testing::TempDir() + "latsim-esc-" + std::to_string(::getpid());
  o.quiet = true;
  run_scenario(s, o);
  std::ifstream f(std::filesystem::path(o.out_dir) / "cyclictest.json");
  std::stringstream text;
  text << f.rdbuf();
  const auto j = nlohmann::json::parse(text.str());  // throws on invalid JSON
  EXPECT_EQ(j["sysinfo"]["release"], "2.6.9\tR1\nx\x01");
  std::filesystem::remove_all(o.out_dir);
}

}  // namespace
}  // namespace latsim::platform
