// preempt-stats.txt from a real run of the O14 scenario (2.4.10-preempt, dbench 16, the
// MP3 player): every row in latency.c's "%6d %10s %8x %5d/%-15s %8x %5d/%s" layout, the
// metrics' top entry equal to the file's first row, and a golden file of the table
// (LATSIM_UPDATE_GOLDEN=1 regenerates it when a change is intended).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << p;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PreemptStatsRun, Dbench16TableLayoutMetricsAndGolden) {
  const fs::path out = fs::temp_directory_path() / ("latsim-pstats-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/preempt-2.4-dbench.yaml -q --duration 8s --out " +
                          out.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string text = read_text(out / "preempt-stats.txt");
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_TRUE(std::regex_match(
      line, std::regex(R"(^Worst 20 latency times of \d+ measured in this period\.$)")))
      << line;
  std::getline(in, line);
  EXPECT_EQ(line, "  usec      cause     mask   start line/file      address   end line/file");
  // The cause is right-aligned in 10 columns (%10s): a longer IRQ name runs over.
  const std::regex row(R"(^[ \d]{5}\d [ \w]{10,} [ \da-f]{7}[\da-f] [ \d]{4}\d/\S.{14} )"
                       R"([ \da-f]{7}[\da-f] [ \d]{4}\d/\S+$)");
  int rows = 0;
  uint64_t first = 0;
  for (; std::getline(in, line); ++rows) {
    EXPECT_TRUE(std::regex_match(line, row)) << line;
    if (!rows) first = std::stoull(line.substr(0, 6));
  }
  EXPECT_EQ(rows, 20);
  const auto m = nlohmann::json::parse(read_text(out / "metrics.json"));
  EXPECT_EQ(m["preempt_stats"]["max_us"].get<uint64_t>(), first);
  EXPECT_GT(m["reiserfs"]["commits"].get<uint64_t>(), 0u);
  const fs::path golden = fs::path(LATSIM_SOURCE_DIR) /
                          "tests/tools/data/golden/preempt-2.4-dbench-8s.preempt-stats.txt";
  if (std::getenv("LATSIM_UPDATE_GOLDEN")) std::ofstream(golden, std::ios::binary) << text;
  EXPECT_EQ(text, read_text(golden))
      << "LATSIM_UPDATE_GOLDEN=1 regenerates the golden file when the change is intended";
  fs::remove_all(out);
}

}  // namespace
