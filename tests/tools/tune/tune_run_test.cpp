// `latsim tune` end to end on the reference scenario at a short duration: its answer is the
// optimum of the full grid swept over the same values (the same runs: same ids), tuned.yaml
// reproduces the answer, --resume runs nothing again, a target nothing meets is an answer
// (exit 1), and bad input is refused before anything runs.
#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

using TuneRun = Sweep;

const std::vector<std::string> kKnobs{"--knob", kMaxSectors + "=16,64,128", "--knob",
                                      kReadAhead + "=16,32,64"};
const std::string kTarget = "latency_tracer.max_us <= 650";

std::vector<std::string> tune_args(const std::vector<std::string>& extra) {
  std::vector<std::string> a{
      "tune",       kScenario, "--target", kTarget, "--maximise", "disk.read_mb_s",
      "--duration", "300ms",   "-j",       "2",     "-q"};
  a.insert(a.end(), kKnobs.begin(), kKnobs.end());
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

TEST_F(TuneRun, AnswersTheGridOptimumAndTunedYamlReproducesIt) {
  const Result t = latsim(tune_args({"--seeds", "2", "--out", "tune"}));
  ASSERT_EQ(t.code, 0) << t;
  EXPECT_TRUE(contains(t.out, "**Answer: ")) << t;
  EXPECT_TRUE(contains(t.out, "## Binding constraint")) << t;
  const json tj = read_json(dir_ / "tune" / "tune.json");

  // The grid by brute force: every setting on both seeds.
  const Result s =
      sweep({"--param", kMaxSectors + "=16,64,128", "--param", kReadAhead + "=16,32,64", "--seeds",
             "2", "--duration", "300ms", "-j", "2", "-q", "--keep", "metrics", "--metrics",
             "latency_tracer.max_us,disk.read_mb_s", "--out", "grid"});
  ASSERT_EQ(s.code, 0) << s;
  std::map<std::string, std::vector<json>> by;  // setting -> its points' metrics
  const json results = read_json(dir_ / "grid" / "results.json");
  for (const auto& p : results["points"]) by[p["values"].dump()].push_back(p["metrics"]);
  std::optional<double> best;
  for (const auto& [k, ms] : by) {
    bool ok = true;
    double worst = 1e300;
    for (const auto& m : ms) {
      ok &= m["latency_tracer.max_us"].get<double>() <= 650;
      worst = std::min(worst, m["disk.read_mb_s"].get<double>());
    }
    if (ok && (!best || worst > *best)) best = worst;
  }
  ASSERT_TRUE(best.has_value());
  const json& answer = tj["answer"];
  ASSERT_TRUE(answer["met"].get<bool>()) << tj.dump(2);
  EXPECT_EQ(answer["figures"]["objective_worst"].get<double>(), *best) << tj.dump(2);
  EXPECT_LT(tj["runs"].get<size_t>(), tj["grid_runs"].get<size_t>());
  EXPECT_EQ(tj["grid_runs"].get<size_t>(), 18u);
  // The same runs: the sweep's figures of the answer's setting are the tune's.
  const auto& ms = by.at(answer["setting"].dump());
  for (size_t k = 0; k < 2; ++k)
    EXPECT_EQ(ms[k]["disk.read_mb_s"], answer["figures"]["runs"][k]["objective"]);

  // tuned.yaml alone reproduces the answer's first seed byte for byte.
  const Result run =
      latsim({"run", (dir_ / "tune" / "tuned.yaml").string(), "-q", "--out", "rerun"});
  ASSERT_EQ(run.code, 0) << run;
  const std::string id = answer["figures"]["runs"][0]["id"];
  EXPECT_EQ(slurp(dir_ / "rerun" / "metrics.json"),
            slurp(dir_ / "tune" / "points" / id / "metrics.json"));

  // --resume reads every run back: the same answer, nothing run again.
  const Files before = snapshot(dir_ / "tune" / "points");
  const std::string md = slurp(dir_ / "tune" / "tune.md");
  const Result again = latsim(tune_args({"--seeds", "2", "--out", "tune", "--resume"}));
  ASSERT_EQ(again.code, 0) << again;
  EXPECT_EQ(slurp(dir_ / "tune" / "tune.md"), md);
  EXPECT_EQ(differences(snapshot(dir_ / "tune" / "points"), before), "");
  // Without --resume the directory is refused.
  const Result refused = latsim(tune_args({"--seeds", "2", "--out", "tune"}));
  EXPECT_EQ(refused.code, 255) << refused;
  EXPECT_TRUE(contains(refused.err, "--resume")) << refused;
}

TEST_F(TuneRun, ATargetNothingMeetsGetsTheNearestSetting) {
  const Result r = latsim({"tune", kScenario, "--target", "latency_tracer.max_us <= 1",
                           "--maximise", "disk.read_mb_s", "--knob", kMaxSectors + "=16,64",
                           "--seeds", "1", "--duration", "300ms", "-q", "--out", "t"});
  EXPECT_EQ(r.code, 1) << r;
  EXPECT_TRUE(contains(r.out, "**No setting meets the target.** The nearest: max_sectors_kb=16"))
      << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_FALSE(fs::exists(dir_ / "t" / "tuned.yaml"));
  EXPECT_FALSE(read_json(dir_ / "t" / "tune.json")["answer"]["met"].get<bool>());
}

TEST_F(TuneRun, BadInputIsRefusedBeforeAnyRun) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases{
      {{"--target", kTarget, "--maximise", "disk.read_mb_s", "--knob",
        "/sys/block/hda/queue/max_sector_kb=4,8"},
       "--knob /sys/block/hda/queue/max_sector_kb"},
      {{"--target", kTarget, "--maximise", "disk.read_mb_s", "--knob", kMaxSectors + "=4..x*2"},
       "--knob /sys/block/hda/queue/max_sectors_kb: `4..x*2` is not a range"},
      {{"--target", kTarget, "--maximise", "disk.read_mb_s", "--knob", kMaxSectors + "=4,100000"},
       "out of range"},
      {{"--target", "latency_tracer.max_us = 650", "--maximise", "disk.read_mb_s", "--knob",
        kMaxSectors + "=4,8"},
       "`METRIC <= X`, `METRIC < X`, `METRIC >= X`, `METRIC > X`"},
      {{"--target", kTarget, "--knob", kMaxSectors + "=4,8"}, "exactly one of --maximise"},
      {{"--target", kTarget, "--maximise", "disk.read_mb_s", "--knob", kMaxSectors + "=64,32"},
       "list the values smallest first (32 comes after 64)"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> a{"tune", kScenario, "--out", "never"};
    a.insert(a.end(), c.args.begin(), c.args.end());
    const Result r = latsim(a);
    EXPECT_EQ(r.code, 255) << r;
    EXPECT_TRUE(contains(r.err, c.says)) << c.says << "\n" << r;
    EXPECT_FALSE(contains(r.err, "terminate")) << r;
    EXPECT_FALSE(fs::exists(dir_ / "never")) << r;
  }
}

}  // namespace
}  // namespace sweep_test
