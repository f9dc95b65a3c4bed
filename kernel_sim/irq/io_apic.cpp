// arch/i386/kernel/io_apic.c and i8259.c: programming the interrupt
// controllers. Every IO-APIC register access is an index write plus a data
// access through the MMIO window, so it pays the bus like any other cycle.
#include "kernel_sim/drivers/net/rtl8139.h"
#include "kernel_sim/drivers/sound/es1371.h"
#include "kernel_sim/kernel.h"

namespace latsim::kernel {
namespace {
constexpr uint64_t IO_APIC_BASE = 0xfec00000;
constexpr unsigned IO_APIC_REDTBL = 0x10;
constexpr uint32_t IO_APIC_MASKED = 1u << 16;
// ISA IRQ0 arrives on IO-APIC pin 2 (MP table interrupt source override).
unsigned irq_to_pin(unsigned irq) { return irq == 0 ? 2 : irq; }
constexpr uint32_t dest_LowestPrio = 1u << 8, IO_APIC_DEST_LOGICAL = 1u << 11;
// setup_IO_APIC_irqs: MPBIOS_polarity / MPBIOS_trigger of a PCI source (active low, level).
constexpr uint32_t IO_APIC_POLARITY_LOW = 1u << 13, IO_APIC_TRIGGER_LEVEL = 1u << 15;
}  // namespace

// The MP table lists the PCI devices' INTx# lines (the ES1371's, the RTL8139's, the UHCI
// controllers') as PCI sources, level-triggered with kernel.pci_irq_trigger level; ISA's are edge.
bool Kernel::irq_level_triggered(unsigned irq) const {
  const bool pci = irq == Es1371Driver::kIrq || irq == Rtl8139Driver::kIrq || irq == p_.usb_irq;
  return pci && p_.pci_irq_level;
}

// One redirection entry, masked until request_irq unmasks it. Edge unless the MP
// table lists the IRQ as a PCI source (kernel.pci_irq_trigger: level).
// Both dwords under ioapic_lock, as setup_IO_APIC_irqs writes them: IOREGSEL is shared, and
// another CPU's read-modify-write of another entry must not land between an index and its data.
void Kernel::io_apic_entry(unsigned irq) {
  const unsigned reg = IO_APIC_REDTBL + 2 * irq_to_pin(irq);
  const uint32_t trig = irq_level_triggered(irq) ? IO_APIC_TRIGGER_LEVEL | IO_APIC_POLARITY_LOW : 0;
  // setup_IO_APIC_irqs (mach-default): logical destination TARGET_CPUS, the online CPUs'
  // flat LDR bits, arbitrated lowest priority on the APIC bus; else fixed to CPU0.
  const uint32_t online = (1u << unsigned(ncpus())) - 1;
  const uint32_t high = p_.irq_lowest_priority ? online << 24 : 0u;
  const uint32_t low = p_.irq_lowest_priority ? dest_LowestPrio | IO_APIC_DEST_LOGICAL : 0u;
  const bool flags = spin_lock_irqsave(ioapic_lock_, "setup_IO_APIC_irqs");
  io_apic_write(reg + 1, high);
  io_apic_write(reg, irq_vector(irq) | low | IO_APIC_MASKED | trig);
  spin_unlock_irqrestore(ioapic_lock_, flags, {"setup_IO_APIC_irqs", "unlock"});
}

uint32_t Kernel::io_apic_read(unsigned reg) {
  writel(reg, IO_APIC_BASE);
  return readl(IO_APIC_BASE + 0x10);
}

void Kernel::io_apic_write(unsigned reg, uint32_t v) {
  writel(reg, IO_APIC_BASE);
  writel(v, IO_APIC_BASE + 0x10);
}

void Kernel::init_8259A() {
  // i8259.c init_8259A(): mask all, ICW1-4 for master and slave, mask all again
  // (with the IO-APIC in use the 8259As stay masked).
  outb(0xff, 0x21);
  outb(0xff, 0xa1);
  outb_p(0x11, 0x20);
  outb_p(0x20, 0x21);
  outb_p(0x04, 0x21);
  outb_p(0x01, 0x21);
  outb_p(0x11, 0xa0);
  outb_p(0x28, 0xa1);
  outb_p(0x02, 0xa1);
  outb_p(0x01, 0xa1);
  outb(0xff, 0x21);
  outb(0xff, 0xa1);
}

void Kernel::setup_pit() {
  // time_init -> setup_pit_timer: channel 0, LSB then MSB, mode 2, LATCH.
  const unsigned latch = (1193182u + unsigned(p_.hz) / 2) / unsigned(p_.hz);
  outb_p(0x34, 0x43);
  outb_p(uint8_t(latch & 0xff), 0x40);
  outb(uint8_t(latch >> 8), 0x40);
}

void Kernel::setup_io_apic() {
  init_8259A();
  for (unsigned irq : {0u, 14u}) io_apic_entry(irq);  // setup_IO_APIC_irqs
  if (p_.nmi_watchdog) {
    // nmi_watchdog=1: the timer's other path (pin 0) goes to every CPU as NMI.
    io_apic_write(IO_APIC_REDTBL + 1, 0xffu << 24);
    io_apic_write(IO_APIC_REDTBL, (4u << 8) | 2u);
  }
}

void Kernel::io_apic_route(unsigned irq) {
  if (io_apic_routed_ & (1u << irq)) return;
  io_apic_routed_ |= 1u << irq;
  io_apic_entry(irq);
}

void Kernel::io_apic_modify(unsigned irq, bool mask, const char* parent) {
  const char* outer = mask ? "mask_IO_APIC_irq" : "unmask_IO_APIC_irq";
  const char* inner = mask ? "__mask_IO_APIC_irq" : "__unmask_IO_APIC_irq";
  fn(outer, parent, 20);
  const bool flags = spin_lock_irqsave(ioapic_lock_, outer);
  fn(inner, outer, 20);
  fn("__modify_IO_APIC_irq", inner, 40);
  const unsigned reg = IO_APIC_REDTBL + 2 * irq_to_pin(irq);
  uint32_t v = io_apic_read(reg);
  v = mask ? (v | IO_APIC_MASKED) : (v & ~IO_APIC_MASKED);
  // io_apic_modify: the read left IOREGSEL set, so only the data is written
  // (sis_apic_bug is 0 after io_apic_bug_finalize on a non-SiS board).
  writel(v, IO_APIC_BASE + 0x10);
  if (mask) readl(IO_APIC_BASE + 0x10);  // __mask_IO_APIC_irq's io_apic_sync dummy read
  spin_unlock_irqrestore(ioapic_lock_, flags, {outer, "unlock"});
}

}  // namespace latsim::kernel
