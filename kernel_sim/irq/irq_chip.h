#pragma once
// include/linux/irq.h struct irq_chip (2.6.24): the controller operations the generic flow
// handler calls (kernel/irq/chip.c handle_level_irq), and the controller's get_irq
// (ppc_md.get_irq). A descriptor without a chip is the x86 boards' 2.6.9 __do_IRQ path
// (irq/io_apic.cpp, irq/i8259.cpp), unchanged.
namespace latsim::kernel {

struct IrqChip {
  virtual ~IrqChip() = default;
  virtual const char* typename_() const = 0;  // the chip name /proc/interrupts shows
  virtual void mask(unsigned irq, const char* parent) = 0;
  virtual void unmask(unsigned irq, const char* parent) = 0;
  virtual void ack(unsigned /*irq*/, const char* /*parent*/) {}
  // mask_ack_irq: the chip's mask_ack if it has one, else mask then ack.
  virtual void mask_ack(unsigned irq, const char* parent) {
    mask(irq, parent);
    ack(irq, parent);
  }
  virtual void eoi(unsigned /*irq*/, const char* /*parent*/) {}
};

// The board's controller as do_IRQ meets it: which line is pending (its get_irq).
struct IrqController {
  static constexpr int NO_IRQ_IGNORE = -1;  // nothing to do (a spurious or vanished source)
  virtual ~IrqController() = default;
  virtual int get_irq() = 0;
};

}  // namespace latsim::kernel
