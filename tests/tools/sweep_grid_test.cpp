// `latsim sweep --dry-run`: value lists and ranges, grid order, point ids, shards, and the
// arguments refused before anything runs.
#include "tests/tools/sweep_test_support.h"

#include <fmt/format.h>

#include "tools/sweep/grid.h"
#include "tools/sweep/results.h"

namespace sweep_test {
namespace {

// The values of the one param of a dry run, in order.
std::vector<std::string> values_of(const std::vector<Listed>& pts) {
  std::vector<std::string> v;
  for (const auto& p : pts) {
    EXPECT_EQ(p.overrides.size(), 2u);
    v.push_back(p.overrides[0].substr(p.overrides[0].find('=') + 1));
  }
  return v;
}

TEST(SweepGrid, RangesExpand) {
  using V = std::vector<std::string>;
  using latsim::sweep::parse_values;
  EXPECT_EQ(parse_values("8..128*2"), (V{"8", "16", "32", "64", "128"}));
  EXPECT_EQ(parse_values("8..100*2"), (V{"8", "16", "32", "64"}));
  EXPECT_EQ(parse_values("1..4"), (V{"1", "2", "3", "4"}));
  EXPECT_EQ(parse_values("-4..5+4"), (V{"-4", "0", "4"}));
  EXPECT_EQ(parse_values("7..7"), (V{"7"}));
  // Lists, ranges and plain scalars mix; spaces around items do not count.
  EXPECT_EQ(parse_values("1, 5..7 ,on,2.5"), (V{"1", "5", "6", "7", "on", "2.5"}));
}

// sweep.json and results.json hold a value as a number or boolean when it reads back as the
// same text (a point's id is made of the text), else as the text.
TEST(SweepGrid, ValuesAreTypedReversibly) {
  using latsim::sweep::typed_value;
  using latsim::sweep::value_text;
  using nlohmann::json;
  EXPECT_EQ(typed_value("128"), json(128));
  EXPECT_EQ(typed_value("-4"), json(-4));
  EXPECT_EQ(typed_value("2.5"), json(2.5));
  EXPECT_EQ(typed_value("true"), json(true));
  EXPECT_EQ(typed_value("false"), json(false));
  for (const char* text : {"08", "2.50", "1e3", "+5", "on", "vanilla", "", "-", "1.2.3"})
    EXPECT_EQ(typed_value(text), json(text)) << text;
  for (const char* text : {"128", "-4", "2.5", "true", "08", "2.50", "1e3", "on", "0"})
    EXPECT_EQ(value_text(typed_value(text)), text);
  latsim::sweep::Manifest m;
  m.grid.params = {{"/sys/block/hda/queue/max_sectors_kb", {"32", "128"}},
                   {"mechanisms.bus_master_holdoff", {"true", "false"}}};
  m.grid.seeds = {1};
  const json j = m.to_json();
  EXPECT_EQ(j["params"][0]["values"], json::parse("[32, 128]"));
  EXPECT_EQ(j["params"][1]["values"], json::parse("[true, false]"));
  EXPECT_EQ(latsim::sweep::Manifest::from_json(j, "x").grid.params[1].values,
            (std::vector<std::string>{"true", "false"}));
}

TEST_F(Sweep, DryRunListsEveryPoint) {
  using V = std::vector<std::string>;
  V every8;
  for (int v = 0; v <= 248; v += 8) every8.push_back(std::to_string(v));
  const auto pts = dry_run({"--param", "platform.pci.latency_timer=0..248+8"});
  EXPECT_EQ(values_of(pts), every8);
  EXPECT_EQ(pts.size(), 32u);
}

// Every point is loaded as its `latsim run` would load it before anything runs: a typo or a
// value out of range fails the dry run (and the sweep) with where it came from.
TEST_F(Sweep, PointsRunWouldRefuseFailTheDryRun) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> err;
  };
  const std::vector<Case> cases{
      {{"--param", "read_ahead_kb=32,128"},
       {"--param read_ahead_kb: error: read_ahead_kb: unknown key; did you mean "
        "`/sys/block/hda/queue/read_ahead_kb`?",
        "[point 0 (read_ahead_kb=32 seed=1), point 1 (read_ahead_kb=128 seed=1)]",
        "latsim sweep: error: 2 of 2 points would fail (`latsim run` refuses them); nothing was "
        "run. `latsim list params` lists every key with its range\n"}},
      {{"--param", "max_sectors_kb=128,256"},
       {"did you mean `/sys/block/hda/queue/max_sectors_kb`?", "2 of 2 points would fail"}},
      {{"--param", kMaxSectors + "=64..512*2", "--seeds", "2"},
       {"--param " + kMaxSectors + "=256: error: kernel.tunables." + kMaxSectors +
            ": 256 is out of range (accepted: 4..128) [points 4..5 (" + kMaxSectors + "=256)]\n",
        "--param " + kMaxSectors + "=512: error:", "4 of 8 points would fail"}},
      {{"--param", "platform.pci.latency_timr=32,64"},
       {"did you mean `platform.pci.latency_timer`?"}},
  };
  for (const auto& c : cases) {
    for (const bool dry : {true, false}) {
      std::vector<std::string> a = c.args;
      a.insert(a.end(), {"--out", "out-dir"});
      if (dry) a.push_back("--dry-run");
      const Result r = sweep(a);
      EXPECT_EQ(r.code, 255) << r;
      for (const auto& e : c.err)
        EXPECT_TRUE(contains(r.err, e)) << "expected `" << e << "` in\n" << r;
      EXPECT_EQ(r.out, "") << r;
      EXPECT_FALSE(fs::exists(dir_ / "out-dir")) << r;
    }
  }
}

// A value of the scenario's own sweep: block is placed at its line and column.
TEST_F(Sweep, ScenarioSweepBlockValuesArePlaced) {
  std::string text = slurp(kScenario);
  text += "sweep:\n  params:\n    /sys/block/hda/queue/max_sectors_kb: [8, 512]\n";
  std::ofstream(dir_ / "s.yaml") << text;
  const size_t line = size_t(std::count(text.begin(), text.end(), '\n'));
  const Result r = latsim({"sweep", (dir_ / "s.yaml").string(), "--dry-run"});
  EXPECT_EQ(r.code, 255) << r;
  EXPECT_TRUE(contains(r.err, fmt::format("s.yaml:{}:42: error: kernel.tunables.{}: 512 is out of "
                                          "range (accepted: 4..128) [point 1 ({}=512 seed=1)]",
                                          line, kMaxSectors, kMaxSectors)))
      << r;
}

TEST(SweepGrid, PointsAreBounded) {
  latsim::sweep::Grid g;
  for (const char* key : {"a", "b"}) {
    latsim::sweep::Param p{key, {}};
    for (int v = 0; v < 10000; ++v) p.values.push_back(std::to_string(v));
    g.params.push_back(p);
  }
  g.seeds = {1};
  EXPECT_THROW(g.check(), latsim::sweep::GridError);
  g.params[1].values.resize(100);  // 10000 x 100 points
  EXPECT_NO_THROW(g.check());
  g.seeds = {1, 2};
  try {
    g.check();
    ADD_FAILURE() << "2000000 points accepted";
  } catch (const latsim::sweep::GridError& e) {
    EXPECT_STREQ(e.what(), "the grid has more than 1000000 points (the limit)");
  }
}

TEST_F(Sweep, BadArgumentsAreRefusedBeforeAnythingRuns) {
  const std::string key = "--param=" + kMaxSectors;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{key + "=1..0"}, "ends before it starts"},
      {{key + "=0..8*2"}, "must start above 0"},
      {{key + "=1..8*1"}, "factor after * must be at least 2"},
      {{key + "=1..8+0"}, "step after + must be at least 1"},
      {{key + "=a..b"}, "is not a range"},
      {{key + "=1..8/2"}, "is not a range"},
      {{key + "=1,,2"}, "empty value"},
      {{key + "=8,16,8"}, "appears twice"},
      {{"--param", "noequals"}, "expected KEY=VALUES"},
      {{"--param", "seed=1,2"}, "--seeds"},
      {{key + "=8,16", key + "=32"}, "given twice"},
      {{key + "=8,16", "--set", kMaxSectors + "=32"}, "both swept"},
      {{key + "=8,16", "--shard", "3/3"}, "expected K/N"},
      {{key + "=8,16", "--shard", "x"}, "expected K/N"},
      {{key + "=8,16", "--metrics", "a..b"}, "--metrics `a..b`: `a..b`: empty key between dots"},
      {{key + "=8,16", "--set", "kernel.hz=7"}, "kernel.hz"},  // the scenario rejects it
      {{key + "=1..20000", "--dry-run"}, "range `1..20000` has more than 10000 values (the limit)"},
      {{key + "=1..9000,10001..12000", "--dry-run"}, "11000 values; the limit is 10000"},
  };
  for (const auto& [args, message] : cases) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--out", "out-dir"});
    const Result r = sweep(a);
    EXPECT_EQ(r.code, 255) << r;
    EXPECT_TRUE(contains(r.err, message)) << "expected `" << message << "` in\n" << r;
    EXPECT_EQ(r.out, "") << r;
    EXPECT_FALSE(fs::exists(dir_ / "out-dir")) << r;
    EXPECT_FALSE(fs::exists(dir_ / "out")) << r;
  }
  // Usage errors of the sweep commands use the same status.
  for (const std::vector<std::string>& args : {std::vector<std::string>{"sweep"},
                                               {"sweep", kScenario, "--no-such-option"},
                                               {"sweep-merge", "x"},
                                               {"sweep", kScenario, "-j", "0"}}) {
    const Result r = latsim(args);
    EXPECT_EQ(r.code, 255) << r;
    EXPECT_TRUE(contains(r.err, "--help")) << r;
  }
}

TEST_F(Sweep, GridOrderAndIdsAreStable) {
  const auto pts = dry_run(
      {"--param", kMaxSectors + "=8,32,128", "--param", kReadAhead + "=16,64", "--seeds", "2"});
  ASSERT_EQ(pts.size(), 12u);
  // First param slowest, seeds fastest; seeds start at the scenario's (1).
  size_t i = 0;
  for (const char* ms : {"8", "32", "128"}) {
    for (const char* ra : {"16", "64"}) {
      for (const char* seed : {"1", "2"}) {
        const auto& p = pts[i];
        EXPECT_EQ(p.index, i);
        const std::vector<std::string> want{kMaxSectors + "=" + ms, kReadAhead + "=" + ra,
                                            std::string("seed=") + seed};
        EXPECT_EQ(p.overrides, want) << "point " << i;
        // The id is FNV-1a of the overrides sorted by key, then the seed.
        EXPECT_EQ(p.id, fnv1a(want[0] + ";" + want[1] + ";" + want[2])) << "point " << i;
        ++i;
      }
    }
  }
  // Pinned: a change of the id scheme would orphan every sweep directory on disk.
  EXPECT_EQ(pts[0].id, "a81f2f4bab670a35");
  EXPECT_EQ(fnv1a(kMaxSectors + "=8;" + kReadAhead + "=0;seed=1"), "4558226c5066b590");

  // The order of --param changes the grid order, not the ids.
  const auto swapped = dry_run(
      {"--param", kReadAhead + "=16,64", "--param", kMaxSectors + "=8,32,128", "--seeds", "2"});
  ASSERT_EQ(swapped.size(), 12u);
  std::set<std::string> a, b;
  for (const auto& p : pts) a.insert(p.id);
  for (const auto& p : swapped) b.insert(p.id);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.size(), 12u);
  EXPECT_NE(swapped[2].id, pts[2].id);  // (16, 32, 1) there, (8, 64, 1) here

  // --seed moves the seeds; fixed overrides (here --duration) are part of the id.
  const auto seeded = dry_run({"--param", kMaxSectors + "=8", "--seeds", "3", "--seed", "41"});
  ASSERT_EQ(seeded.size(), 3u);
  EXPECT_EQ(seeded[0].overrides.back(), "seed=41");
  EXPECT_EQ(seeded[2].overrides.back(), "seed=43");
  const auto timed = dry_run({"--param", kMaxSectors + "=8", "--duration", "1s"});
  ASSERT_EQ(timed.size(), 1u);
  EXPECT_EQ(timed[0].id, fnv1a(kMaxSectors + "=8;duration=1s;seed=1"));  // sorted by key

  // The same command twice: the same listing.
  const auto again = dry_run(
      {"--param", kMaxSectors + "=8,32,128", "--param", kReadAhead + "=16,64", "--seeds", "2"});
  ASSERT_EQ(again.size(), pts.size());
  for (size_t k = 0; k < pts.size(); ++k) EXPECT_EQ(again[k].id, pts[k].id);
}

TEST_F(Sweep, ShardsPartitionTheGrid) {
  const std::vector<std::string> grid{"--param", kMaxSectors + "=8..128*2", "--param",
                                      kReadAhead + "=32,128"};
  const auto all = dry_run(grid);
  ASSERT_EQ(all.size(), 10u);
  std::map<size_t, std::string> seen;
  for (size_t k = 0; k < 3; ++k) {
    auto args = grid;
    args.insert(args.end(), {"--shard", std::to_string(k) + "/3"});
    for (const auto& p : dry_run(args)) {
      EXPECT_EQ(p.index % 3, k);
      EXPECT_EQ(p.id, all[p.index].id);
      EXPECT_TRUE(seen.emplace(p.index, p.id).second) << "point " << p.index << " in two shards";
    }
  }
  EXPECT_EQ(seen.size(), all.size());
}

}  // namespace
}  // namespace sweep_test
