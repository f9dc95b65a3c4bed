// PCI-to-ISA bridge: each access runs one 8-bit ISA cycle per byte, port 0x80
// is the POST/outb_p delay port, mapped devices see their own register offset,
// unclaimed ports float high.
#include "models/isa/pci_isa_bridge.h"
#include "models/pci/pci_bus.h"
#include "tests/models/irq_timer_test_util.h"
#include "tests/models/script_thread.h"

#include <gtest/gtest.h>
#include <functional>
#include <vector>

namespace latsim::isa {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;

struct IsaDevice : sc_core::sc_module {
  tlm_utils::simple_target_socket<IsaDevice> socket;
  std::vector<uint64_t> offsets;
  std::vector<uint8_t> written;
  uint8_t regs[4] = {0x11, 0x22, 0x33, 0x44};
  explicit IsaDevice(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_b_transport(this, &IsaDevice::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& p, sc_time&) {
    offsets.push_back(p.get_address());
    if (p.is_read())
      *p.get_data_ptr() = regs[p.get_address() & 3];
    else
      written.push_back(*p.get_data_ptr());
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

using latsim::test::Script;

PciIsaBridgeParams every(sc_time cycle) {
  PciIsaBridgeParams p;
  p.io_cycle_ns = double(to_ps(cycle)) / 1000;
  return p;
}

TEST(PciIsaBridge, EachByteCostsOneIsaCycle) {
  fresh_simulation();
  const sc_time cycle = sc_time(720, SC_NS);  // an 8.33 MHz ISA I/O cycle, 6 BCLKs
  PciIsaBridge bridge("isa", every(cycle));
  IsaDevice pit("pit");
  TestInitiator host("host");
  host.socket.bind(bridge.pci_socket);
  bridge.isa_socket.bind(pit.socket);
  bridge.map(0x40, 4, 0, "pit");
  sc_time d8, d16, d32;
  Script s("s", [&] {
    d8 = SC_ZERO_TIME;
    host.read8(0x40, d8);
    uint16_t w = 0;
    d16 = sc_time(5, SC_NS);
    host.access(tlm::TLM_READ_COMMAND, 0x40, &w, 2, d16);
    d32 = SC_ZERO_TIME;
    host.read32(0x40, d32);
  });
  sc_core::sc_start();
  EXPECT_EQ(d8, cycle * 1.0);
  EXPECT_EQ(d16, sc_time(5, SC_NS) + cycle * 2.0);  // inw: two 8-bit ISA cycles
  EXPECT_EQ(d32, cycle * 4.0);
  EXPECT_EQ(bridge.cycles(), 1u + 2u + 4u);
  EXPECT_EQ(bridge.io_cycle(), cycle);
}

TEST(PciIsaBridge, Port80WriteIsADelayAndReadsBack) {
  fresh_simulation();
  const sc_time cycle = sc_time(1, SC_US);
  PciIsaBridge bridge("isa", every(cycle));
  IsaDevice pit("pit");
  TestInitiator host("host");
  host.socket.bind(bridge.pci_socket);
  bridge.isa_socket.bind(pit.socket);
  bridge.map(0x40, 4, 0, "pit");
  sc_time dw, dr;
  uint8_t back = 0;
  Script s("s", [&] {
    dw = SC_ZERO_TIME;
    host.write8(0x80, 0x5a, dw);  // outb_p's delay write
    dr = SC_ZERO_TIME;
    back = host.read8(0x80, dr);
  });
  sc_core::sc_start();
  EXPECT_EQ(dw, cycle);
  EXPECT_EQ(dr, cycle);
  EXPECT_EQ(bridge.post_code(), 0x5a);
  EXPECT_EQ(back, 0x5a);
  EXPECT_TRUE(pit.offsets.empty());
}

TEST(PciIsaBridge, DecodesToMappedDeviceWithOffset) {
  fresh_simulation();
  const sc_time cycle = sc_time(1, SC_US);
  PciIsaBridge bridge("isa", every(cycle));
  IsaDevice pit("pit"), pic("pic");
  TestInitiator host("host");
  host.socket.bind(bridge.pci_socket);
  bridge.isa_socket.bind(pit.socket);  // 0
  bridge.isa_socket.bind(pic.socket);  // 1
  bridge.map(0x40, 4, 0, "pit");
  bridge.map(0xa0, 2, 1, "pic-slave");
  uint8_t ch2 = 0, imr = 0, unclaimed = 0;
  uint32_t written = 0xcafe0003;
  Script s("s", [&] {
    sc_time d = SC_ZERO_TIME;
    ch2 = host.read8(0x42, d);         // PIT channel 2: offset 2
    host.write8(0x43, 0xb6, d);        // PIT mode register: offset 3
    imr = host.read8(0xa1, d);         // slave 8259A IMR: offset 1
    unclaimed = host.read8(0x2f8, d);  // nothing there (no COM2)
    host.access(tlm::TLM_WRITE_COMMAND, 0x2f8, &written, 1, d);
  });
  sc_core::sc_start();
  EXPECT_EQ(pit.offsets, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(pit.written, (std::vector<uint8_t>{0xb6}));
  EXPECT_EQ(ch2, 0x33);
  EXPECT_EQ(pic.offsets, (std::vector<uint64_t>{1}));
  EXPECT_EQ(imr, 0x22);
  EXPECT_EQ(unclaimed, 0xff);
  EXPECT_EQ(written, 0xcafe0003u);  // a write's data is never modified by the target
  EXPECT_EQ(bridge.cycles(), 5u);   // unclaimed ports still run the ISA cycle
}

TEST(PciIsaBridge, PortReadThroughPciBusPaysPciCycleThenIsaCycle) {
  fresh_simulation();
  const sc_time cycle = sc_time(1, SC_US);
  pci::PciBus pci{"pci"};
  PciIsaBridge bridge("isa", every(cycle));
  IsaDevice pit("pit");
  TestInitiator host("host");
  host.socket.bind(pci.host_socket);
  pci.target_socket.bind(bridge.pci_socket);
  pci.map(io_addr(0), 0x400, 0, "isa", 2);  // subtractive decode of the legacy range
  bridge.isa_socket.bind(pit.socket);
  bridge.map(0x40, 4, 0, "pit");
  sc_time d;
  uint8_t v = 0;
  Script s("s", [&] {
    d = SC_ZERO_TIME;
    v = host.read8(io_addr(0x40), d);  // inb(PIT_CH0)
  });
  sc_core::sc_start();
  EXPECT_EQ(v, 0x11);
  EXPECT_EQ(pit.offsets, (std::vector<uint64_t>{0}));
  EXPECT_EQ(d, pci.clock() * double(3 + 2) + cycle);  // PCI cycle + one ISA cycle
}

}  // namespace
}  // namespace latsim::isa
