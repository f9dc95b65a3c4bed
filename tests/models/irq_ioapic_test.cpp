// 82093AA IO-APIC programmed as Linux 2.6.9 io_apic.c does: entries written high
// dword first, __modify_IO_APIC_irq's read-modify-write through IOREGSEL/IOWIN.
#include "models/irq/ioapic.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>
#include <vector>

namespace latsim::irq {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;

struct Message {
  bool logical;
  unsigned dest, vector;
  DeliveryMode mode;
};

struct FakeApicBus : ApicBus {
  std::vector<Message> msgs;
  void deliver(unsigned dest, unsigned vector, DeliveryMode mode) override {
    msgs.push_back({false, dest, vector, mode});
  }
  void deliver_logical(unsigned mda, unsigned vector, DeliveryMode mode) override {
    msgs.push_back({true, mda, vector, mode});
  }
};

struct Board {
  IoApic ioapic{"ioapic"};
  TestInitiator bus{"bus"};
  FakeApicBus apic_bus;
  sc_time delay = SC_ZERO_TIME;
  Board() {
    bus.socket.bind(ioapic.socket);
    ioapic.connect(apic_bus);
  }
  // io_apic_read / io_apic_write / io_apic_modify
  uint32_t io_apic_read(unsigned reg) {
    bus.write32(IoApic::IOREGSEL, reg, delay);
    return bus.read32(IoApic::IOWIN, delay);
  }
  void io_apic_write(unsigned reg, uint32_t v) {
    bus.write32(IoApic::IOREGSEL, reg, delay);
    bus.write32(IoApic::IOWIN, v, delay);
  }
  void io_apic_modify(uint32_t v) { bus.write32(IoApic::IOWIN, v, delay); }
  // __modify_IO_APIC_irq(irq, enable, disable) for one pin.
  void modify(unsigned pin, uint32_t enable, uint32_t disable) {
    uint32_t reg = io_apic_read(0x10 + pin * 2);
    reg &= ~disable;
    reg |= enable;
    io_apic_modify(reg);
  }
  // setup_IO_APIC_irqs: high dword (destination) first, then the low dword.
  void program(unsigned pin, uint32_t lo, uint8_t dest) {
    io_apic_write(0x11 + pin * 2, uint32_t(dest) << 24);
    io_apic_write(0x10 + pin * 2, lo);
  }
};

// dest_LowestPrio (1 << 8) | logical destination mode (1 << 11), as with flat APIC mode.
constexpr uint32_t kLinuxIsa = (1u << 8) | (1u << 11);
constexpr uint32_t kLinuxPci = kLinuxIsa | IoApic::kPolarityLow | IoApic::kLevelTrigger;

TEST(IoApic, ResetStateAndIdentification) {
  fresh_simulation();
  Board b;
  EXPECT_EQ(b.io_apic_read(IoApic::IOAPICID), 2u << 24);
  EXPECT_EQ(b.io_apic_read(IoApic::IOAPICVER), 0x00170011u);  // 24 entries, version 0x11
  EXPECT_EQ(b.io_apic_read(IoApic::IOAPICARB), 2u << 24);
  for (unsigned n = 0; n < IoApic::kEntries; ++n) {
    EXPECT_EQ(b.io_apic_read(0x10 + 2 * n), IoApic::kMask) << n;
    EXPECT_EQ(b.io_apic_read(0x11 + 2 * n), 0u) << n;
  }
  b.io_apic_write(IoApic::IOAPICVER, 0);  // read-only
  EXPECT_EQ(b.io_apic_read(IoApic::IOAPICVER), 0x00170011u);
  EXPECT_EQ(b.bus.read32(IoApic::IOREGSEL, b.delay), unsigned(IoApic::IOAPICVER));
}

TEST(IoApic, EdgeDeliveryAsLinuxProgramsIt) {
  fresh_simulation();
  Board b;
  b.program(14, kLinuxIsa | 0x79, 0x03);  // IRQ14: vector 0x79 to CPUs 0 and 1
  EXPECT_EQ(b.io_apic_read(0x10 + 28), kLinuxIsa | 0x79);
  EXPECT_EQ(b.io_apic_read(0x11 + 28), 0x03000000u);
  EXPECT_EQ(b.ioapic.entry(14), (uint64_t(0x03) << 56) | kLinuxIsa | 0x79);
  b.ioapic.irq_set(14, true);
  b.ioapic.irq_set(14, true);  // no new edge
  b.ioapic.irq_set(14, false);
  ASSERT_EQ(b.apic_bus.msgs.size(), 1u);
  EXPECT_TRUE(b.apic_bus.msgs[0].logical);
  EXPECT_EQ(b.apic_bus.msgs[0].dest, 0x03u);
  EXPECT_EQ(b.apic_bus.msgs[0].vector, 0x79u);
  EXPECT_EQ(b.apic_bus.msgs[0].mode, DeliveryMode::LowestPriority);
  // Physical destination, fixed delivery, NMI, ExtINT.
  b.program(0, 0x31, 1);
  b.program(1, (4u << 8), 0);
  b.program(2, (7u << 8), 0);
  b.ioapic.irq_set(0, true);
  b.ioapic.irq_set(1, true);
  b.ioapic.irq_set(2, true);
  ASSERT_EQ(b.apic_bus.msgs.size(), 4u);
  EXPECT_FALSE(b.apic_bus.msgs[1].logical);
  EXPECT_EQ(b.apic_bus.msgs[1].dest, 1u);
  EXPECT_EQ(b.apic_bus.msgs[1].vector, 0x31u);
  EXPECT_EQ(b.apic_bus.msgs[1].mode, DeliveryMode::Fixed);
  EXPECT_EQ(b.apic_bus.msgs[2].mode, DeliveryMode::Nmi);
  EXPECT_EQ(b.apic_bus.msgs[3].mode, DeliveryMode::ExtInt);
  EXPECT_EQ(b.ioapic.deliveries(14), 1u);
}

TEST(IoApic, MaskedEdgeIsLost) {
  fresh_simulation();
  Board b;
  b.program(14, kLinuxIsa | IoApic::kMask | 0x79, 0x03);
  b.ioapic.irq_set(14, true);
  EXPECT_TRUE(b.apic_bus.msgs.empty());
  b.modify(14, 0, IoApic::kMask);        // unmask_IO_APIC_irq
  EXPECT_TRUE(b.apic_bus.msgs.empty());  // not latched while masked
  b.ioapic.irq_set(14, false);
  b.ioapic.irq_set(14, true);
  EXPECT_EQ(b.apic_bus.msgs.size(), 1u);
}

TEST(IoApic, LevelRemoteIrrSemantics) {
  fresh_simulation();
  Board b;
  b.program(16, kLinuxPci | 0x81, 0x03);  // PCI INTA#: level, active low
  b.ioapic.irq_set(16, true);
  ASSERT_EQ(b.apic_bus.msgs.size(), 1u);
  EXPECT_TRUE(b.io_apic_read(0x10 + 32) & IoApic::kRemoteIrr);
  b.ioapic.irq_set(16, true);
  b.ioapic.eoi(0x79);  // another vector: no effect
  EXPECT_EQ(b.apic_bus.msgs.size(), 1u);
  b.ioapic.eoi(0x81);  // still asserted: delivered again
  EXPECT_EQ(b.apic_bus.msgs.size(), 2u);
  EXPECT_TRUE(b.io_apic_read(0x10 + 32) & IoApic::kRemoteIrr);
  b.ioapic.irq_set(16, false);
  b.ioapic.eoi(0x81);
  EXPECT_EQ(b.apic_bus.msgs.size(), 2u);
  EXPECT_FALSE(b.io_apic_read(0x10 + 32) & IoApic::kRemoteIrr);
  // Remote IRR is read-only; a masked asserted level is delivered on unmask.
  b.io_apic_write(0x10 + 32, kLinuxPci | IoApic::kMask | IoApic::kRemoteIrr | 0x81);
  EXPECT_FALSE(b.io_apic_read(0x10 + 32) & IoApic::kRemoteIrr);
  b.ioapic.irq_set(16, true);
  EXPECT_EQ(b.apic_bus.msgs.size(), 2u);
  b.modify(16, 0, IoApic::kMask);
  EXPECT_EQ(b.apic_bus.msgs.size(), 3u);
}

TEST(IoApic, ModifyIrqReadModifyWriteThroughWindow) {
  fresh_simulation();
  Board b;
  b.ioapic.access_latency = sc_time(1, SC_US);
  b.program(14, kLinuxIsa | 0x79, 0x03);
  b.delay = SC_ZERO_TIME;
  b.modify(14, IoApic::kMask, 0);  // mask_IO_APIC_irq: 3 accesses
  EXPECT_EQ(b.delay, sc_time(3, SC_US));
  EXPECT_EQ(b.ioapic.entry(14), (uint64_t(0x03) << 56) | kLinuxIsa | IoApic::kMask | 0x79);
  b.modify(14, 0, IoApic::kMask);
  EXPECT_EQ(b.ioapic.entry(14), (uint64_t(0x03) << 56) | kLinuxIsa | 0x79);
  uint8_t byte = 0;
  EXPECT_EQ(b.bus.access(tlm::TLM_READ_COMMAND, IoApic::IOWIN, &byte, 1, b.delay),
            tlm::TLM_BURST_ERROR_RESPONSE);
  uint32_t word = 0;
  EXPECT_EQ(b.bus.access(tlm::TLM_READ_COMMAND, 0x20, &word, 4, b.delay),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

TEST(IoApic, XbusWindowCostsFourByteCyclesPerDword) {
  // 82093AA 3.0: 8-bit X-bus data, so each 32-bit IOREGSEL/IOWIN access is four
  // byte cycles; 2.6.9's unmask (index write, data read, data write) is twelve.
  fresh_simulation();
  Board b;
  b.ioapic.xbus_cycle = sc_time(1000, SC_NS);
  b.program(14, kLinuxIsa | 0x79, 0x03);
  b.delay = SC_ZERO_TIME;
  b.modify(14, 0, IoApic::kMask);
  EXPECT_EQ(b.delay, sc_time(12, SC_US));
  b.delay = SC_ZERO_TIME;
  b.io_apic_read(0x10 + 14 * 2);
  EXPECT_EQ(b.delay, sc_time(8, SC_US));
  b.ioapic.xbus_cycle = SC_ZERO_TIME;  // pci: the window adds nothing of its own
  b.delay = SC_ZERO_TIME;
  b.modify(14, 0, IoApic::kMask);
  EXPECT_EQ(b.delay, SC_ZERO_TIME);
}

}  // namespace
}  // namespace latsim::irq
