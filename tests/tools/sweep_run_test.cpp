// `latsim sweep` end to end: what a sweep writes (tables, plots, points), determinism,
// --metrics, failing points and time limits, and the output directory rules.
#include "tests/tools/sweep_test_support.h"

#include <regex>

namespace sweep_test {
namespace {

size_t count_of(const std::string& s, const std::string& part) {
  size_t n = 0;
  for (size_t pos = s.find(part); pos != std::string::npos; pos = s.find(part, pos + 1)) ++n;
  return n;
}

TEST_F(Sweep, TwoByTwoWritesTablesAndHeatMaps) {
  const std::vector<std::string> grid{
      "--param", kMaxSectors + "=32,128", "--param", kReadAhead + "=32,128", "--duration", "1s"};
  auto args = grid;
  args.insert(args.end(), {"-j", "2", "--out", "sw"});
  const Result r = sweep(args);
  ASSERT_EQ(r.code, 0) << r;
  EXPECT_EQ(r.err, "") << r;  // stderr is not a terminal: no progress line
  const fs::path dir = dir_ / "sw";

  // results.csv: a header and one row per point in grid order.
  const auto csv = lines_of(slurp(dir / "results.csv"));
  ASSERT_EQ(csv.size(), 5u) << slurp(dir / "results.csv");
  EXPECT_EQ(csv[0], kMaxSectors + "," + kReadAhead +
                        ",seed,latency_tracer.max_us,workloads.cyclictest.max_us,"
                        "disk.read_mb_s,ticks.lost,status,id");
  const std::vector<std::pair<std::string, std::string>> order{
      {"32", "32"}, {"32", "128"}, {"128", "32"}, {"128", "128"}};
  const json res = read_json(dir / "results.json");
  ASSERT_EQ(res["points"].size(), 4u);
  EXPECT_EQ(res["summary"]["ok"], 4);
  EXPECT_EQ(res["summary"]["failed"], 0);
  for (size_t i = 0; i < 4; ++i) {
    const auto f = split(csv[i + 1], ',');
    ASSERT_EQ(f.size(), 9u) << csv[i + 1];
    EXPECT_EQ(f[0], order[i].first);
    EXPECT_EQ(f[1], order[i].second);
    EXPECT_EQ(f[2], "1");
    EXPECT_EQ(f[7], "ok");
    // The numbers are those of the point's own metrics.json.
    const json m = read_json(dir / "points" / f[8] / "metrics.json");
    EXPECT_EQ(f[3], m["latency_tracer"]["max_us"].dump());
    EXPECT_EQ(f[4], m["workloads"]["cyclictest"]["max_us"].dump());
    EXPECT_EQ(f[5], m["disk"]["read_mb_s"].dump());
    EXPECT_EQ(f[6], m["ticks"]["lost"].dump());
    const json& p = res["points"][i];
    EXPECT_EQ(p["index"], i);
    EXPECT_EQ(p["id"], f[8]);
    EXPECT_EQ(p["status"], "ok");
    EXPECT_EQ(p["values"][kMaxSectors], std::stoi(order[i].first));
    EXPECT_EQ(p["metrics"]["latency_tracer.max_us"], m["latency_tracer"]["max_us"]);
    EXPECT_EQ(p["dir"], "points/" + f[8]);
    // The point ran with its overrides.
    EXPECT_TRUE(contains(slurp(dir / "points" / f[8] / "scenario.resolved.yaml"),
                         kMaxSectors + ": " + order[i].first));
  }

  // results.md: a table with a row per point, and the first metric as a grid.
  const std::string md = slurp(dir / "results.md");
  EXPECT_TRUE(contains(md, "| max_sectors_kb | read_ahead_kb | seed | latency_tracer.max_us |"))
      << md;
  std::regex row(R"(\n\|\s+(32|128) \|\s+(32|128) \|\s+1 \|)");
  EXPECT_EQ(std::distance(std::sregex_iterator(md.begin(), md.end(), row), std::sregex_iterator()),
            4)
      << md;
  EXPECT_TRUE(contains(md, "| max_sectors_kb \\ read_ahead_kb |")) << md;
  EXPECT_TRUE(contains(r.out, md)) << "the summary on stdout shows the table\n" << r;

  // One heat map per metric, with the values in the cells.
  for (const char* metric :
       {"latency_tracer.max_us", "workloads.cyclictest.max_us", "disk.read_mb_s", "ticks.lost"}) {
    const fs::path svg = dir / (std::string("heatmap-") + metric + ".svg");
    ASSERT_TRUE(fs::exists(svg)) << svg;
    const std::string text = slurp(svg);
    EXPECT_EQ(text.rfind("<?xml", 0), 0u);
    EXPECT_TRUE(contains(text, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    EXPECT_TRUE(contains(text, "</svg>\n"));
    EXPECT_EQ(count_of(text, "class=\"cell\""), 4u) << svg;
    EXPECT_EQ(count_of(text, "<text"), count_of(text, "</text>"));
  }
  const std::string hm = slurp(dir / "heatmap-latency_tracer.max_us.svg");
  for (size_t i = 0; i < 4; ++i)
    EXPECT_TRUE(
        contains(hm, ">" + res["points"][i]["metrics"]["latency_tracer.max_us"].dump() + "</text>"))
        << "cell " << i << " shows its value";
  EXPECT_FALSE(fs::exists(dir / "plot-latency.svg"));

  // sweep.json describes the sweep; sweep-run-info.json is the only place for wall time.
  const json man = read_json(dir / "sweep.json");
  EXPECT_EQ(man["scenario_name"], "disk-dma-kernel-build");
  EXPECT_EQ(man["points"], 4);
  EXPECT_EQ(man["sets"], json({"duration=1s"}));
  EXPECT_TRUE(read_json(dir / "sweep-run-info.json")["wall_seconds"].is_number());
  for (const auto& [name, text] : result_files(dir)) EXPECT_FALSE(contains(text, "wall")) << name;

  // The same sweep again, elsewhere and with -j 1: the same bytes.
  args = grid;
  args.insert(args.end(), {"-j", "1", "-q", "--out", "again"});
  const Result again = sweep(args);
  ASSERT_EQ(again.code, 0) << again;
  EXPECT_EQ(again.out, "") << again;
  EXPECT_EQ(again.err, "") << again;
  expect_same_results(dir, dir_ / "again");
}

TEST_F(Sweep, OneKeyWithSeedsDrawsLinesAndBands) {
  const Result r = sweep({"--param", kMaxSectors + "=32,128", "--seeds", "2", "--duration", "500ms",
                          "--out", "sw", "-q"});
  ASSERT_EQ(r.code, 0) << r;
  const fs::path dir = dir_ / "sw";
  const auto csv = lines_of(slurp(dir / "results.csv"));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[1].substr(0, 5), "32,1,");
  EXPECT_EQ(csv[2].substr(0, 5), "32,2,");
  EXPECT_EQ(csv[3].substr(0, 6), "128,1,");
  EXPECT_EQ(csv[4].substr(0, 6), "128,2,");

  // Across seeds: one md row per value, median (min–max) when the seeds differ.
  const std::string md = slurp(dir / "results.md");
  EXPECT_TRUE(contains(md, "2 seeds (1..2)")) << md;
  EXPECT_TRUE(contains(md, "median (min–max)")) << md;
  const json res = read_json(dir / "results.json");
  ASSERT_EQ(res["across_seeds"].size(), 2u);
  EXPECT_EQ(res["across_seeds"][0]["ok_seeds"], 2);
  for (const auto& a : res["across_seeds"]) {
    const auto& s = a["metrics"]["latency_tracer.max_us"];
    EXPECT_LE(s["min"].get<double>(), s["median"].get<double>());
    EXPECT_LE(s["median"].get<double>(), s["max"].get<double>());
  }

  // Line plots: latency (max and the cyclictest avg) with bands; one plot per other metric.
  const std::string lat = slurp(dir / "plot-latency.svg");
  EXPECT_TRUE(contains(lat, "class=\"band\"")) << lat;
  EXPECT_TRUE(contains(lat, "class=\"line\"")) << lat;
  for (const char* name : {"latency_tracer.max_us", "workloads.cyclictest.max_us",
                           "workloads.cyclictest.avg_us", "min–max over seeds"})
    EXPECT_TRUE(contains(lat, std::string(">") + name + "</text>")) << name;
  EXPECT_TRUE(fs::exists(dir / "plot-disk.read_mb_s.svg"));
  EXPECT_TRUE(fs::exists(dir / "plot-ticks.lost.svg"));
  EXPECT_FALSE(fs::exists(dir / "heatmap-latency_tracer.max_us.svg"));
}

TEST_F(Sweep, ChosenMetrics) {
  const Result r = sweep({"--param", "platform.pci.latency_timer=32,64", "--duration", "200ms",
                          "--metrics", "pci.utilization,cpus[1].spin_us", "--out", "sw", "-q"});
  ASSERT_EQ(r.code, 0) << r;
  const fs::path dir = dir_ / "sw";
  const auto csv = lines_of(slurp(dir / "results.csv"));
  ASSERT_EQ(csv.size(), 3u);
  // cpus[1] is read as cpus.1, the one syntax of check, sweep and sweep-merge.
  EXPECT_EQ(csv[0], "platform.pci.latency_timer,seed,pci.utilization,cpus.1.spin_us,status,id");
  for (size_t i = 1; i < 3; ++i) {
    const auto f = split(csv[i], ',');
    ASSERT_EQ(f.size(), 6u);
    const json m = read_json(dir / "points" / f[5] / "metrics.json");
    EXPECT_EQ(f[2], m["pci"]["utilization"].dump());
    EXPECT_EQ(f[3], m["cpus"][1]["spin_us"].dump());
  }
  EXPECT_EQ(read_json(dir / "sweep.json")["metrics"],
            json::parse(R"(["pci.utilization", "cpus.1.spin_us"])"));
  EXPECT_TRUE(fs::exists(dir / "plot-pci.utilization.svg"));
  EXPECT_TRUE(fs::exists(dir / "plot-latency.svg"));  // cpus.1.spin_us is in µs
}

// A metric no point has is an error naming the nearest real one; fixing --metrics and
// resuming rewrites the results without running a point again.
TEST_F(Sweep, UnknownMetricIsAnErrorNamingTheNearest) {
  std::vector<std::string> args{"--param",
                                "platform.pci.latency_timer=32,64",
                                "--duration",
                                "200ms",
                                "--out",
                                "sw",
                                "-q",
                                "--metrics",
                                "pci.utilisation"};
  const Result r = sweep(args);
  EXPECT_EQ(r.code, 255) << r;
  EXPECT_TRUE(contains(r.err,
                       "sweep: error: metric `pci.utilisation` is in no finished point's "
                       "metrics.json: pci has no key `utilisation` (has: "))
      << r;
  EXPECT_TRUE(contains(r.err, "did you mean `pci.utilization`?")) << r;
  args.back() = "pci.utilization";
  args.push_back("--resume");
  const Result again = sweep(args);
  EXPECT_EQ(again.code, 0) << again;
  const json info = read_json(dir_ / "sw" / "sweep-run-info.json");
  EXPECT_EQ(info["run"], 0);
  EXPECT_EQ(info["already_finished"], 2);
  EXPECT_TRUE(contains(slurp(dir_ / "sw" / "results.csv"), ",pci.utilization,"));
}

TEST_F(Sweep, FailingPointsAreReportedOthersFinish) {
  // The point with 64 crashes (a debug hook of `latsim run`); 32 and 96 run. (A point
  // `latsim run` would refuse fails the whole sweep before it starts: sweep_grid_test.)
  const std::string crash = "LATSIM_DEBUG_CRASH_ON_SET=platform.pci.latency_timer=64";
  const std::vector<std::string> args{
      "--param", "platform.pci.latency_timer=32,64,96", "--duration", "200ms", "--out", "sw", "-j",
      "2"};
  const Result r = sweep(args, crash);
  EXPECT_EQ(r.code, 1) << "exit status: the number of failed points\n" << r;
  EXPECT_TRUE(contains(r.err,
                       "point 1 (platform.pci.latency_timer=64 seed=1) failed: "
                       "killed by signal 6 (SIGABRT)"))
      << r;
  EXPECT_TRUE(contains(r.err, "1 of 3 points failed")) << r;

  const fs::path dir = dir_ / "sw";
  const auto csv = lines_of(slurp(dir / "results.csv"));
  ASSERT_EQ(csv.size(), 4u);
  EXPECT_TRUE(contains(csv[1], ",ok,"));
  EXPECT_TRUE(contains(csv[2], "64,1,,,,,failed,"));
  EXPECT_TRUE(contains(csv[3], ",ok,"));
  const json res = read_json(dir / "results.json");
  EXPECT_EQ(res["summary"]["ok"], 2);
  EXPECT_EQ(res["summary"]["failed"], 1);
  EXPECT_EQ(res["points"][1]["error"], "killed by signal 6 (SIGABRT)");
  EXPECT_TRUE(contains(res["points"][1]["stderr_tail"], "crashing on purpose"));
  EXPECT_FALSE(res["points"][1].contains("metrics"));
  const std::string md = slurp(dir / "results.md");
  EXPECT_TRUE(contains(md, "failed: killed by signal 6 (SIGABRT)")) << md;
  EXPECT_TRUE(contains(md, "1 point failed.")) << md;
  // The whole stderr of a failed point is kept; nothing temporary is left behind.
  const std::string id = res["points"][1]["id"];
  EXPECT_TRUE(contains(slurp(dir / "points" / (id + ".stderr.txt")), "crashing on purpose"));
  EXPECT_EQ(hidden_points(dir), std::vector<std::string>{});

  // --resume reruns the failed points only: without the crash hook 64 now finishes.
  auto resume = args;
  resume.push_back("--resume");
  const Result again = sweep(resume);
  EXPECT_EQ(again.code, 0) << again;
  const json res2 = read_json(dir / "results.json");
  EXPECT_EQ(res2["points"][1]["status"], "ok");
  EXPECT_FALSE(
      fs::exists(dir / "points" / (res2["points"][1]["id"].get<std::string>() + ".failed.json")));
  const json info = read_json(dir / "sweep-run-info.json");
  EXPECT_EQ(info["already_finished"], 2);
  EXPECT_EQ(info["run"], 1);
}

TEST_F(Sweep, PointTimeout) {
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = sweep({"--param", "platform.pci.latency_timer=32", "--duration", "600s",
                          "--point-timeout", "0.5", "--out", "sw", "-q"});
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.code, 1) << r;
  EXPECT_TRUE(contains(r.err, "failed: timed out after 0.5 s")) << r;
  EXPECT_LT(wall, 20.0);
  const json res = read_json(dir_ / "sw" / "results.json");
  EXPECT_EQ(res["points"][0]["status"], "failed");
  EXPECT_EQ(res["points"][0]["error"], "timed out after 0.5 s");
  EXPECT_EQ(hidden_points(dir_ / "sw"), std::vector<std::string>{});
}

TEST_F(Sweep, RefusesToClobberOrMixSweeps) {
  const std::vector<std::string> grid{
      "--param", "platform.pci.latency_timer=32", "--duration", "200ms", "-q", "--out", "sw"};
  ASSERT_EQ(sweep(grid).code, 0);
  const std::string csv = slurp(dir_ / "sw" / "results.csv");

  // The same sweep again without --resume: refused, nothing lost.
  const Result again = sweep(grid);
  EXPECT_EQ(again.code, 255) << again;
  EXPECT_TRUE(contains(again.err, "holds a sweep already: add --resume")) << again;
  // Another sweep with --resume: refused.
  auto other = grid;
  other[1] = "platform.pci.latency_timer=32,64";
  other.push_back("--resume");
  const Result mixed = sweep(other);
  EXPECT_EQ(mixed.code, 255) << mixed;
  EXPECT_TRUE(contains(mixed.err, "holds a different sweep: params differ")) << mixed;
  // The same sweep with --resume: nothing to run, the same results.
  auto resume = grid;
  resume.push_back("--resume");
  const Result same = sweep(resume);
  EXPECT_EQ(same.code, 0) << same;
  EXPECT_EQ(slurp(dir_ / "sw" / "results.csv"), csv);
  EXPECT_EQ(read_json(dir_ / "sw" / "sweep-run-info.json")["run"], 0);

  // A directory that is not a sweep, or the working directory: refused.
  fs::create_directories(dir_ / "mine");
  std::ofstream(dir_ / "mine" / "notes.txt") << "not latsim's\n";
  for (const char* out : {"mine", "."}) {
    auto a = grid;
    a.back() = out;
    const Result r = sweep(a);
    EXPECT_EQ(r.code, 255) << r;
  }
  EXPECT_EQ(slurp(dir_ / "mine" / "notes.txt"), "not latsim's\n");
  std::set<std::string> mine;
  for (const auto& e : fs::directory_iterator(dir_ / "mine")) mine.insert(e.path().filename());
  EXPECT_EQ(mine, std::set<std::string>{"notes.txt"}) << "a refused sweep left something behind";
}

}  // namespace
}  // namespace sweep_test
