// `latsim sweep --pareto`: the optimal settings are marked in results.csv/json/md and drawn in
// pareto.svg, the same after sweep-merge of shards; a bad spec stops the sweep before any run.
#include "tests/tools/sweep_test_support.h"

namespace sweep_test {
namespace {

const std::string kSpec = "latency_tracer.max_us:min,disk.read_mb_s:max";
const std::vector<std::string> kGrid{"--param",    kMaxSectors + "=16,128",
                                     "--param",    kReadAhead + "=32,128",
                                     "--duration", "200ms",
                                     "--metrics",  "ticks.lost",
                                     "--pareto",   kSpec};

// Whether (latency, MB/s) `a` dominates `b`.
bool dominates(const json& a, const json& b) {
  const double la = a["latency_tracer.max_us"], lb = b["latency_tracer.max_us"];
  const double ta = a["disk.read_mb_s"], tb = b["disk.read_mb_s"];
  return la <= lb && ta >= tb && (la < lb || ta > tb);
}

TEST_F(Sweep, ParetoMarksTheUndominatedSettings) {
  auto args = kGrid;
  args.insert(args.end(), {"-j", "2", "--out", "s"});
  const Result r = sweep(args);
  ASSERT_EQ(r.code, 0) << r;
  const json res = read_json(dir_ / "s" / "results.json");
  // The objectives join the tables after --metrics.
  EXPECT_EQ(res["metrics"], (json{"ticks.lost", "latency_tracer.max_us", "disk.read_mb_s"}));
  const auto& pts = res["points"];
  ASSERT_EQ(pts.size(), 4u);
  size_t optimal = 0;
  for (const auto& p : pts) {
    bool beaten = false;
    for (const auto& q : pts) beaten |= dominates(q["metrics"], p["metrics"]);
    EXPECT_EQ(p["pareto"].get<bool>(), !beaten) << p;
    optimal += p["pareto"].get<bool>();
  }
  EXPECT_GE(optimal, 1u);
  EXPECT_EQ(res["pareto"]["frontier"].size(), optimal);
  EXPECT_EQ(res["pareto"]["across_seeds"], "worst");

  const auto csv = lines_of(slurp(dir_ / "s" / "results.csv"));
  EXPECT_TRUE(contains(csv[0], ",disk.read_mb_s,pareto,status,id")) << csv[0];
  for (size_t i = 0; i < pts.size(); ++i)
    EXPECT_TRUE(contains(csv[i + 1], pts[i]["pareto"].get<bool>() ? ",true,ok," : ",false,ok,"))
        << csv[i + 1];

  const std::string md = slurp(dir_ / "s" / "results.md");
  EXPECT_TRUE(contains(md, "| pareto |")) << md;
  EXPECT_TRUE(contains(md, "★")) << md;
  EXPECT_TRUE(contains(md,
                       "Pareto frontier (★) of latency_tracer.max_us (min), "
                       "disk.read_mb_s (max); values: 1 seed"))
      << md;
  EXPECT_TRUE(contains(r.out, "Pareto frontier")) << r;  // the summary is results.md

  const std::string svg = slurp(dir_ / "s" / "pareto.svg");
  EXPECT_TRUE(contains(svg, "<path class=\"frontier\"")) << svg;
  const auto& best = res["pareto"]["frontier"][0]["values"];
  const std::string label =
      "max_sectors_kb=" + best[kMaxSectors].dump() + " read_ahead_kb=" + best[kReadAhead].dump();
  EXPECT_TRUE(contains(svg, ">" + label + "<")) << label << "\n" << svg;

  // Without --pareto on resume, the marks and the plot go.
  auto plain = kGrid;
  plain.resize(plain.size() - 2);
  plain.insert(plain.end(), {"-q", "--out", "s", "--resume"});
  ASSERT_EQ(sweep(plain).code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "s" / "pareto.svg"));
  EXPECT_FALSE(read_json(dir_ / "s" / "results.json").contains("pareto"));
}

TEST_F(Sweep, ParetoJudgesASettingByItsWorstSeedOrAQuantile) {
  const std::vector<std::string> grid{"--param",    kMaxSectors + "=16,128",
                                      "--duration", "200ms",
                                      "--seeds",    "3",
                                      "--pareto",   kSpec,
                                      "-j",         "2",
                                      "-q"};
  auto args = grid;
  args.insert(args.end(), {"--out", "s"});
  ASSERT_EQ(sweep(args).code, 0);
  const json res = read_json(dir_ / "s" / "results.json");
  // Each frontier setting's objectives are the worst of its three seeds.
  for (const auto& f : res["pareto"]["frontier"]) {
    double worst_latency = 0, worst_mbs = 1e300;
    for (const auto& p : res["points"]) {
      if (p["values"] != f["values"]) continue;
      worst_latency = std::max(worst_latency, p["metrics"]["latency_tracer.max_us"].get<double>());
      worst_mbs = std::min(worst_mbs, p["metrics"]["disk.read_mb_s"].get<double>());
    }
    EXPECT_EQ(f["objectives"]["latency_tracer.max_us"], worst_latency) << f;
    EXPECT_EQ(f["objectives"]["disk.read_mb_s"], worst_mbs) << f;
  }
  EXPECT_TRUE(contains(slurp(dir_ / "s" / "pareto.svg"), "(µs, worst of 3 seeds)"));

  // The median instead: the same runs, only the results are rewritten.
  args.insert(args.end(), {"--resume", "--pareto-quantile", "0.5"});
  ASSERT_EQ(sweep(args).code, 0);
  EXPECT_EQ(read_json(dir_ / "s" / "sweep-run-info.json")["run"], 0);
  const json med = read_json(dir_ / "s" / "results.json");
  EXPECT_EQ(med["pareto"]["across_seeds"], (json{{"quantile", 0.5}}));
  for (const auto& f : med["pareto"]["frontier"])
    for (const auto& a : med["across_seeds"])
      if (a["values"] == f["values"])
        EXPECT_EQ(f["objectives"]["latency_tracer.max_us"],
                  a["metrics"]["latency_tracer.max_us"]["median"])
            << f;
  EXPECT_TRUE(
      contains(slurp(dir_ / "s" / "pareto.svg"), "0.5 quantile of 3 seeds (0: best, 1: worst)"));
}

TEST_F(Sweep, ParetoOfMergedShardsEqualsUnsharded) {
  auto whole = kGrid;
  whole.insert(whole.end(), {"-j", "2", "-q", "--out", "whole"});
  ASSERT_EQ(sweep(whole).code, 0);
  for (const char* k : {"0", "1"}) {
    auto shard = kGrid;
    shard.insert(shard.end(), {"-j", "2", "-q", "--shard", std::string(k) + "/2", "--out",
                               std::string("shard-") + k});
    ASSERT_EQ(sweep(shard).code, 0);
  }
  // The spec travels in sweep.json: no --pareto needed to merge.
  const Result m = latsim({"sweep-merge", "shard-0", "shard-1", "-q", "--out", "merged"});
  ASSERT_EQ(m.code, 0) << m;
  expect_same_results(dir_ / "whole", dir_ / "merged");
  EXPECT_TRUE(fs::exists(dir_ / "merged" / "pareto.svg"));
}

TEST_F(Sweep, BadParetoSpecStopsBeforeAnyRun) {
  auto args = kGrid;
  args.back() = "latency_tracer.max_us:lowest,disk.read_mb_s:max";
  args.insert(args.end(), {"--out", "bad"});
  const Result r = sweep(args);
  EXPECT_EQ(r.code, 255) << r;
  EXPECT_TRUE(contains(r.err, "--pareto `latency_tracer.max_us:lowest,disk.read_mb_s:max`")) << r;
  EXPECT_TRUE(contains(r.err, "METRIC:min or METRIC:max")) << r;
  EXPECT_FALSE(fs::exists(dir_ / "bad"));

  // A metric no point has is named after the runs, as for --metrics.
  auto unknown = kGrid;
  unknown.back() = "latency_tracer.max_usec:min,disk.read_mb_s:max";
  unknown.insert(unknown.end(), {"-q", "--out", "unknown"});
  const Result u = sweep(unknown);
  EXPECT_EQ(u.code, 255) << u;
  EXPECT_TRUE(contains(u.err, "metric `latency_tracer.max_usec` is in no finished point")) << u;
}

}  // namespace
}  // namespace sweep_test
