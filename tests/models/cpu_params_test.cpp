// The CPU's declared knobs (platform.cpu.*): each round-trips, and the Pentium III runs
// on the values its table holds (clock, and a miss's DRAM latency).
#include "models/cpu/pentium3.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/params_test_util.h"
#include "tests/models/pci_traffic_fixtures.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>

namespace latsim::cpu {
namespace {

using latsim::test::Script;
using latsim::testing::expect_keys_round_trip;
using latsim::testing::fresh_simulation;
using latsim::testing::with;

TEST(CpuParams, KeysRoundTrip) { expect_keys_round_trip(cpu_keys()); }

TEST(CpuParams, Pentium3RunsOnTheDeclaredValues) {
  fresh_simulation();
  pci::PciBus pci{"pci"};
  latsim::testing::HoldingTarget device{"device", SC_ZERO_TIME};  // a bus needs a target
  pci.target_socket.bind(device.socket);
  chipset::Dram dram{1ull << 20};
  chipset::HostBridge hb{"hb", chipset::HostBridgeParams{}, pci, dram};
  LocalApic apic{"lapic", 0};
  Pentium3 p3("p3", 0, CpuParams{}, hb, apic);
  EXPECT_EQ(p3.period(), period_of_mhz(866));  // Pentium III 866
  const CpuParams slow =
      with(with(CpuParams{}, cpu_keys(), "mhz", "500"), cpu_keys(), "dram_latency_ns", "200");
  Pentium3 cpu("cpu", 1, slow, hb, apic);
  EXPECT_EQ(cpu.period(), period_of_mhz(500));
  sc_time done;
  Script s("s", [&] {
    Work w{0, 1};  // one cache-line miss on an idle bus
    cpu.run(w);
    done = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  EXPECT_EQ(done, sc_time(200, SC_NS));
  EXPECT_EQ(CpuParams{}.dram_latency(), sc_time(174, SC_NS));  // lmbench, CALIBRATION.md
}

}  // namespace
}  // namespace latsim::cpu
