// Seed 002's board (platform/presets/mpc5200_lite5200) through the whole machine: one e300
// core at 396 MHz with 32 KiB of cache, the 2.6.24-rt kernel with preemptible RCU, and the
// NFS-root ls loop's traffic through the FEC and BestComm taking RCU read sections.
#include <gtest/gtest.h>
#include "tests/platform/scenario_run.h"

namespace latsim::platform {
namespace {

const char* kScenario = "mpc5200-rcu-nfs.yaml";

TEST(Mpc5200Preset, OneE300CoreAt396MHzWith32KiBOfCache) {
  const Scenario s = load_scenario(std::string(LATSIM_SOURCE_DIR "/scenarios/") + kScenario, {});
  EXPECT_EQ(s.platform.preset, "mpc5200-lite5200");
  EXPECT_EQ(s.platform.cpu.count, 1);
  EXPECT_DOUBLE_EQ(s.platform.cpu.mhz, 396.0);
  EXPECT_EQ(s.platform.cpu.l2_kb, 32);
  EXPECT_EQ(s.kernel.flavour, "2.6.24-rt");
  EXPECT_TRUE(s.platform.fec.fitted);
  // The MPC5200's own interrupt controller and the e300 decrementer; no IO-APIC, no PIT.
  EXPECT_TRUE(s.platform.mpc52xx_pic.fitted);
  EXPECT_FALSE(s.platform.ioapic.fitted);
  EXPECT_FALSE(s.platform.pit.fitted);
  EXPECT_FALSE(s.platform.cpu.local_apic);
  EXPECT_EQ(s.platform.cpu.timebase_divider, 4);
}

// eth0 is the FEC: replies come through BestComm's receive task and fec_mpc52xx's
// interrupt handler into netif_rx (no NAPI polls); platform.fec.fitted=false, with the PC's
// interrupt hookup (IO-APIC, local APIC, PIT) for its PCI INTA#, puts the RTL8139 and
// 8139too's NAPI poll back.
TEST(Mpc5200Preset, RepliesComeThroughTheFecAndBestcomm) {
  const auto m = run_metrics(kScenario, {"duration=300ms", "workload.2.enabled=false"}, "mpc-fec");
  const auto& eth0 = m["drivers"]["eth0"];
  EXPECT_GT(eth0["rx_packets"].get<uint64_t>(), 100u);
  EXPECT_GT(eth0["irqs"].get<uint64_t>(), 100u);
  EXPECT_GT(eth0["tx_packets"].get<uint64_t>(), 50u);
  EXPECT_EQ(eth0["polls"].get<uint64_t>(), 0u);
  EXPECT_EQ(eth0["nic_frames_dropped_overflow"].get<uint64_t>(), 0u);
}

TEST(Mpc5200Preset, FecFittedFalseBringsThe8139tooPathBack) {
  const auto rtl =
      run_metrics(kScenario,
                  {"duration=300ms", "workload.2.enabled=false", "platform.fec.fitted=false",
                   "platform.mpc52xx_pic=false", "platform.io_apic=true",
                   "platform.cpu.local_apic=true", "platform.pit=true"},
                  "mpc-rtl");
  EXPECT_GT(rtl["drivers"]["eth0"]["polls"].get<uint64_t>(), 0u);
}

TEST(Mpc5200Preset, TheNfsLoopsRepliesTakeRcuReadSections) {
  const auto m = run_metrics(kScenario, {"duration=300ms", "workload.2.enabled=false"}, "mpc-nfs");
  EXPECT_GT(m["workloads"]["nfs_ls"]["rpcs"].get<uint64_t>(), 50u);
  EXPECT_GT(m["rcu"]["read_sections"].get<uint64_t>(), 100u);
  EXPECT_GT(m["workloads"]["cyclictest"]["count"].get<uint64_t>(), 250u);
  EXPECT_EQ(m["rcu"]["marker_calls"].get<uint64_t>(), 0u);  // CONFIG_RCU_TRACE off
}

TEST(Mpc5200Preset, RcuTraceArmsTheBoostMarkers) {
  const auto m = run_metrics(
      kScenario, {"duration=300ms", "workload.2.enabled=false", "kernel.rcu.trace=true"},
      "mpc-trace");
  EXPECT_GT(m["rcu"]["marker_calls"].get<uint64_t>(), 100u);  // unboost_called per unlock
}

TEST(Mpc5200Preset, HackbenchRunsItsGroupsOfSocketTasks) {
  const auto m = run_metrics(
      kScenario,
      {"duration=300ms", "workload.1.enabled=false", "workload.2.groups=1", "workload.2.loops=10"},
      "mpc-hackbench");
  EXPECT_EQ(m["workloads"]["hackbench"]["messages"].get<uint64_t>(), 20u * 20u * 10u);
  EXPECT_EQ(m["workloads"]["hackbench"]["runs"].get<uint64_t>(), 1u);
}

}  // namespace
}  // namespace latsim::platform
