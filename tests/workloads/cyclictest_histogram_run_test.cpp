// cyclictest.txt with -h: the block rt-tests' print_hist() writes (checked
// against the real cyclictest of Debian's rt-tests: "%06d " rows with "%06lu"
// columns, " %09llu" totals, " %05lu" summaries, outlier cycle numbers).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string fmt_u(uint64_t v, int width) {
  std::string s = std::to_string(v);
  return std::string(s.size() < size_t(width) ? size_t(width) - s.size() : 0, '0') + s;
}

std::vector<std::string> read_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> v;
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

TEST(CyclictestHistogram, BlockMatchesRtTestsLayoutAndMetrics) {
  const fs::path out = fs::temp_directory_path() / ("latsim-hist-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + LATSIM_SOURCE_DIR +
                          "/scenarios/disk-dma-kernel-build.yaml -q --duration 2s --out " +
                          out.string() + " --set workload.cyclictest.histogram_us=20";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const auto lines = read_lines(out / "cyclictest.txt");
  std::ifstream mf(out / "metrics.json");
  const auto m = nlohmann::json::parse(mf)["workloads"]["cyclictest"];
  ASSERT_GE(lines.size(), 28u);
  EXPECT_EQ(lines[0], "# Histogram");
  uint64_t in_buckets = 0;
  const std::regex row(R"(^(\d{6}) (\d{6})$)");
  for (int i = 0; i < 20; ++i) {
    std::smatch mm;
    ASSERT_TRUE(std::regex_match(lines[size_t(1 + i)], mm, row)) << lines[size_t(1 + i)];
    EXPECT_EQ(std::stoi(mm[1]), i);
    in_buckets += std::stoull(mm[2]);
  }
  const uint64_t count = m["count"];
  EXPECT_EQ(lines[21], "# Total: " + fmt_u(in_buckets, 9));
  EXPECT_EQ(lines[22], "# Min Latencies: " + fmt_u(m["min_us"].get<uint64_t>(), 5));
  EXPECT_EQ(lines[24], "# Max Latencies: " + fmt_u(m["max_us"].get<uint64_t>(), 5));
  EXPECT_EQ(lines[25], "# Histogram Overflows: " + fmt_u(count - in_buckets, 5));
  EXPECT_EQ(lines[26], "# Histogram Overflow at cycle number:");
  EXPECT_TRUE(
      std::regex_match(lines[27], std::regex(R"(^# Thread 0:( \d{5})*( # \d{5} others)?$)")))
      << lines[27];
  EXPECT_EQ(lines.back(), "");
  fs::remove_all(out);
}

}  // namespace
