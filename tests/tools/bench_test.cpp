// End-to-end tests of `latsim bench`: they run the real binary (LATSIM_BINARY) in a per-test
// directory, with TMPDIR there too, on one short scenario and rings of few hops. They check
// what the table and the JSON file hold, never how fast anything ran.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/sweep_test_support.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kSource = LATSIM_SOURCE_DIR;
const std::string kBinary = LATSIM_BINARY;
const std::string kScenario = kSource + "/scenarios/video-fifo-stall.yaml";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  for (std::string p; std::getline(in, p, sep);) parts.push_back(p);
  return parts;
}

// A line's cells: runs of non-blanks (none of the plain table's cells holds a blank).
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream in(line);
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

using sweep_test::Result;  // exit code, stdout, stderr (printed by its operator<<)
using sweep_test::sh_quote;

class Bench : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(kBinary).parent_path() / "tools_test_tmp" /
           (std::string("Bench.") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tmp");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // `latsim bench ARGS...` in `cwd` (default: this test's directory), TMPDIR in it.
  Result bench(const std::vector<std::string>& args, const fs::path& cwd = {}) {
    std::string cmd = "cd " + sh_quote((cwd.empty() ? dir_ : cwd).string()) +
                      " && TMPDIR=" + sh_quote((dir_ / "tmp").string()) + " exec " +
                      sh_quote(kBinary) + " bench";
    for (const auto& a : args) cmd += " " + sh_quote(a);
    cmd += " </dev/null >" + sh_quote((dir_ / "stdout").string()) + " 2>" +
           sh_quote((dir_ / "stderr").string());
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = status == -1 ? -1 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(dir_ / "stdout");
    r.err = slurp(dir_ / "stderr");
    return r;
  }

  // The runs' temporary directory is gone once bench has ended.
  void expect_no_temporaries() {
    EXPECT_TRUE(fs::is_empty(dir_ / "tmp")) << (*fs::directory_iterator(dir_ / "tmp")).path();
  }

  fs::path dir_;
};

TEST_F(Bench, OneScenarioGivesOneRowAndTheRingLineMatchingTheJson) {
  const fs::path json_path = dir_ / "bench.json";
  const Result r =
      bench({"--duration", "0.05s", "--hops", "20000", "--json", json_path.string(), kScenario});
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_TRUE(contains(r.err, "bench: running " + kScenario)) << r;
  EXPECT_TRUE(contains(r.err, "bench: running SystemC ping-pong")) << r;
  expect_no_temporaries();

  const json j = json::parse(slurp(json_path));
  ASSERT_EQ(j["scenarios"].size(), 1u) << j.dump(2);
  const json& s = j["scenarios"][0];
  EXPECT_EQ(s["name"], "video-fifo-stall");
  EXPECT_EQ(s["file"], kScenario);
  EXPECT_DOUBLE_EQ(s["simulated_seconds"].get<double>(), 0.05);
  EXPECT_GT(s["delta_cycles"].get<double>(), 0);
  for (const char* k : {"wall_seconds", "x_real_time", "events_per_s", "systemc_threads",
                        "raw_events_per_s", "ratio", "peak_rss_mb"})
    EXPECT_GT(s[k].get<double>(), 0) << k;
  ASSERT_EQ(j["pingpong"].size(), 1u) << j.dump(2);
  const json& p = j["pingpong"][0];
  EXPECT_EQ(p["threads"], s["systemc_threads"]);  // the ring has as many threads
  EXPECT_EQ(p["hops"], 20000);
  EXPECT_GE(p["deltas"].get<double>(), 20000);
  EXPECT_DOUBLE_EQ(p["events_per_s"].get<double>(), s["raw_events_per_s"].get<double>());
  EXPECT_GT(p["peak_rss_mb"].get<double>(), 0);

  // Header, rule, the scenario, the rings: the same figures as the JSON.
  const auto lines = split(r.out, '\n');
  ASSERT_EQ(lines.size(), 4u) << r;
  EXPECT_EQ(words(lines[0])[0], "scenario");
  const auto row = words(lines[2]);
  ASSERT_EQ(row.size(), 9u) << lines[2];
  EXPECT_EQ(row[0], "video-fifo-stall");
  EXPECT_EQ(row[1], "0.050");
  EXPECT_EQ(row[5], std::to_string(s["systemc_threads"].get<int>()));
  EXPECT_NE(row[4], "0");
  const auto ring = words(lines[3]);
  ASSERT_EQ(ring.size(), 8u) << lines[3];  // two words in the name, no raw rate or ratio
  EXPECT_EQ(ring[0] + " " + ring[1], "SystemC ping-pong");
  EXPECT_EQ(ring[6], row[5]);
  EXPECT_EQ(ring[5], row[6]);  // the ring's rate is the scenario's raw rate
}

// --set reaches every run (here: its duration); --repeat runs each scenario again and
// still reports one row.
TEST_F(Bench, SetReachesEveryRunAndRepeatKeepsOneRowPerScenario) {
  const fs::path json_path = dir_ / "bench.json";
  const Result r = bench({"--repeat", "2", "--hops", "1000", "--json", json_path.string(), "--set",
                          "duration=0.03s", kScenario});
  ASSERT_EQ(r.code, 0) << r;
  size_t runs = 0;
  for (const auto& l : split(r.err, '\n')) runs += contains(l, "bench: running " + kScenario);
  EXPECT_EQ(runs, 2u) << r;
  const json j = json::parse(slurp(json_path));
  ASSERT_EQ(j["scenarios"].size(), 1u) << j.dump(2);
  EXPECT_DOUBLE_EQ(j["scenarios"][0]["simulated_seconds"].get<double>(), 0.03);
  const Result bad = bench({"--set", "tracing.no_such_key=1", "--hops", "1000", kScenario});
  EXPECT_EQ(bad.code, 1) << bad;
  EXPECT_TRUE(contains(bad.err, "no_such_key")) << bad;
}

TEST_F(Bench, QuietMarkdownTablePrintsNothingOnStderr) {
  const Result r = bench({"-q", "--markdown", "--duration", "0.05s", "--hops", "1000", kScenario});
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(r.err, "") << r;
  const auto lines = split(r.out, '\n');
  ASSERT_EQ(lines.size(), 4u) << r;
  for (const auto& l : lines) {
    EXPECT_EQ(l.front(), '|') << l;
    EXPECT_EQ(l.back(), '|') << l;
    EXPECT_EQ(split(l, '|').size(), 10u) << l;  // "" and 9 cells
  }
  EXPECT_TRUE(contains(lines[1], "| :---")) << lines[1];
  EXPECT_TRUE(contains(lines[2], "| video-fifo-stall ")) << lines[2];
}

// Without arguments: scenarios/*.yaml of the working directory, top level only, sorted.
TEST_F(Bench, DefaultsToTheWorkingDirectorysScenarios) {
  fs::create_directories(dir_ / "work/scenarios/sub");
  for (const char* f : {"b.yaml", "a.yaml", "sub/c.yaml"})
    fs::copy_file(kScenario, dir_ / "work/scenarios" / f);
  std::ofstream(dir_ / "work/scenarios/notes.md") << "not a scenario\n";
  const fs::path json_path = dir_ / "bench.json";
  const Result r = bench(
      {"-q", "--duration", "0.05s", "--hops", "1000", "--json", json_path.string()}, dir_ / "work");
  ASSERT_EQ(r.code, 0) << r;
  const json j = json::parse(slurp(json_path));
  ASSERT_EQ(j["scenarios"].size(), 2u) << j.dump(2);
  EXPECT_EQ(j["scenarios"][0]["file"], "scenarios/a.yaml");
  EXPECT_EQ(j["scenarios"][1]["file"], "scenarios/b.yaml");
  EXPECT_EQ(j["pingpong"].size(), 1u);  // both have the same thread count
  EXPECT_EQ(split(r.out, '\n').size(), 5u) << r;
}

TEST_F(Bench, NoScenarioAnywhereAsksForFiles) {
  fs::create_directories(dir_ / "empty");
  const Result r = bench({}, dir_ / "empty");
  EXPECT_EQ(r.code, 1) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_TRUE(contains(r.err, "no scenarios/*.yaml")) << r;
  EXPECT_TRUE(contains(r.err, "pass the scenario files")) << r;
}

// A run that fails stops the bench: no table, no JSON, the run's own error on stderr.
TEST_F(Bench, FailingScenarioExitsNonZeroWithItsStderr) {
  const fs::path json_path = dir_ / "bench.json";
  const Result r = bench({"-q", "--duration", "0.05s", "--hops", "1000", "--json",
                          json_path.string(), kScenario, "missing.yaml"});
  EXPECT_EQ(r.code, 1) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_TRUE(contains(r.err, "latsim bench: error: missing.yaml failed (exit status 2)")) << r;
  EXPECT_TRUE(contains(r.err, "  missing.yaml: error: cannot read scenario file")) << r;
  EXPECT_FALSE(fs::exists(json_path));
  expect_no_temporaries();
}

TEST_F(Bench, BadDurationIsRefusedBeforeAnyRun) {
  const Result r = bench({"--duration", "5 parsecs", kScenario});
  EXPECT_EQ(r.code, 1) << r;
  EXPECT_TRUE(contains(r.err, "--duration 5 parsecs: not a time")) << r;
  EXPECT_FALSE(contains(r.err, "bench: running")) << r;
}

// The ring on its own, as bench runs it in a child: exactly the hops asked for.
TEST_F(Bench, PingpongPrintsItsJson) {
  const Result r = bench({"--pingpong", "3", "--hops", "1000"});
  ASSERT_EQ(r.code, 0) << r;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["threads"], 3);
  EXPECT_EQ(j["hops"], 1000);
  EXPECT_GE(j["deltas"].get<double>(), 1000);
  EXPECT_GE(j["wall_seconds"].get<double>(), 0);
}

}  // namespace
