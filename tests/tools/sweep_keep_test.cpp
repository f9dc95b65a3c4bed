// `latsim sweep --keep metrics|traces|all`: what a point keeps of its run directory, the
// same results whatever it keeps, shards that keep little still merge; and the plain
// progress lines a sweep prints when stderr is not a terminal.
#include <regex>

#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

const std::vector<std::string> kGrid{
    "--param", kMaxSectors + "=16,128", "--param", kReadAhead + "=32,128", "--duration", "1s"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

// The files (not directories) of a snapshot under `prefix`, with the prefix taken off.
Files files_under(const Files& all, const std::string& prefix) {
  Files f;
  for (const auto& [name, bytes] : all)
    if (name.rfind(prefix, 0) == 0 && name.back() != '/') f[name.substr(prefix.size())] = bytes;
  return f;
}

TEST_F(Sweep, KeepMetricsAndTracesKeepOnlyThatAndGiveTheSameResults) {
  // Scratch runs go under TMPDIR: here, to see that nothing is left there.
  fs::create_directories(dir_ / "tmp");
  const std::string env = "TMPDIR=" + sh_quote((dir_ / "tmp").string());
  for (const char* keep : {"all", "metrics", "traces"}) {
    const Result r = sweep(with(kGrid, {"--keep", keep, "-j", "2", "-q", "--out", keep}), env);
    ASSERT_EQ(r.code, 0) << r;
  }
  EXPECT_TRUE(fs::is_empty(dir_ / "tmp")) << "scratch directories left in TMPDIR";
  expect_same_results(dir_ / "all", dir_ / "metrics");
  expect_same_results(dir_ / "all", dir_ / "traces");

  const Files all = snapshot(dir_ / "all" / "points");
  const Files metrics = snapshot(dir_ / "metrics" / "points");
  const Files traces = snapshot(dir_ / "traces" / "points");
  size_t points = 0;
  for (const auto& [name, bytes] : all) {
    if (name.back() != '/' || name.find('/') != name.size() - 1) continue;  // a point: "ID/"
    ++points;
    const Files whole = files_under(all, name);
    ASSERT_TRUE(whole.count("metrics.json") && whole.count("traces/max.txt")) << name;
    ASSERT_GT(whole.size(), 10u) << name;  // a run writes dozens of files

    // metrics: metrics.json (the same bytes) and a marker that lists only it.
    EXPECT_EQ(files_under(metrics, name),
              (Files{{"COMPLETE", "metrics.json\n"}, {"metrics.json", whole.at("metrics.json")}}))
        << name;

    // traces: also everything under traces/, byte for byte.
    Files want{{"metrics.json", whole.at("metrics.json")}};
    std::string listed;
    for (const auto& [file, text] : whole)
      if (file.rfind("traces/", 0) == 0) want[file] = text;
    for (const auto& kv : want) listed += kv.first + "\n";
    want["COMPLETE"] = listed;
    EXPECT_TRUE(files_under(traces, name) == want) << name;
  }
  EXPECT_EQ(points, 4u);
}

TEST_F(Sweep, ShardsThatKeepMetricsMergeAsOneSweepThatDoes) {
  const Result whole = sweep(with(kGrid, {"--keep", "metrics", "-j", "2", "-q", "--out", "whole"}));
  ASSERT_EQ(whole.code, 0) << whole;
  for (const char* k : {"0", "1"}) {
    const Result r = sweep(with(kGrid, {"--keep", "metrics", "--shard", std::string(k) + "/2", "-q",
                                        "--out", std::string("shard-") + k}));
    ASSERT_EQ(r.code, 0) << r;
  }
  const Result m = latsim({"sweep-merge", "shard-0", "shard-1", "--out", "merged", "-q"});
  ASSERT_EQ(m.code, 0) << m;
  // Everything but the wall times and the lock, points included.
  Files a = snapshot(dir_ / "whole"), b = snapshot(dir_ / "merged");
  for (Files* f : {&a, &b}) {
    f->erase("sweep-run-info.json");
    f->erase(".lock");
  }
  EXPECT_EQ(differences(b, a), "");
}

TEST_F(Sweep, KeepRefusesOtherValues) {
  const Result r = sweep(with(kGrid, {"--keep", "everything", "--out", "out"}));
  EXPECT_EQ(r.code, 255) << r;
  EXPECT_TRUE(contains(r.err, "--keep: `everything` is not one of metrics, traces, all")) << r;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

// Progress on a stderr that is not a terminal (a file here, a batch job's log on a cluster):
// whole lines, no carriage returns or terminal escapes. --progress-interval 0 prints one
// each time the runner wakes, so the line is there however fast the points run.
TEST_F(Sweep, ProgressIsPlainLinesWhenStderrIsNoTerminal) {
  const Result r = sweep(with(kGrid, {"--shard", "1/2", "--progress-interval", "0", "-j", "1",
                                      "--keep", "metrics", "--out", "out"}));
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r;
  EXPECT_EQ(r.err.find('\033'), std::string::npos) << r;
  const std::regex line(
      R"(sweep shard 1/2: [0-2]/2 points, [01] running, 0 failed, \d+s elapsed, ETA \S+)");
  const auto lines = lines_of(r.err);
  ASSERT_FALSE(lines.empty()) << r;
  for (const auto& l : lines) EXPECT_TRUE(std::regex_match(l, line)) << l;
  EXPECT_TRUE(contains(lines.front(), "sweep shard 1/2: 0/2 points, 1 running, 0 failed, "))
      << "the first line comes as the first point starts: " << lines.front();

  // -q: no progress at all.
  const Result q =
      sweep(with(kGrid, {"--shard", "0/2", "--progress-interval", "0", "-q", "--out", "quiet"}));
  ASSERT_EQ(q.code, 0) << q;
  EXPECT_EQ(q.err, "") << q;
}

}  // namespace
}  // namespace sweep_test
