// Temporal decoupling must change no result: every scenario in scenarios/ gives the same
// files with platform.cpu.run_ahead on (the default) and off, byte for byte, apart from
// run-info.json (wall time) and scenario.resolved.yaml (which records the switch).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
const std::string kSource = LATSIM_SOURCE_DIR;
const std::string kBinary = LATSIM_BINARY;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kSource + "/scenarios"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class RunAhead : public ::testing::TestWithParam<std::string> {};

// Runs the scenario for `duration` into `out`; false when latsim failed.
bool run(const std::string& name, const fs::path& out, const std::string& run_ahead) {
  const std::string cmd = "env -u SC_COPYRIGHT_MESSAGE '" + kBinary + "' run '" + kSource +
                          "/scenarios/" + name + ".yaml' --duration 2s -q --out '" + out.string() +
                          "' --set platform.cpu.run_ahead=" + run_ahead + " </dev/null >/dev/null";
  return std::system(cmd.c_str()) == 0;
}

TEST_P(RunAhead, ChangesNoOutput) {
  const fs::path base = fs::path(kBinary).parent_path() / "tools_test_tmp" /
                        ("RunAhead." + GetParam() + "-" + std::to_string(::getpid()));
  fs::remove_all(base);
  ASSERT_TRUE(run(GetParam(), base / "on", "true"));
  ASSERT_TRUE(run(GetParam(), base / "off", "false"));
  size_t compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(base / "off")) {
    const fs::path rel = fs::relative(e.path(), base / "off");
    if (!e.is_regular_file() || rel == "run-info.json" || rel == "scenario.resolved.yaml") continue;
    ASSERT_TRUE(fs::exists(base / "on" / rel)) << rel;
    EXPECT_TRUE(slurp(e.path()) == slurp(base / "on" / rel)) << rel << " differs";
    ++compared;
  }
  EXPECT_GE(compared, 3u);  // metrics.json, dmesg.txt, interrupts.txt at least
  if (!HasFailure()) fs::remove_all(base);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, RunAhead, ::testing::ValuesIn(scenario_names()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

}  // namespace
