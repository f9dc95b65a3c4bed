// --shard K/N and `latsim sweep-merge`: shards run through GNU parallel and merged equal an
// unsharded run byte for byte; shards of different sweeps are refused; missing shards are
// reported.
#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

const std::vector<std::string> kGrid{
    "--param", kMaxSectors + "=16,64,128", "--param", kReadAhead + "=32,128", "--duration", "1s"};

TEST_F(Sweep, GnuParallelThreeShardsMergeEqualsUnsharded) {
  if (!have_program("parallel"))
    GTEST_SKIP() << "GNU parallel is not installed (Debian package `parallel`; "
                    "tools/bootstrap.sh installs it)";
  auto whole = kGrid;
  whole.insert(whole.end(), {"-j", "2", "-q", "--out", "whole"});
  const Result w = sweep(whole);
  ASSERT_EQ(w.code, 0) << w;

  // The recipe of the README: one `latsim sweep --shard {}/3` per shard, here all local.
  std::string cmd = "parallel --will-cite --halt now,fail=1 -j 3 " + command({"sweep", kScenario}) +
                    " --shard {}/3 --out shard-{} -j 1 -q";
  for (const auto& a : kGrid) cmd += " " + sh_quote(a);
  cmd += " ::: 0 1 2";
  const Result p = shell(cmd);
  ASSERT_EQ(p.code, 0) << cmd << "\n" << p;
  for (int k = 0; k < 3; ++k) {
    const json man = read_json(dir_ / ("shard-" + std::to_string(k)) / "sweep.json");
    EXPECT_EQ(man["shard"], std::to_string(k) + "/3");
    // Points k and k+3 of the six.
    EXPECT_EQ(lines_of(slurp(dir_ / ("shard-" + std::to_string(k)) / "results.csv")).size(), 3u);
  }

  const Result m = latsim({"sweep-merge", "shard-0", "shard-1", "shard-2", "--out", "merged"});
  ASSERT_EQ(m.code, 0) << m;
  EXPECT_EQ(m.err, "") << m;
  EXPECT_TRUE(contains(m.out, "| max_sectors_kb | read_ahead_kb |")) << m;
  expect_same_results(dir_ / "whole", dir_ / "merged");
  EXPECT_EQ(finished_points(dir_ / "merged"), 6u);
  const json man = read_json(dir_ / "merged" / "sweep.json");
  EXPECT_TRUE(man["shard"].is_null());

  // A merged directory is a whole sweep: --resume on it has nothing left to do.
  auto resume = kGrid;
  resume.insert(resume.end(), {"-q", "--out", "merged", "--resume"});
  const Result r = sweep(resume);
  EXPECT_EQ(r.code, 0) << r;
  EXPECT_EQ(read_json(dir_ / "merged" / "sweep-run-info.json")["run"], 0);
  expect_same_results(dir_ / "whole", dir_ / "merged");
}

TEST_F(Sweep, MergeRefusesShardsOfDifferentSweeps) {
  auto shard = [&](const std::string& scenario, const std::string& values, const std::string& k,
                   const std::string& out) {
    const Result r = latsim({"sweep", scenario, "--param", kMaxSectors + "=" + values, "--duration",
                             "100ms", "--shard", k + "/2", "-q", "--out", out});
    EXPECT_EQ(r.code, 0) << r;
  };
  shard(kScenario, "16,128", "0", "a0");
  shard(kScenario, "16,128", "1", "a1");
  shard(kScenario, "16,64", "1", "b1");  // other values
  // The same scenario with one more comment line: other content, another sweep.
  const fs::path copy = dir_ / "edited.yaml";
  std::ofstream(copy) << slurp(kScenario) << "# edited\n";
  shard(copy.string(), "16,128", "1", "c1");

  for (const auto& [other, why] : std::vector<std::pair<std::string, std::string>>{
           {"b1", "params differ"}, {"c1", "scenario content differs"}}) {
    const Result r = latsim({"sweep-merge", "a0", other, "--out", "merged-" + other});
    EXPECT_EQ(r.code, 255) << r;
    EXPECT_TRUE(contains(r.err, "not the same sweep")) << r;
    EXPECT_TRUE(contains(r.err, why)) << r;
    EXPECT_FALSE(fs::exists(dir_ / ("merged-" + other))) << r;
  }
  // Not a sweep at all.
  fs::create_directories(dir_ / "empty");
  const Result none = latsim({"sweep-merge", "a0", "empty", "--out", "merged-none"});
  EXPECT_EQ(none.code, 255) << none;
  EXPECT_TRUE(contains(none.err, "not a sweep directory")) << none;

  // The right shards merge.
  const Result ok = latsim({"sweep-merge", "a0", "a1", "--out", "merged", "-q"});
  EXPECT_EQ(ok.code, 0) << ok;
  EXPECT_EQ(finished_points(dir_ / "merged"), 2u);
}

TEST_F(Sweep, MergeReportsMissingShards) {
  for (const char* k : {"0", "2"}) {
    const Result r = sweep({"--param", kMaxSectors + "=16,32,64,128", "--duration", "100ms",
                            "--shard", std::string(k) + "/3", "-q", "--out", std::string("s") + k});
    ASSERT_EQ(r.code, 0) << r;
  }
  const Result m = latsim({"sweep-merge", "s0", "s2", "--out", "merged", "-q"});
  EXPECT_EQ(m.code, 1) << "one point (index 1) is in no shard\n" << m;
  EXPECT_TRUE(contains(m.err,
                       "1 of 4 points are in none of the directories (shards 1/3 not "
                       "given?)"))
      << m;
  const auto csv = lines_of(slurp(dir_ / "merged" / "results.csv"));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_TRUE(contains(csv[2], ",missing,")) << csv[2];
  EXPECT_TRUE(contains(slurp(dir_ / "merged" / "results.md"), "1 missing"));
}

// sweep-merge --metrics reads the same paths as sweep and check: an alias is stored
// canonical, a path no point has is an error naming the nearest.
TEST_F(Sweep, MergeMetricsAreCheckedAgainstThePoints) {
  const Result r = sweep({"--param", kMaxSectors + "=16,32", "--duration", "100ms", "--shard",
                          "0/1", "-q", "--out", "s"});
  ASSERT_EQ(r.code, 0) << r;
  const Result bad =
      latsim({"sweep-merge", "s", "--out", "m1", "-q", "--metrics", "disk.read_mb_ss"});
  EXPECT_EQ(bad.code, 255) << bad;
  EXPECT_TRUE(contains(bad.err,
                       "sweep-merge: error: metric `disk.read_mb_ss` is in no finished "
                       "point's metrics.json: disk has no key `read_mb_ss`"))
      << bad;
  EXPECT_TRUE(contains(bad.err, "did you mean `disk.read_mb_s`?")) << bad;
  const Result good =
      latsim({"sweep-merge", "s", "--out", "m2", "-q", "--metrics", "cpus[0].spin_us"});
  EXPECT_EQ(good.code, 0) << good;
  EXPECT_EQ(lines_of(slurp(dir_ / "m2" / "results.csv"))[0],
            "/sys/block/hda/queue/max_sectors_kb,seed,cpus.0.spin_us,status,id");
}

}  // namespace
}  // namespace sweep_test
