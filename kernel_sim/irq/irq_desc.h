#pragma once
// include/linux/irq.h: one descriptor per IRQ line, with the VP patch's
// per-IRQ thread (/proc/irq/N/<name>/threaded).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include "kernel_sim/irq/irq_chip.h"
#include "kernel_sim/locks/spinlock.h"

namespace latsim::kernel {

struct Task;
constexpr unsigned NR_IRQS = 24;
using IrqHandler = std::function<void()>;

// request_irq flags: 2.6.9's SA_INTERRUPT and SA_SHIRQ (include/asm-i386/signal.h), under
// the names 2.6.18 gave them, as the host's <signal.h> defines SA_INTERRUPT.
constexpr unsigned long IRQF_DISABLED = 0x20000000;  // run the handler with interrupts off
constexpr unsigned long IRQF_SHARED = 0x04000000;    // the line may be shared

struct IrqAction {
  const char* name;  // e.g. "timer", "ide0", "uhci_hcd"
  unsigned long flags;
  IrqHandler handler;
};

struct IrqDesc {
  std::vector<IrqAction> actions;  // desc->action chain, in request_irq order (SA_SHIRQ)
  std::string name;                // the chain's names as /proc/interrupts lists them
  Spinlock lock{"irq_desc->lock"};
  int depth = 0;             // disable_irq nesting (IRQ_DISABLED while > 0)
  bool pending = false;      // IRQ_PENDING: arrived while disabled, resend on enable
  bool in_progress = false;  // IRQ_INPROGRESS: a CPU is running the action chain
  bool replay = false;       // IRQ_PENDING set meanwhile by another CPU: run it again
  bool threaded = false;     // redirected to its IRQ thread
  bool level = false;        // IO-APIC-level (ioapic_level_type), else IO-APIC-edge
  IrqChip* chip = nullptr;   // set: handle_level_irq through this chip (the MPC5200's)
  Task* thread = nullptr;
  bool thread_pending = false;  // IRQ_INPROGRESS for the thread
  uint64_t count = 0;
  // Handler runs (action->handler, in hardirq or in the IRQ thread): longest and total.
  sc_core::sc_time max_handler, handler_total;
  void handled(const sc_core::sc_time& took) {
    handler_total += took;
    if (took > max_handler) max_handler = took;
  }
  // do_IRQ for this line, in hardirq context with interrupts off: the whole handler
  // chain, or only ack and wake-up when the line is threaded.
  sc_core::sc_time max_hardirq, hardirq_total;
  void in_hardirq(const sc_core::sc_time& took) {
    hardirq_total += took;
    if (took > max_hardirq) max_hardirq = took;
  }
};

}  // namespace latsim::kernel
