// PCI configuration header: identity in dword reads, read-only fields, Command bits
// the function implements, W1C Status bits, BAR sizing, and the Latency Timer as a
// per-master register the bus holds each master to (set by a configuration write).
#include "models/pci/pci_config.h"
#include "models/pci/pci_bus.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>

namespace latsim::pci {
namespace {

using latsim::testing::fresh_simulation;

constexpr uint64_t kClkPs = 30003;  // round(1e6 / 33.33) ps
sc_time clocks(uint64_t n) { return ps(n * kClkPs); }
constexpr int kArbitrationClocks = 2;

PciIdentity nic_like() {
  PciIdentity id;
  id.vendor_id = 0x10ec;
  id.device_id = 0x8139;
  id.revision_id = 0x10;
  id.class_code = 0x020000;
  id.command_bits = PciConfig::IO_SPACE | PciConfig::MEMORY_SPACE | PciConfig::BUS_MASTER;
  id.status = 0x0200 | 0x2000;  // medium DEVSEL; Received Master Abort set
  id.interrupt_pin = 1;
  id.min_gnt = 0x20;
  id.max_lat = 0x40;
  id.bars[0] = {256, true};
  id.bars[1] = {128u << 10, false};
  return id;
}

// Long bursts: `n` tenures of `tenure` clocks every `period` clocks.
BurstTrain train(int master, sc_time start, uint64_t n, uint64_t period, uint64_t tenure) {
  BurstTrain t;
  t.master = master;
  t.start = start;
  t.period = clocks(period);
  t.tenure = clocks(tenure);
  t.end = start + clocks((n - 1) * period + tenure);
  t.bytes = n * tenure * 4;
  return t;
}

TEST(PciConfig, DwordReadsReturnTheIdentityFieldsTogether) {
  fresh_simulation();
  PciConfig c(nic_like());
  EXPECT_EQ(c.read(PciConfig::VENDOR_ID, 4), 0x813910ecu);
  EXPECT_EQ(c.read(PciConfig::REVISION_ID, 4), 0x02000010u);
  EXPECT_EQ(c.read(PciConfig::DEVICE_ID, 2), 0x8139u);
  EXPECT_EQ(c.read(PciConfig::INTERRUPT_LINE, 4), 0x40200100u);  // line 0, pin A, gnt, lat
  EXPECT_EQ(c.read(0x40, 4), 0u);                                // device-specific: none
}

TEST(PciConfig, ReadOnlyFieldsIgnoreWritesCommandKeepsImplementedBits) {
  fresh_simulation();
  PciConfig c(nic_like());
  c.write(PciConfig::VENDOR_ID, 4, 0);
  EXPECT_EQ(c.read(PciConfig::VENDOR_ID, 4), 0x813910ecu);
  c.write(PciConfig::COMMAND, 2, 0xffff);
  EXPECT_EQ(c.command(), 0x0007u);
  c.write(PciConfig::COMMAND, 1, 0x01);  // a byte write: I/O space only
  EXPECT_EQ(c.command(), 0x0001u);
}

TEST(PciConfig, StatusErrorBitsAreWriteOneToClear) {
  fresh_simulation();
  PciConfig c(nic_like());
  c.write(PciConfig::COMMAND, 4, 0xffff0000);        // a dword write: Status gets ones, Command 0
  EXPECT_EQ(c.read(PciConfig::STATUS, 2), 0x0200u);  // DEVSEL timing is read-only
  EXPECT_EQ(c.command(), 0u);
}

TEST(PciConfig, BarsReadBackTheirSizeAfterAllOnes) {
  fresh_simulation();
  PciConfig c(nic_like());
  EXPECT_EQ(c.read(PciConfig::BAR0, 4), 0x1u);  // I/O
  for (unsigned b = 0; b < 6; ++b) c.write(PciConfig::BAR0 + 4 * b, 4, 0xffffffff);
  EXPECT_EQ(c.read(PciConfig::BAR0, 4), 0xffffff01u);      // 256 bytes of I/O
  EXPECT_EQ(c.read(PciConfig::BAR0 + 4, 4), 0xfffe0000u);  // 128 KB of memory
  EXPECT_EQ(c.read(PciConfig::BAR0 + 8, 4), 0u);           // not implemented
  c.write(PciConfig::BAR0, 4, 0xe000);
  EXPECT_EQ(c.read(PciConfig::BAR0, 4), 0xe001u);
}

TEST(PciConfig, LatencyTimerIsSetByAConfigurationWrite) {
  fresh_simulation();
  PciConfig c(nic_like());
  EXPECT_EQ(c.latency_timer(), 0);  // PCI reset value
  c.set_latency_timer(32);
  EXPECT_EQ(c.read(PciConfig::LATENCY_TIMER, 1), 32u);
  c.write(PciConfig::CACHE_LINE_SIZE, 4, 0xff00f808);  // cache line 8, timer 248; BIST RO
  EXPECT_EQ(c.latency_timer(), 248);
  EXPECT_EQ(c.read(PciConfig::CACHE_LINE_SIZE, 4), 0x0000f808u);
}

TEST(PciConfig, MasterStartsWithTheBusWideDefaultAndIsFoundByName) {
  fresh_simulation();
  PciBus pci("pci");  // 33.33 MHz, latency timer 64, rotating arbiter
  PciConfig nic(nic_like());
  pci.add_master("nic", {}, &nic);
  EXPECT_EQ(nic.latency_timer(), 64);
  EXPECT_EQ(pci.function("nic"), &nic);
  EXPECT_EQ(pci.function("ide"), nullptr);
}

// Two masters on one bus, each with a long tenure: GNT# is taken away 10 clocks into
// a burst, and each keeps the bus until its own timer expires (PCI 2.1 3.5.4).
TEST(PciConfig, EachMasterReleasesTheBusWhenItsOwnTimerExpires) {
  fresh_simulation();
  PciBus pci("pci");  // 33.33 MHz, latency timer 64, rotating arbiter
  PciConfig fast(nic_like()), slow(nic_like());
  const int a = pci.add_master("fast", {}, &fast);
  const int b = pci.add_master("slow", {}, &slow);
  pci.function("fast")->set_latency_timer(16);  // setpci -s fast latency_timer=10 (hex)
  const sc_time sa = sc_time(10, SC_US), sb = sc_time(20, SC_US);
  pci.announce(train(a, sa, 4, 300, 256));
  pci.announce(train(b, sb, 4, 300, 256));
  const sc_time wait_a = pci.host_grant_time(sa + clocks(10)) - sa;
  const sc_time wait_b = pci.host_grant_time(sb + clocks(10)) - sb;
  EXPECT_EQ(wait_a, clocks(16 + 1 + kArbitrationClocks));
  EXPECT_EQ(wait_b, clocks(64 + 1 + kArbitrationClocks));  // the bus-wide default
  EXPECT_LT(wait_a, wait_b);
  // The bus reads the register at grant time: a later write takes effect at once.
  slow.write(PciConfig::LATENCY_TIMER, 1, 8);
  EXPECT_EQ(pci.host_grant_time(sb + clocks(2)) - sb, clocks(8 + 1 + kArbitrationClocks));
}

}  // namespace
}  // namespace latsim::pci
