// kernel/irq/handle.c + the VP patch's IRQ threading (kernel/irq/manage.c).
#include <string>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

// setup_irq: a second request on a line appends its action to the chain when both
// pass SA_SHIRQ (else -EBUSY); only the first starts the line up.
bool Kernel::request_irq(unsigned irq, const char* name, unsigned long flags, IrqHandler h) {
  IrqDesc& d = irq_desc_[irq];
  const bool shared = !d.actions.empty();
  if (shared && !(d.actions.front().flags & flags & IRQF_SHARED)) return false;
  d.actions.push_back({name, flags, std::move(h)});
  d.name += (shared ? ", " : "") + std::string(name);
  if (shared) return true;
  if (!pic_mode() && !p_.mpc52xx_pic) io_apic_route(irq);
  // hardirq_preemption: every IRQ but the timer runs in its own SCHED_FIFO thread.
  const auto per_irq = p_.irq_threaded.find(irq);
  d.level = !pic_mode() && !p_.mpc52xx_pic && irq_level_triggered(irq);
  d.threaded =
      p_.hardirq_preemption && irq != 0 && (per_irq == p_.irq_threaded.end() || per_irq->second);
  if (d.threaded && !d.thread) {
    d.thread = create_task(
        "IRQ " + std::to_string(irq), [this, irq] { irq_thread(irq); }, Policy::Fifo,
        flavour_.irq_thread_prio);
    d.thread->mm = 0;  // a kernel thread
  }
  if (d.chip)
    d.chip->unmask(irq, "default_enable");  // setup_irq: default_startup -> default_enable
  else if (pic_mode())
    set_8259A_mask(irq, false, "startup_8259A_irq");
  else if (!p_.mpc52xx_pic)  // an MPC5200 board: a line without a chip has no source
    io_apic_modify(irq, false, "startup_edge_ioapic_irq");
  return true;
}

// handle_IRQ_event: every action on the line, in order, timed together for the
// per-IRQ handler statistics. 2.6.9 turns interrupts on for the whole chain unless its
// first action passed SA_INTERRUPT, so a sound card registered after a USB controller
// loses its flag (Thomas Charbonnel, LKML 2004-08-18); 2.4 sets them per action.
void Kernel::run_irq_handler(IrqDesc& d) {
  if (d.actions.empty()) return;
  const char* fn = flavour_.irq_flags_per_chain ? "generic_handle_IRQ_event" : "handle_IRQ_event";
  const auto irqs = [&](unsigned long flags) {
    const bool on = !(flags & IRQF_DISABLED);
    if (on && irqs_disabled())
      local_irq_enable({fn, "sti"});
    else if (!on && !irqs_disabled())
      local_irq_disable({fn, "cli"});
  };
  const sc_time t0 = now();
  unsigned long chain = d.actions.front().flags;
  if (p_.shared_irq_any_disables)
    for (const auto& a : d.actions) chain |= a.flags & IRQF_DISABLED;
  if (flavour_.irq_flags_per_chain) irqs(chain);
  for (auto& a : d.actions) {
    if (!flavour_.irq_flags_per_chain) irqs(a.flags);
    a.handler();
  }
  irqs(IRQF_DISABLED);  // local_irq_disable() on the way out
  d.handled(now() - t0);
}

void Kernel::do_IRQ(unsigned irq) {
  const char* interrupted = pcpu_[size_t(smp_processor_id())].last_fn;
  if (pstats_) {
    // latency_cause(-100, ...): an IRQ that breaks into an open section marks it
    // (bit = IRQ number, an inferred reading of the mask column); one that opens
    // a section is its cause (latency_cause(-99, ~irq)).
    if (pstats_->open(smp_processor_id())) pstats_->cause(smp_processor_id(), -100, int(1u << irq));
    latency_site(irq_cause(irq), {"do_IRQ", "irq_enter"});
  }
  const sc_time t_in = now();
  irq_enter({"do_IRQ", "irq_enter"});
  fn("do_IRQ", interrupted, 60, 1);
  IrqDesc& d = irq_desc_[irq];
  LATSIM_DEBUG(irq, log_who(), "do_IRQ {} ({}){}", irq, d.name, d.depth > 0 ? ", disabled" : "");
  d.count++;
  pcpu_[size_t(smp_processor_id())].kstat_irqs[irq]++;
  // irq_desc_t is one ____cacheline_aligned line up to its lock (2.6.9 include/linux/irq.h:
  // handler, handler_data, action, status, depth, irq_count, irqs_unhandled, lock): the
  // lock's fill brings status, depth and action with it.
  spin_lock(d.lock, "do_IRQ");
  if (pic_mode()) return do_IRQ_8259A(irq, d, t_in);
  if (d.level)
    mask_and_ack_level_ioapic_irq(irq, d);
  else
    fn("ack_edge_ioapic_irq", "do_IRQ", 30);
  if (d.depth > 0) {
    // Lazy disable: the edge came in while disabled. Mask it now, remember it,
    // and let enable_irq() resend it (ack_edge_ioapic_irq / IRQ_PENDING). A level
    // line stays masked and asserted: the unmask in enable_irq delivers it again.
    d.pending = true;
    if (!d.level || !level_ack_masks()) {  // the VP level ack has masked and EOI'd it
      io_apic_modify(irq, true, "ack_edge_ioapic_irq");
      this_cpu().apic_write(0xb0, 0);
    }
    spin_unlock(d.lock, {"do_IRQ", "unlock"});
    d.in_hardirq(now() - t_in);
    irq_exit({"do_IRQ", "irq_exit"});
    return;
  }
  if (!d.level) this_cpu().apic_write(0xb0, 0);  // ack_APIC_irq
  fn("generic_redirect_hardirq", "do_IRQ", 20);
  if (d.threaded) {
    // out_no_end: a level line stays masked until the thread has run the handler.
    d.thread_pending = true;
    spin_unlock(d.lock, {"do_IRQ", "unlock"});
    fn("wake_up_process", "generic_redirect_hardirq", 20);
    try_to_wake_up(d.thread, "wake_up_process");
  } else if (d.in_progress && p_.irq_inprogress) {
    // IRQ_INPROGRESS: the chain runs on another CPU, which runs it once more for this
    // interrupt (IRQ_PENDING) instead of this CPU running it beside it.
    d.replay = true;
    if (d.level)
      end_level_ioapic_irq(irq, d, "do_IRQ");
    else
      fn("end_edge_ioapic_irq", "do_IRQ", 20);
    spin_unlock(d.lock, {"do_IRQ", "unlock"});
  } else {
    d.in_progress = true;
    do {  // __do_IRQ's loop: again while another CPU left an IRQ_PENDING
      d.replay = false;
      spin_unlock(d.lock, {"do_IRQ", "unlock"});
      fn("generic_handle_IRQ_event", "do_IRQ", 40);
      run_irq_handler(d);
      spin_lock(d.lock, "do_IRQ");
      fn("generic_note_interrupt", "do_IRQ", 20);
    } while (d.replay);
    d.in_progress = false;
    if (d.level)
      end_level_ioapic_irq(irq, d, "do_IRQ");
    else
      fn("end_edge_ioapic_irq", "do_IRQ", 20);
    spin_unlock(d.lock, {"do_IRQ", "unlock"});
  }
  d.in_hardirq(now() - t_in);  // irq_exit may run softirqs: not this line's time
  irq_exit({"do_IRQ", "irq_exit"});
}

// do_IRQ on an 8259A board (2.4): mask and acknowledge, run the handler unless
// the IRQ is disabled, then unmask (end_8259A_irq). irq_desc->lock is held on entry.
void Kernel::do_IRQ_8259A(unsigned irq, IrqDesc& d, sc_time t_in) {
  mask_and_ack_8259A(irq, "do_IRQ");
  if (d.depth > 0) {  // disabled: stays masked until enable_irq
    d.pending = true;
    spin_unlock(d.lock, {"do_IRQ", "unlock"});
    d.in_hardirq(now() - t_in);
    irq_exit({"do_IRQ", "irq_exit"});
    return;
  }
  spin_unlock(d.lock, {"do_IRQ", "unlock"});
  fn("handle_IRQ_event", "do_IRQ", 40);
  run_irq_handler(d);
  spin_lock(d.lock, "do_IRQ");
  if (d.depth == 0) set_8259A_mask(irq, false, "end_8259A_irq");
  spin_unlock(d.lock, {"do_IRQ", "unlock"});
  d.in_hardirq(now() - t_in);
  irq_exit({"do_IRQ", "irq_exit"});
}

// arch/powerpc/kernel/irq.c do_IRQ: irq_enter, ppc_md.get_irq (mpc52xx_get_irq), then the
// line's flow handler; NO_IRQ_IGNORE: nothing pending any more, nothing done.
void Kernel::do_IRQ_ppc() {
  const int c = smp_processor_id();
  auto& pc = pcpu_[size_t(c)];
  const char* interrupted = pc.last_fn;
  const sc_time t_in = now();
  irq_enter({"do_IRQ", "irq_enter"});
  fn("do_IRQ", interrupted, 60, 1);
  const int irq = mpc52xx_pic_->get_irq();
  if (irq >= 0) {
    if (pc.intr_depth == 1) pc.intr_now = irq;  // the outermost interrupt's line, now known
    if (pstats_ && pstats_->open(c)) pstats_->cause(c, -100, int(1u << unsigned(irq)));
    IrqDesc& d = irq_desc_[irq];
    LATSIM_DEBUG(irq, log_who(), "do_IRQ {} ({}){}", irq, d.name, d.depth > 0 ? ", disabled" : "");
    handle_level_irq(unsigned(irq), d, t_in);
  }
  irq_exit({"do_IRQ", "irq_exit"});
}

// kernel/irq/chip.c handle_level_irq (2.6.24-rt): mask and ack the source, run the chain
// (or, threaded, wake its thread: redirect_hardirq) and unmask it again unless disabled.
void Kernel::handle_level_irq(unsigned irq, IrqDesc& d, sc_time t_in) {
  fn("handle_level_irq", "do_IRQ", 30);
  spin_lock(d.lock, "handle_level_irq");
  d.chip->mask_ack(irq, "handle_level_irq");  // mask_ack_irq
  const auto out = [&] {
    spin_unlock(d.lock, {"handle_level_irq", "unlock"});
    d.in_hardirq(now() - t_in);
  };
  if (d.in_progress) return out();  // IRQ_INPROGRESS: its thread still runs it
  d.count++;
  pcpu_[size_t(smp_processor_id())].kstat_irqs[irq]++;
  if (d.actions.empty() || d.depth > 0) {  // IRQ_DISABLED: stays masked, IRQ_PENDING
    d.pending = true;
    return out();
  }
  d.in_progress = true;
  if (d.threaded) {  // redirect_hardirq: the thread unmasks it when done (thread_level_irq)
    d.thread_pending = true;
    spin_unlock(d.lock, {"handle_level_irq", "unlock"});
    fn("wake_up_process", "redirect_hardirq", 20);
    try_to_wake_up(d.thread, "wake_up_process");
    d.in_hardirq(now() - t_in);
    return;
  }
  spin_unlock(d.lock, {"handle_level_irq", "unlock"});
  run_irq_handler(d);
  spin_lock(d.lock, "handle_level_irq");
  d.in_progress = false;
  if (d.depth == 0) d.chip->unmask(irq, "handle_level_irq");
  out();
}

void Kernel::irq_thread(unsigned irq) {
  IrqDesc& d = irq_desc_[irq];
  for (;;) {
    set_current_state(TASK_INTERRUPTIBLE);
    while (!d.thread_pending) {
      schedule("irq_thread");
      set_current_state(TASK_INTERRUPTIBLE);
    }
    set_current_state(TASK_RUNNING);
    d.thread_pending = false;
    fn("do_hardirq", "irq_thread", 40);
    // Handlers are entered as from a hardirq: interrupts off until the driver unmasks.
    local_irq_disable({"irq_thread", "lock"});
    fn("generic_handle_IRQ_event", "do_hardirq", 40);
    shared(d.lock.line(), 1, false);  // desc->status and action, in the line do_IRQ locked
    run_irq_handler(d);
    if (d.level) {  // do_hardirq: desc->handler->end under desc->lock
      spin_lock(d.lock, "do_hardirq");
      end_level_ioapic_irq(irq, d, "do_hardirq");
      spin_unlock(d.lock, {"do_hardirq", "unlock"});
    } else if (d.chip) {  // thread_level_irq: IRQ_INPROGRESS off, unmask unless disabled
      spin_lock(d.lock, "do_hardirq");
      d.in_progress = false;
      if (d.depth == 0) d.chip->unmask(irq, "thread_level_irq");
      spin_unlock(d.lock, {"do_hardirq", "unlock"});
    }
    irq_thread_softirqs();
    local_irq_enable({"irq_thread", "unlock"});
    cond_resched("irq_thread");
  }
}

// A handler run in its thread raises softirqs with __raise_softirq_irqoff (e.g.
// __netif_rx_schedule), outside hardirq context, so no irq_exit follows to wake
// ksoftirqd. From -Q8 on the thread hands them over itself; -rt's do_irqd runs
// __do_softirq() right after do_hardirq (the -Q8 code is not at hand: assumed a
// wakeup_softirqd, which keeps them in ksoftirqd as softirq_preemption does).
// Up to -Q7 (kernel.vp_redirect_softirq_wakeup_bug) the thread does not look: the
// bits wait for the next irq_exit on this CPU (the local timer tick at HZ, or any
// other interrupt) - seed 000, Ingo Molnar: "we can end up not waking up softirqd,
// resulting in a random 0-1msec latency between hardirq arrival and softirq
// execution ... timer IRQs always wake up softirqd".
void Kernel::irq_thread_softirqs() {
  const int c = smp_processor_id();
  if (p_.vp_redirect_softirq_wakeup_bug || !pcpu_[size_t(c)].softirq_pending) return;
  wakeup_softirqd(c, "do_irqd");
}

// io_apic.c: disable_edge_ioapic_irq does nothing (lazy disable); the IRQ is
// only masked if it fires while disabled.
void Kernel::disable_irq_nosync(unsigned irq, const char* parent) {
  fn("disable_irq_nosync", parent, 20);
  IrqDesc& d = irq_desc_[irq];
  const bool flags = spin_lock_irqsave(d.lock, "disable_irq_nosync");
  if (d.depth++ == 0 && pic_mode()) set_8259A_mask(irq, true, "disable_irq_nosync");  // not lazy
  spin_unlock_irqrestore(d.lock, flags, {"generic_enable_irq", "unlock"});
}

// enable_edge_ioapic_irq = unmask_IO_APIC_irq, then resend a pending edge to self.
void Kernel::enable_irq(unsigned irq, const char* parent) {
  fn("generic_enable_irq", parent, 20);
  IrqDesc& d = irq_desc_[irq];
  const bool flags = spin_lock_irqsave(d.lock, "generic_enable_irq");
  if (d.depth > 0 && --d.depth == 0) {
    if (d.chip) {
      d.pending = false;  // a level source: the unmask delivers it again (check_irq_resend)
      d.chip->unmask(irq, "default_enable");
    } else if (pic_mode()) {
      d.pending = false;  // an edge waited in the 8259A's IRR while masked
      set_8259A_mask(irq, false, "generic_enable_irq");
    } else {
      io_apic_modify(irq, false, "generic_enable_irq");
      if (d.level) d.pending = false;  // the unmasked level line delivers itself
      if (d.pending) {
        d.pending = false;
        fn("hw_resend_irq", "generic_enable_irq", 40);
        this_cpu().send_ipi(smp_processor_id(), irq_vector(irq));
      }
    }
  }
  spin_unlock_irqrestore(d.lock, flags, {"generic_enable_irq", "unlock"});
}

}  // namespace latsim::kernel
