// Seed 003's board (platform/presets/atom_c2758): eight CPUs through the whole
// machine — local APICs on the APIC bus, IO-APIC broadcast (NMI watchdog), per-CPU
// ticks and metrics, maxcpus, and cyclictest -a with CPU numbers above 1.
#include <gtest/gtest.h>
#include <unistd.h>
#include <stdexcept>
#include "platform/run.h"
#include "platform/scenario_loader.h"

namespace latsim::platform {
namespace {

const char* kScenario = LATSIM_SOURCE_DIR "/scenarios/rt-posix-timers.yaml";

nlohmann::json run(const std::vector<std::string>& sets, const std::string& tag) {
  Scenario s = load_scenario(kScenario, sets);
  RunOptions o;
  o.quiet = true;
  o.progress = false;
  o.out_dir = ::testing::TempDir() + "latsim-" + tag + "-" + std::to_string(::getpid());
  return run_scenario(s, o).metrics;
}

TEST(AtomC2758Preset, EightCpusAt2400MHz) {
  const Scenario s = load_scenario(kScenario, {});
  EXPECT_EQ(s.platform.preset, "atom-c2758");
  EXPECT_EQ(s.platform.cpu.count, 8);
  EXPECT_DOUBLE_EQ(s.platform.cpu.mhz, 2400.0);
}

TEST(AtomC2758Preset, EveryCpuTicksAndTakesTheWatchdogNmi) {
  const auto m = run({"duration=200ms", "kernel.nmi_watchdog=true"}, "atom8");
  ASSERT_EQ(m["cpus"].size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    // 200 ticks of its own one-shot hrtimer tick (HZ 1000), plus the thread's timers.
    EXPECT_GE(m["cpus"][i]["interrupts"].get<uint64_t>(), 190u) << "cpu " << i;
    EXPECT_GE(m["cpus"][i]["nmis"].get<uint64_t>(), 190u) << "cpu " << i;  // IO-APIC broadcast
    EXPECT_TRUE(m["cpus"][i].contains("context_switches")) << "cpu " << i;
  }
}

TEST(AtomC2758Preset, MaxcpusLeavesTheUpperCpusHalted) {
  const auto m = run({"duration=100ms", "kernel.maxcpus=4"}, "atom-maxcpus4");
  ASSERT_EQ(m["cpus"].size(), 8u);
  for (size_t i = 0; i < 4; ++i) EXPECT_GT(m["cpus"][i]["interrupts"].get<uint64_t>(), 90u);
  for (size_t i = 4; i < 8; ++i) EXPECT_EQ(m["cpus"][i]["interrupts"].get<uint64_t>(), 0u);
}

TEST(AtomC2758Preset, CyclictestPinnedToTheLastCpuStaysThere) {
  const auto m = run({"duration=100ms", "workload.0.affinity=7"}, "atom-a7");
  const auto& t = m["workloads"]["cyclictest"]["threads"][0];
  EXPECT_EQ(t["cpu"].get<int>(), 7);
  EXPECT_GT(t["count"].get<uint64_t>(), 190u);  // -i 500 for 100 ms
  EXPECT_EQ(t["migrations"].get<uint64_t>(), 0u);
  EXPECT_GT(m["cpus"][7]["context_switches"].get<uint64_t>(), 190u);
}

TEST(AtomC2758Preset, CpuListsAreCheckedAgainstEightCpus) {
  EXPECT_NO_THROW(load_scenario(kScenario, {"workload.0.affinity=0-7"}));
  EXPECT_THROW(load_scenario(kScenario, {"workload.0.affinity=8"}), std::exception);
  EXPECT_THROW(load_scenario(kScenario, {"platform.cpu.count=9"}), std::exception);
}

}  // namespace
}  // namespace latsim::platform
