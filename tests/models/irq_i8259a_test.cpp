// Intel 8259A pair as Linux 2.6.9 drives it (arch/i386/kernel/i8259.c):
// init_8259A, mask_and_ack_8259A, i8259A_irq_real, plus priority, cascade and poll.
#include "models/irq/i8259a.h"
#include "tests/models/irq_timer_test_util.h"

#include <gtest/gtest.h>

namespace latsim::irq {
namespace {

using latsim::testing::fresh_simulation;
using latsim::testing::TestInitiator;

struct IntrProbe : IrqSink {
  bool level = false;
  unsigned rises = 0;
  void irq_set(unsigned, bool l) override {
    if (l && !level) ++rises;
    level = l;
  }
};

// Master at 0x20/0x21, slave at 0xA0/0xA1 cascaded on IR2, as on a PC.
struct Pics {
  I8259A master{"master"}, slave{"slave"};
  TestInitiator bus_m{"bus_m"}, bus_s{"bus_s"};
  IntrProbe cpu;
  Pics() {
    bus_m.socket.bind(master.socket);
    bus_s.socket.bind(slave.socket);
    slave.intr.connect(master, 2);
    master.set_slave(2, slave);
    master.intr.connect(cpu, 0);
  }
  // init_8259A(auto_eoi = 0)
  void linux_init() {
    master.write(1, 0xff);  // mask all of 8259A-1
    slave.write(1, 0xff);   // mask all of 8259A-2
    master.write(0, 0x11);  // ICW1: select 8259A-1 init
    master.write(1, 0x20);  // ICW2: IR0-7 mapped to 0x20-0x27
    master.write(1, 0x04);  // ICW3: slave on IR2
    master.write(1, 0x01);  // ICW4: normal EOI
    slave.write(0, 0x11);
    slave.write(1, 0x28);  // IR0-7 mapped to 0x28-0x2f
    slave.write(1, 0x02);  // slave ID 2
    slave.write(1, 0x01);
  }
  void mask_and_ack(unsigned irq, uint16_t& cached_mask) {
    cached_mask |= uint16_t(1u << irq);
    if (irq & 8) {
      (void)slave.read(1);  // DUMMY - (do we need this?)
      slave.write(1, uint8_t(cached_mask >> 8));
      slave.write(0, uint8_t(0x60 + (irq & 7)));  // specific EOI to slave
      master.write(0, 0x60 + 2);                  // specific EOI to master IRQ2
    } else {
      (void)master.read(1);
      master.write(1, uint8_t(cached_mask));
      master.write(0, uint8_t(0x60 + irq));
    }
  }
  // i8259A_irq_real(): is the IRQ really in service (not spurious)?
  bool irq_real(unsigned irq) {
    I8259A& pic = irq < 8 ? master : slave;
    pic.write(0, 0x0B);  // ISR register
    const bool real = pic.read(0) & (1u << (irq & 7));
    pic.write(0, 0x0A);  // back to the IRR register
    return real;
  }
};

TEST(I8259A, LinuxInitSequence) {
  fresh_simulation();
  Pics p;
  EXPECT_FALSE(p.master.initialized());
  p.linux_init();
  EXPECT_TRUE(p.master.initialized());
  EXPECT_TRUE(p.slave.initialized());
  EXPECT_EQ(p.master.vector_base(), 0x20);
  EXPECT_EQ(p.slave.vector_base(), 0x28);
  EXPECT_EQ(p.master.imr(), 0x00);  // ICW1 clears the IMR
  p.master.write(1, 0xfb);          // cached_21 with the cascade enabled
  p.slave.write(1, 0xff);
  EXPECT_EQ(p.master.read(1), 0xfb);
  EXPECT_EQ(p.slave.read(1), 0xff);
  EXPECT_EQ(p.master.read(0), 0x00);  // IRR is selected after init
  EXPECT_FALSE(p.cpu.level);
}

TEST(I8259A, EdgeLatchAndMasking) {
  fresh_simulation();
  Pics p;
  p.linux_init();
  p.master.write(1, 0xff);
  p.master.irq_set(0, true);
  p.master.irq_set(0, false);  // PIT pulse: the edge stays latched in IRR
  EXPECT_EQ(p.master.irr(), 0x01);
  EXPECT_FALSE(p.cpu.level);  // masked: IRR set but INT not raised
  p.master.write(1, 0xfe);
  EXPECT_TRUE(p.cpu.level);
  EXPECT_EQ(p.master.inta(), 0x20u);
  EXPECT_EQ(p.master.isr(), 0x01);
  EXPECT_EQ(p.master.irr(), 0x00);  // INTA resets the edge-sense latch
  EXPECT_FALSE(p.cpu.level);
  p.master.irq_set(0, true);  // next edge while IR0 is in service: waits
  EXPECT_FALSE(p.cpu.level);
  p.master.write(0, 0x20);  // non-specific EOI
  EXPECT_TRUE(p.cpu.level);
}

TEST(I8259A, FullyNestedPriority) {
  fresh_simulation();
  Pics p;
  p.linux_init();
  p.master.irq_set(3, true);
  p.master.irq_set(1, true);
  EXPECT_EQ(p.master.inta(), 0x21u);  // IR1 beats IR3
  EXPECT_FALSE(p.cpu.level);          // IR3 is lower than the in-service IR1
  p.master.irq_set(0, true);
  EXPECT_TRUE(p.cpu.level);  // IR0 is higher: nests
  EXPECT_EQ(p.master.inta(), 0x20u);
  EXPECT_EQ(p.master.isr(), 0x03);
  p.master.write(0, 0x60);  // specific EOI IR0
  EXPECT_EQ(p.master.isr(), 0x02);
  EXPECT_FALSE(p.cpu.level);
  p.master.write(0, 0x61);  // specific EOI IR1
  EXPECT_EQ(p.master.isr(), 0x00);
  EXPECT_TRUE(p.cpu.level);
  EXPECT_EQ(p.master.inta(), 0x23u);
  // Specific EOI clears only the named level, not the highest one.
  p.master.irq_set(1, false);
  p.master.irq_set(1, true);
  EXPECT_EQ(p.master.inta(), 0x21u);
  EXPECT_EQ(p.master.isr(), 0x0A);
  p.master.write(0, 0x63);
  EXPECT_EQ(p.master.isr(), 0x02);
}

TEST(I8259A, RotateOnNonSpecificEoi) {
  fresh_simulation();
  Pics p;
  p.linux_init();
  p.master.irq_set(1, true);
  EXPECT_EQ(p.master.inta(), 0x21u);
  p.master.write(0, 0xA0);  // rotate on non-specific EOI: IR1 becomes lowest
  p.master.irq_set(1, false);
  p.master.irq_set(1, true);
  p.master.irq_set(3, true);
  EXPECT_EQ(p.master.inta(), 0x23u);  // IR2 is now highest, then IR3 ... IR1 last
}

TEST(I8259A, CascadeDeliversIrq14ThroughIr2) {
  fresh_simulation();
  Pics p;
  p.linux_init();
  p.master.write(1, 0xfb);
  p.slave.write(1, 0xbf);  // IRQ14 unmasked
  p.slave.irq_set(6, true);
  EXPECT_EQ(p.slave.irr(), 0x40);
  EXPECT_EQ(p.master.irr(), 0x04);  // the slave's INT is the master's IR2
  EXPECT_TRUE(p.cpu.level);
  EXPECT_EQ(p.master.inta(), 0x2Eu);
  EXPECT_EQ(p.master.isr(), 0x04);
  EXPECT_EQ(p.slave.isr(), 0x40);
  EXPECT_FALSE(p.cpu.level);
  EXPECT_TRUE(p.irq_real(14));
  EXPECT_FALSE(p.irq_real(15));
  p.slave.write(0, 0x66);
  p.master.write(0, 0x62);
  EXPECT_EQ(p.master.isr(), 0x00);
  EXPECT_EQ(p.slave.isr(), 0x00);
}

TEST(I8259A, MaskAndAckLeavesExpectedState) {
  fresh_simulation();
  Pics p;
  p.linux_init();
  uint16_t cached_mask = 0xffff & ~(1u << 2) & ~(1u << 14) & ~(1u << 0);
  p.master.write(1, uint8_t(cached_mask));
  p.slave.write(1, uint8_t(cached_mask >> 8));
  // IRQ14: INTA, then do_IRQ -> mask_and_ack_8259A(14).
  p.slave.irq_set(6, true);
  EXPECT_EQ(p.master.inta(), 0x2Eu);
  p.mask_and_ack(14, cached_mask);
  EXPECT_EQ(p.slave.imr(), 0xff);
  EXPECT_EQ(p.slave.isr(), 0x00);
  EXPECT_EQ(p.master.isr(), 0x00);
  EXPECT_EQ(p.master.imr(), 0xfa);
  EXPECT_EQ(p.slave.read(0), 0x00);  // IRR read back after the ISR peek
  // A new request while masked is latched but not signalled...
  p.slave.irq_set(6, false);
  p.slave.irq_set(6, true);
  EXPECT_EQ(p.slave.irr(), 0x40);
  EXPECT_FALSE(p.cpu.level);
  // ...until end_8259A_irq -> enable_8259A_irq unmasks it.
  cached_mask &= uint16_t(~(1u << 14));
  p.slave.write(1, uint8_t(cached_mask >> 8));
  EXPECT_TRUE(p.cpu.level);
  // IRQ0: three port accesses on the master.
  p.master.irq_set(0, true);
  EXPECT_EQ(p.master.inta(), 0x20u);  // IR0 before the pending IR2
  EXPECT_FALSE(p.cpu.level);          // IR2 waits below the in-service IR0
  p.mask_and_ack(0, cached_mask);
  EXPECT_EQ(p.master.isr(), 0x00);
  EXPECT_EQ(p.master.imr(), 0xfb);
  EXPECT_TRUE(p.cpu.level);  // specific EOI of IR0 lets IRQ14 through
  EXPECT_EQ(p.master.inta(), 0x2Eu);
  EXPECT_EQ(p.master.isr(), 0x04);
}

TEST(I8259A, SpuriousIrq7WhenRequestGone) {
  fresh_simulation();
  Pics p;
  p.linux_init();
  p.master.irq_set(5, true);
  EXPECT_TRUE(p.cpu.level);
  p.master.write(1, 0x20);  // masked between INT and INTA
  EXPECT_EQ(p.master.inta(), 0x27u);
  EXPECT_EQ(p.master.isr(), 0x00);  // no ISR bit for a spurious IRQ7
  EXPECT_FALSE(p.irq_real(7));
  // Cascade: the master acknowledges IR2, the slave has nothing: spurious IRQ15.
  p.slave.write(1, 0x00);
  p.slave.irq_set(3, true);
  p.slave.write(1, 0xff);
  EXPECT_EQ(p.master.inta(), 0x2Fu);
  EXPECT_EQ(p.master.isr(), 0x04);
  EXPECT_EQ(p.slave.isr(), 0x00);
}

TEST(I8259A, PollCommand) {
  fresh_simulation();
  Pics p;
  p.linux_init();
  p.master.write(0, 0x0C);            // OCW3 poll
  EXPECT_EQ(p.master.read(0), 0x00);  // nothing pending
  p.master.irq_set(4, true);
  p.master.irq_set(6, true);
  p.master.write(0, 0x0C);
  EXPECT_EQ(p.master.read(0), 0x84);  // acknowledged as INTA would
  EXPECT_EQ(p.master.isr(), 0x10);
  EXPECT_EQ(p.master.irr(), 0x40);
  EXPECT_EQ(p.master.read(0), 0x40);  // poll consumed: back to the IRR read
}

TEST(I8259A, LevelModeFollowsInputAndAeoi) {
  fresh_simulation();
  Pics p;
  p.master.write(0, 0x19);  // ICW1: level triggered, cascade, ICW4
  p.master.write(1, 0x20);
  p.master.write(1, 0x04);
  p.master.write(1, 0x03);  // ICW4: AEOI, 8086
  p.master.irq_set(3, true);
  EXPECT_TRUE(p.cpu.level);
  p.master.irq_set(3, false);
  EXPECT_EQ(p.master.irr(), 0x00);  // level mode: IRR follows the input
  EXPECT_FALSE(p.cpu.level);
  p.master.irq_set(3, true);
  EXPECT_EQ(p.master.inta(), 0x23u);
  EXPECT_EQ(p.master.isr(), 0x00);  // AEOI: no in-service bit kept
  EXPECT_TRUE(p.cpu.level);         // still asserted and nothing in service
}

TEST(I8259A, BTransportAddsAccessLatency) {
  fresh_simulation();
  Pics p;
  p.master.access_latency = sc_time(1, SC_US);
  sc_time delay = SC_ZERO_TIME;
  p.bus_m.write8(0, 0x11, delay);
  p.bus_m.write8(1, 0x20, delay);
  p.bus_m.write8(1, 0x04, delay);
  p.bus_m.write8(1, 0x01, delay);
  p.bus_m.write8(1, 0x5a, delay);
  EXPECT_EQ(p.bus_m.read8(1, delay), 0x5a);
  EXPECT_EQ(delay, sc_time(6, SC_US));
  uint8_t v = 0;
  EXPECT_EQ(p.bus_m.access(tlm::TLM_READ_COMMAND, 2, &v, 1, delay),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

}  // namespace
}  // namespace latsim::irq
