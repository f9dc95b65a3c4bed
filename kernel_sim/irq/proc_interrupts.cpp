// /proc/interrupts: arch/i386/kernel/irq.c show_interrupts (2.6.9), per online CPU the
// lines' kstat counts, the controller's typename and the action chain's names, then the
// NMI, local timer (LOC), error and mis-routed (IO-APIC) counters. A line with an irq_chip
// (the MPC5200's) as arch/powerpc/kernel/irq.c (2.6.24) prints it: the chip's typename, its
// trigger, the names; then the spurious count (BAD).
#include <fmt/format.h>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

std::string Kernel::show_interrupts() const {
  std::string s = "           ";
  for (int c = 0; c < ncpus(); ++c) s += fmt::format("CPU{}       ", c);
  s += '\n';
  for (unsigned irq = 0; irq < NR_IRQS; ++irq) {
    const IrqDesc& d = irq_desc_[irq];
    if (d.actions.empty()) continue;
    s += fmt::format("{:3}: ", irq);
    for (int c = 0; c < ncpus(); ++c) s += fmt::format("{:10} ", pcpu_[size_t(c)].kstat_irqs[irq]);
    if (p_.mpc52xx_pic) {  // every MPC52xx source is level (mpc52xx_irqhost_map)
      s += d.chip ? fmt::format(" {} Level     {}\n", d.chip->typename_(), d.name)
                  : fmt::format("  None      Edge      {}\n", d.name);  // no source wired
      continue;
    }
    const char* type = pic_mode() ? "XT-PIC" : d.level ? "IO-APIC-level" : "IO-APIC-edge";
    s += fmt::format(" {:>14}  {}\n", type, d.name);
  }
  if (p_.mpc52xx_pic) return s + fmt::format("BAD: {:10}\n", 0);  // ppc_spurious_interrupts
  s += "NMI: ";
  for (int c = 0; c < ncpus(); ++c) s += fmt::format("{:10} ", pcpu_[size_t(c)].nmi_count);
  s += '\n';
  if (!pic_mode()) {  // CONFIG_X86_LOCAL_APIC: the boards with an IO-APIC use their APICs
    s += "LOC: ";
    for (int c = 0; c < ncpus(); ++c) s += fmt::format("{:10} ", pcpu_[size_t(c)].apic_timer_irqs);
    s += '\n';
  }
  s += fmt::format("ERR: {:10}\n", 0);  // no APIC error or spurious interrupt is modelled
  if (!pic_mode()) s += fmt::format("MIS: {:10}\n", 0);  // no level IRQ is mis-routed
  return s;
}

}  // namespace latsim::kernel
