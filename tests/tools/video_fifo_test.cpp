// Verdicts from real runs of scenarios/video-fifo-stall.yaml (CALIBRATION.md O12,
// seed 000 quoting Jones & Regehr): the rude driver on a pre-2.1 card freezes the
// machine for one window copy at a time and loses timer ticks; the polling and the
// cached-free-count drivers do not; a 2.1 card frees the bus but not the CPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const std::string kScenario = std::string(LATSIM_SOURCE_DIR) + "/scenarios/video-fifo-stall.yaml";

nlohmann::json run(const std::string& tag, const std::string& args) {
  const fs::path out =
      fs::temp_directory_path() / ("latsim-video-" + tag + "-" + std::to_string(::getpid()));
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + kScenario +
                          " -q --duration 500ms --out " + out.string() + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out / "metrics.json");
  std::ostringstream s;
  s << in.rdbuf();
  fs::remove_all(out);
  return nlohmann::json::parse(s.str());
}

// One 1000x700 copy at 39.7 ns per pixel (the preset's SGRAM bursts and page misses)
// is ~27.8 ms: the hold, the ticks, cyclictest.
TEST(VideoFifoStall, RudeDriverOnPci20CardHoldsTheBusForAWholeCopyAndLosesTicks) {
  const auto m = run("rude", "");
  const double hold = m["video"]["longest_bus_hold_us"];
  EXPECT_GT(hold, 27000.0);
  EXPECT_LT(hold, 28500.0);
  EXPECT_EQ(m["video"]["fifo_max_level"], 256);
  EXPECT_EQ(m["video"]["status_reads"], 0);
  EXPECT_GT(m["ticks"]["lost"], 100);
  const double ct_max = m["workloads"]["cyclictest"]["max_us"];
  EXPECT_GT(ct_max, 25000.0);
}

TEST(VideoFifoStall, CachedFreeCountDriverNeitherHoldsTheBusNorLosesTicks) {
  const auto m = run("cached", "--set workload.x.driver=cached");
  EXPECT_EQ(m["video"]["longest_bus_hold_us"], 0.0);
  EXPECT_EQ(m["ticks"]["lost"], 0);
  EXPECT_LT(m["workloads"]["cyclictest"]["max_us"], 100);
  // Reads that found room (not the wait loop's): under 1 % of the stores.
  const auto& x = m["workloads"]["x"];
  const double useful = double(x["status_reads"]) - double(x["status_reads_spinning"]);
  EXPECT_LT(useful, 0.01 * double(x["fifo_writes"]));
  EXPECT_GT(double(x["fifo_writes"]), 10000.0);
}

TEST(VideoFifoStall, PollingDriverReadsBeforeEveryStoreAndLosesNoTicks) {
  const auto m = run("poll", "--set workload.x.driver=poll");
  EXPECT_EQ(m["video"]["longest_bus_hold_us"], 0.0);
  EXPECT_EQ(m["ticks"]["lost"], 0);
  const auto& x = m["workloads"]["x"];
  EXPECT_EQ(double(x["status_reads"]) - double(x["status_reads_spinning"]),
            double(x["fifo_writes"]));
}

// PCI 2.1 Retry: the bus is never held long, yet the CPU's store still cannot
// retire while the FIFO is full, so the ticks are lost all the same.
TEST(VideoFifoStall, Pci21CardReleasesTheBusButTheCpuStoreStillWaits) {
  const auto m = run("pci21", "--set platform.video.pci=2.1");
  EXPECT_LT(m["video"]["longest_bus_hold_us"], 1.0);
  EXPECT_GT(m["video"]["retries"], 10000);
  EXPECT_GT(m["ticks"]["lost"], 100);
}

}  // namespace

namespace {

// The FIFO level is a traceable signal: a counter track in the timeline and a 16-bit
// variable in the VCD, rising to the FIFO's depth while the rude driver fills it.
TEST(VideoFifoStall, FifoLevelIsACounterInTheTimelineAndASignalInTheVcd) {
  const fs::path dir =
      fs::temp_directory_path() / ("latsim-video-level-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cmd = std::string(LATSIM_BINARY) + " run " + kScenario +
                          " -q --duration 200ms --out " + (dir / "o").string() + " --timeline " +
                          (dir / "t.json").string() + " --vcd " + (dir / "w.vcd").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream tj(dir / "t.json");
  const auto j = nlohmann::json::parse(tj);
  double max_level = -1;
  int counters = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e.value("ph", "") != "C" || e.value("name", "") != "video_fifo_level") continue;
    ++counters;
    max_level = std::max(max_level, e["args"]["entries"].get<double>());
  }
  EXPECT_GT(counters, 100);
  EXPECT_EQ(max_level, 256.0);  // platform.video.fifo_entries of the preset
  std::ifstream vcd(dir / "w.vcd");
  std::ostringstream v;
  v << vcd.rdbuf();
  EXPECT_NE(v.str().find(" video_fifo_level $end"), std::string::npos);
  EXPECT_NE(v.str().find("b100000000 "), std::string::npos);  // 256 as a VCD vector value
  fs::remove_all(dir);
}

}  // namespace
