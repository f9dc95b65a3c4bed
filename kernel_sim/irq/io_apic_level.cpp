// arch/i386/kernel/io_apic.c, ioapic_level_type: a level-triggered PCI line in
// do_IRQ. Vanilla 2.6.9 acks nothing and sends the EOI in end_level_ioapic_irq after
// the handlers (after reading the TMR for the mis-routed-edge workaround). The VP
// patch (CONFIG_PREEMPT_HARDIRQS && CONFIG_SMP, later -rt alike) masks the pin and
// sends the EOI in the ack, so a handler redirected to its thread runs with the line
// still asserted, and unmasks in end; Mark H. Johnson's -Q traces of IRQ 10 on this
// machine show it: mask_and_ack_level_ioapic_irq -> mask_IO_APIC_irq ->
// __modify_IO_APIC_irq ... end_level_ioapic_irq -> unmask_IO_APIC_irq.
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

bool Kernel::level_ack_masks() const { return flavour_.preempt_hardirqs; }

void Kernel::mask_and_ack_level_ioapic_irq(unsigned irq, IrqDesc& /*desc*/) {
  fn("mask_and_ack_level_ioapic_irq", "do_IRQ", 30);
  if (!level_ack_masks()) return;  // 2.6.9: /* nothing */
  io_apic_modify(irq, true, "mask_and_ack_level_ioapic_irq");
  this_cpu().apic_write(0xb0, 0);  // ack_APIC_irq
}

void Kernel::end_level_ioapic_irq(unsigned irq, IrqDesc& d, const char* parent) {
  fn("end_level_ioapic_irq", parent, 20);
  if (level_ack_masks()) {
    // VP, as end_8259A_irq: unmask unless the line was disabled meanwhile (IRQ_DISABLED) or
    // another CPU still runs its chain (IRQ_INPROGRESS), which unmasks it when done.
    if (d.depth == 0 && !d.in_progress) io_apic_modify(irq, false, parent);
    return;
  }
  (void)this_cpu().apic_read(0x180 + ((irq_vector(irq) & ~0x1fu) >> 1));  // APIC_TMR word
  this_cpu().apic_write(0xb0, 0);                                         // ack_APIC_irq
}

}  // namespace latsim::kernel
