// APIC bus hub: physical/logical/broadcast routing and the simplified lowest-priority
// arbitration, fed by an IO-APIC entry programmed as Linux 2.6.9 does on a dual P6.
#include "models/cpu/local_apic.h"
#include "models/irq/apic_bus.h"
#include "models/irq/ioapic.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>
#include <vector>

namespace latsim::irq {
namespace {

using latsim::testing::fresh_simulation;

struct TwoCpus {
  cpu::LocalApic cpu0{"cpu0", 0}, cpu1{"cpu1", 1};
  ApicBusHub hub;
  explicit TwoCpus(LowestPriorityPolicy p = LowestPriorityPolicy::LowestId)
      : hub(ApicBusParams{p}) {
    hub.attach(0, cpu0);
    hub.attach(1, cpu1);
    cpu0.write(cpu::LocalApic::APIC_LDR, 0x01000000);  // init_apic_ldr: 1 << cpu
    cpu1.write(cpu::LocalApic::APIC_LDR, 0x02000000);
  }
};

TEST(ApicBusHub, PhysicalLogicalAndBroadcast) {
  fresh_simulation();
  TwoCpus m;
  m.hub.deliver(1, 0x31, DeliveryMode::Fixed);
  EXPECT_TRUE(m.cpu1.irr(0x31));
  EXPECT_FALSE(m.cpu0.irr(0x31));
  m.hub.deliver(0xFF, 0x41, DeliveryMode::Fixed);
  EXPECT_TRUE(m.cpu0.irr(0x41) && m.cpu1.irr(0x41));
  m.hub.deliver_logical(0x02, 0x51, DeliveryMode::Fixed);
  EXPECT_TRUE(m.cpu1.irr(0x51));
  EXPECT_FALSE(m.cpu0.irr(0x51));
  m.hub.deliver(7, 0x61, DeliveryMode::Fixed);
  EXPECT_EQ(m.hub.dropped(), 1u);
  m.hub.deliver_logical(0x03, 0, DeliveryMode::Nmi);
  EXPECT_TRUE(m.cpu0.nmi_pending() && m.cpu1.nmi_pending());
}

TEST(ApicBusHub, LowestPriorityFromIoApic) {
  fresh_simulation();
  TwoCpus m;
  IoApic ioapic("ioapic");
  ioapic.connect(m.hub);
  ioapic.write(IoApic::IOREGSEL, 0x10 + 2 * 14);
  ioapic.write(IoApic::IOWIN, (1u << 8) | (1u << 11) | 0x79);  // lowest prio, logical
  ioapic.write(IoApic::IOREGSEL, 0x11 + 2 * 14);
  ioapic.write(IoApic::IOWIN, 0x03000000);
  ioapic.irq_set(14, true);
  EXPECT_TRUE(m.cpu0.irr(0x79));  // equal TPRs: the lowest APIC ID
  EXPECT_FALSE(m.cpu1.irr(0x79));
  m.cpu0.write(cpu::LocalApic::APIC_TASKPRI, 0x20);
  ioapic.irq_set(14, false);
  ioapic.irq_set(14, true);
  EXPECT_TRUE(m.cpu1.irr(0x79));  // CPU1 now has the lower TPR
}

TEST(ApicBusHub, RoundRobinPolicyRotates) {
  fresh_simulation();
  TwoCpus m(ApicBusHub::LowestPriorityPolicy::RoundRobin);
  std::vector<unsigned> winners;
  for (int i = 0; i < 4; ++i) {
    m.hub.deliver_logical(0x03, 0x79, DeliveryMode::LowestPriority);
    winners.push_back(m.cpu0.irr(0x79) ? 0 : 1);
    if (m.cpu0.irr(0x79)) m.cpu0.ack(), m.cpu0.eoi();
    if (m.cpu1.irr(0x79)) m.cpu1.ack(), m.cpu1.eoi();
  }
  EXPECT_EQ(winners, (std::vector<unsigned>{0, 1, 0, 1}));
}

// An IPI is an ICR write on the sending APIC: ICR2 holds the destination, ICR the
// vector and mode (send_IPI_mask_bitmask, as flush_tlb_others uses it).
TEST(ApicBusHub, IcrWriteSendsAnIpiToTheDestinationApic) {
  fresh_simulation();
  TwoCpus m;
  m.cpu0.set_ipi_bus(&m.hub);
  m.cpu1.set_ipi_bus(&m.hub);
  m.cpu0.write(cpu::LocalApic::APIC_ICR2, 1u << 24);
  m.cpu0.write(cpu::LocalApic::APIC_ICR, 0xfd);  // INVALIDATE_TLB_VECTOR, fixed, physical
  EXPECT_TRUE(m.cpu1.irr(0xfd));
  EXPECT_FALSE(m.cpu0.irr(0xfd));
  EXPECT_EQ(m.cpu0.read(cpu::LocalApic::APIC_ICR) & (1u << 12), 0u);  // delivery idle
  EXPECT_EQ(m.cpu0.ipis_sent(), 1u);
  // The receiver acknowledges only by taking it: ack moves it to ISR, EOI retires it.
  m.cpu1.write(cpu::LocalApic::APIC_SPIV, 0x1ff);
  EXPECT_TRUE(m.cpu1.has_deliverable());
  EXPECT_EQ(m.cpu1.ack(), 0xfdu);
  EXPECT_TRUE(m.cpu1.isr(0xfd));
  m.cpu1.eoi();
  EXPECT_FALSE(m.cpu1.isr(0xfd));
  // NMI mode (4 << 8) and logical destination (bit 11): CPU0 via its LDR.
  m.cpu1.write(cpu::LocalApic::APIC_ICR2, 0x01u << 24);
  m.cpu1.write(cpu::LocalApic::APIC_ICR, (1u << 11) | (4u << 8) | 0x02);
  EXPECT_TRUE(m.cpu0.nmi_pending());
  // Shorthand self (1 << 18).
  m.cpu1.write(cpu::LocalApic::APIC_ICR, (1u << 18) | 0xfc);
  EXPECT_TRUE(m.cpu1.irr(0xfc));
}

}  // namespace
}  // namespace latsim::irq
