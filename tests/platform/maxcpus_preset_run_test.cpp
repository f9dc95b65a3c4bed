// Whole runs (one per process): maxcpus=1 leaves the second CPU halted in the
// hardware, and the ServerWorks preset, whose host bridge does not hold the CPU
// off for bus masters, shows no memory stalls where the VIA board has them.
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

nlohmann::json run(const std::vector<std::string>& sets, const std::string& tag) {
  return run_metrics("disk-dma-kernel-build.yaml", sets, tag);
}

TEST(MaxCpus, OneLeavesTheSecondCpuHaltedInHardware) {
  const auto m = run({"duration=500ms", "kernel.maxcpus=1"}, "maxcpus1");
  ASSERT_EQ(m["cpus"].size(), 2u);                              // the board still has two
  EXPECT_GT(m["cpus"][0]["interrupts"].get<uint64_t>(), 400u);  // HZ=1000 on CPU0
  EXPECT_EQ(m["cpus"][1]["interrupts"].get<uint64_t>(), 0u);    // never started: no APIC timer
  EXPECT_EQ(m["cpus"][1]["halted_us"].get<double>(), 0.0);      // not even the idle loop's hlt
  EXPECT_EQ(m["cpus"][1]["io_accesses"].get<uint64_t>(), 0u);
}

TEST(MaxCpus, DefaultBringsUpBothCpus) {
  const auto m = run({"duration=500ms"}, "maxcpus0");
  EXPECT_GT(m["cpus"][1]["interrupts"].get<uint64_t>(), 400u);
}

TEST(MaxCpus, AppliesOnTheServerworksPresetToo) {
  const auto m =
      run({"duration=500ms", "platform.preset=dual-piii-866-serverworks", "kernel.maxcpus=1"},
          "sw-maxcpus1");
  EXPECT_GT(m["cpus"][0]["interrupts"].get<uint64_t>(), 400u);
  EXPECT_EQ(m["cpus"][1]["interrupts"].get<uint64_t>(), 0u);
}

TEST(ServerworksPreset, NoBusMasterHoldoffSoNoMemoryStalls) {
  const auto m = run({"duration=2s", "platform.preset=dual-piii-866-serverworks"}, "sw");
  EXPECT_GT(m["disk"]["bytes_read"].get<uint64_t>(), 0u);  // the disk DMA did run
  for (const auto& c : m["cpus"]) EXPECT_EQ(c["stall_us"]["memory"].get<double>(), 0.0);
}

TEST(ServerworksPreset, TheViaBoardHoldsCpusOffDuringTheSameRun) {
  const auto m = run({"duration=2s"}, "via");
  double memory = 0;
  for (const auto& c : m["cpus"]) memory += c["stall_us"]["memory"].get<double>();
  EXPECT_GT(memory, 0.0);
}

}  // namespace
}  // namespace latsim::platform
