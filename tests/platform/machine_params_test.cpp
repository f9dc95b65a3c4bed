// Every platform family's scenario keys reach the model built from them: a
// Scenario loaded with --set overrides, a platform::Machine constructed from it,
// and the model's own parameter inspected (not the Scenario's copy).
#include "platform/machine.h"
#include "platform/scenario_loader.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>

namespace latsim::platform {
namespace {

using latsim::testing::fresh_simulation;

Scenario reference(const std::vector<std::string>& sets) {
  return load_scenario(LATSIM_SOURCE_DIR "/scenarios/disk-dma-kernel-build.yaml", sets);
}

TEST(MachineParams, CpuOverridesReachThePentium3) {
  fresh_simulation();
  Machine m(reference(
      {"platform.cpu.count=1", "platform.cpu.mhz=500", "platform.cpu.dram_latency_ns=200"}));
  ASSERT_EQ(m.cpus.size(), 1u);
  EXPECT_EQ(m.cpus[0]->period(), period_of_mhz(500));
  EXPECT_EQ(m.cpus[0]->params().dram_latency(), sc_time(200, SC_NS));
}

TEST(MachineParams, PciOverridesReachTheBus) {
  fresh_simulation();
  Machine m(reference(
      {"platform.pci.mhz=66.67", "platform.pci.latency_timer=32", "platform.pci.width_bits=64"}));
  EXPECT_EQ(m.pci.clock(), period_of_mhz(66.67));
  EXPECT_EQ(m.pci.latency_timer().clocks(), 32);
  EXPECT_EQ(m.pci.bytes_per_clock(), 8);
}

TEST(MachineParams, HostBridgeOverridesReachTheHoldoffPolicy) {
  fresh_simulation();
  Machine m(reference(
      {"platform.host_bridge.cpu_holdoff=grants", "platform.host_bridge.holdoff_grants=5"}));
  EXPECT_EQ(m.host_bridge.params().holdoff, chipset::CpuHoldoff::Grants);
  EXPECT_EQ(m.host_bridge.params().holdoff_grants, 5);
}

TEST(MachineParams, ReqAssertedPolicyAndItsIoSwitchReachTheHostBridge) {
  fresh_simulation();
  Machine m(reference({"platform.host_bridge.cpu_holdoff=req_asserted",
                       "platform.host_bridge.io_waits_req=false"}));
  EXPECT_EQ(m.host_bridge.params().holdoff, chipset::CpuHoldoff::ReqAsserted);
  EXPECT_FALSE(m.host_bridge.params().io_waits_req);
}

TEST(MachineParams, IsaOverrideReachesTheBridgeCycleTime) {
  fresh_simulation();
  Machine m(reference({"platform.isa.io_cycle_ns=750"}));
  EXPECT_EQ(m.isa_bridge.io_cycle(), sc_time(750, SC_NS));
}

TEST(MachineParams, IdeOverridesReachTheController) {
  fresh_simulation();
  Machine m(reference({"platform.ide.udma_mode=4", "platform.ide.burst_bytes=32",
                       "platform.ide.prd_fetch_ns=250"}));
  EXPECT_EQ(m.ide.params().udma_mode, 4);
  EXPECT_NEAR(m.ide.udma_rate(), 66.7, 0.05);  // ATA/ATAPI-5: udma4
  EXPECT_EQ(m.ide.params().burst_bytes, 32u);
  EXPECT_EQ(m.ide.params().prd_fetch(), sc_time(250, SC_NS));
}

TEST(MachineParams, DiskOverridesReachTheDrive) {
  fresh_simulation();
  Machine m(reference(
      {"platform.disk.rpm=5400", "platform.disk.cache_kb=512", "platform.disk.avg_seek_ms=12"}));
  EXPECT_EQ(m.disk.params().rpm, 5400);
  EXPECT_EQ(m.disk.revolution(), sc_time(60.0 / 5400, SC_SEC));
  EXPECT_EQ(m.disk.params().cache_sectors(), 1024u);
  EXPECT_EQ(m.disk.params().avg_seek(), sc_time(12, SC_MS));
}

TEST(MachineParams, NicOverridesReachTheRtl8139AndItsIrqLine) {
  fresh_simulation();
  Machine m(reference({"platform.nic.irq=5", "platform.nic.wire_mbit_s=10",
                       "platform.nic.tx_fifo_bytes=1024", "platform.nic.burst_overhead_clocks=6"}));
  EXPECT_DOUBLE_EQ(m.nic.params().wire_mbit_s, 10.0);
  EXPECT_EQ(m.nic.params().tx_fifo_bytes, 1024u);
  EXPECT_EQ(m.nic.params().burst_overhead_clocks, 6u);
  m.nic.inta.set(true);  // INTA# now lands on the master 8259A's IR5, not the slave's IR3
  EXPECT_EQ(m.pic_master.irr(), 1u << 5);
  EXPECT_EQ(m.pic_slave.irr(), 0u);
}

TEST(MachineParams, SoundOverridesReachTheEs1371AndItsIrqLine) {
  fresh_simulation();
  Machine m(reference({"platform.sound.irq=9", "platform.sound.bit_clk_hz=12000000",
                       "platform.sound.src_busy_frames=5", "platform.sound.dac_fetch_longwords=4",
                       "platform.sound.burst_overhead_clocks=3"}));
  EXPECT_EQ(m.sound.params().link.bit_clk_hz, 12000000u);
  EXPECT_EQ(to_ps(m.sound.link().bits(256)), 21333333u);  // one AC-link frame at 12 MHz
  EXPECT_EQ(m.sound.params().src.busy_frames, 5u);
  EXPECT_EQ(m.sound.params().dac.fetch_longwords, 4u);
  EXPECT_EQ(m.sound.params().dac.burst_overhead_clocks, 3u);
  m.sound.inta.set(true);  // IRQ 9: the slave 8259A's IR1
  EXPECT_EQ(m.pic_slave.irr(), 1u << 1);
}

TEST(MachineParams, ServerworksPresetBuildsA64Bit66MhzBusWithoutHoldoff) {
  fresh_simulation();
  Machine m(reference({"platform.preset=dual-piii-866-serverworks"}));
  EXPECT_EQ(m.pci.clock(), period_of_mhz(66.67));
  EXPECT_EQ(m.pci.bytes_per_clock(), 8);
  EXPECT_EQ(m.host_bridge.params().holdoff, chipset::CpuHoldoff::None);
  EXPECT_EQ(m.ide.params().udma_mode, 4);  // the reference scenario's own udma4 wins over udma2
  EXPECT_EQ(m.cpus.size(), 2u);
  EXPECT_EQ(m.cpus[0]->period(), period_of_mhz(866));
}

TEST(MachineParams, ScenarioKeysOverrideTheServerworksPreset) {
  fresh_simulation();
  Machine m(reference({"platform.preset=dual-piii-866-serverworks", "platform.pci.width_bits=32",
                       "platform.host_bridge.cpu_holdoff=rotate"}));
  EXPECT_EQ(m.pci.clock(), period_of_mhz(66.67));
  EXPECT_EQ(m.pci.bytes_per_clock(), 4);
  EXPECT_EQ(m.host_bridge.params().holdoff, chipset::CpuHoldoff::Rotate);
}

}  // namespace
}  // namespace latsim::platform
