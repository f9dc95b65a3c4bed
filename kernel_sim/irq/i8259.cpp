// arch/i386/kernel/i8259.c (2.4): the interrupt path of a board without an IO-APIC.
// Each IRQ is masked and acknowledged at the 8259A on entry (mask_and_ack_8259A:
// the IMR rewritten and a specific EOI, each an ISA I/O cycle through the PCI-ISA
// bridge) and unmasked again when its handler is done (end_8259A_irq).
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::init_8259A_irqs() {
  // init_8259A() ends by restoring cached_irq_mask: everything masked but the cascade.
  cached_irq_mask_ = 0xfffb;
  outb(uint8_t(cached_irq_mask_), 0x21);
  outb(uint8_t(cached_irq_mask_ >> 8), 0xa1);
}

void Kernel::set_8259A_mask(unsigned irq, bool mask, const char* parent) {
  fn(mask ? "disable_8259A_irq" : "enable_8259A_irq", parent, 20);
  const bool flags =
      spin_lock_irqsave(i8259A_lock_, mask ? "disable_8259A_irq" : "enable_8259A_irq");
  if (mask)
    cached_irq_mask_ |= uint16_t(1u << irq);
  else
    cached_irq_mask_ &= uint16_t(~(1u << irq));
  if (irq & 8)
    outb(uint8_t(cached_irq_mask_ >> 8), 0xa1);
  else
    outb(uint8_t(cached_irq_mask_), 0x21);
  spin_unlock_irqrestore(i8259A_lock_, flags,
                         {mask ? "disable_8259A_irq" : "enable_8259A_irq", "unlock"});
}

// Careful with the slave: mask it, then a specific EOI to it and one for the cascade
// line (IR2) to the master. "DUMMY - (do we need this?)": the IMR read stays.
void Kernel::mask_and_ack_8259A(unsigned irq, const char* parent) {
  fn("mask_and_ack_8259A", parent, 30);
  const bool flags = spin_lock_irqsave(i8259A_lock_, "mask_and_ack_8259A");
  cached_irq_mask_ |= uint16_t(1u << irq);
  if (irq & 8) {
    (void)inb(0xa1);
    outb(uint8_t(cached_irq_mask_ >> 8), 0xa1);
    outb(uint8_t(0x60 + (irq & 7)), 0xa0);  // specific EOI to the slave
    outb(0x62, 0x20);                       // specific EOI to the master's IR2
  } else {
    (void)inb(0x21);
    outb(uint8_t(cached_irq_mask_), 0x21);
    outb(uint8_t(0x60 + irq), 0x20);
  }
  spin_unlock_irqrestore(i8259A_lock_, flags, {"mask_and_ack_8259A", "unlock"});
}

}  // namespace latsim::kernel
