// arch/i386/kernel/entry.S and friends: running code, taking interrupts, and
// returning from them (with preemption on the way out).
#include <algorithm>
#include <cmath>
#include "kernel_sim/kernel.h"

namespace latsim::kernel {

void Kernel::enter(const char* name, const char* parent) {
  enter_on(smp_processor_id(), name, parent);
}

void Kernel::enter_on(int c, const char* name, const char* parent) {
  auto& pc = pcpu_[size_t(c)];
  pc.last_fn = name;
  pc.last_parent = parent;
}

void Kernel::mcount(const char* name, const char* parent) {
  mcount_on(smp_processor_id(), name, parent);
}

void Kernel::mcount_on(int c, const char* name, const char* parent) {
  enter_on(c, name, parent);
  if (obs_) obs_->function_entry(c, now(), name, parent);
  if (!p_.trace.enabled) return;
  tracer_.mcount(c, now(), rq_[size_t(c)].curr->preempt_count, name, parent);
}

void Kernel::fn(const char* name, const char* parent, uint64_t cycles, uint64_t footprint,
                uint64_t stream) {
  const int c = smp_processor_id();  // once: the hottest path asks current() the least
  mcount_on(c, name, parent);
  // The tracer's own cost (mcount) is paid on every traced call while tracing is on.
  const uint64_t overhead = p_.trace.enabled && p_.mcount_overhead ? uint64_t(p_.mcount_cycles) : 0;
  const uint64_t misses = (footprint ? cpu(c).cache_misses(name, footprint) : 0) + stream;
  const uint64_t body = p_.code_path_scale == 1.0
                            ? cycles
                            : uint64_t(std::llround(double(cycles) * p_.code_path_scale));
  exec(body + overhead, misses);
}

void Kernel::exec(uint64_t cycles, uint64_t misses) {
  Work w{cycles, misses};
  for (;;) {
    if (this_cpu().run(w)) return;
    handle_interrupt();
  }
}

void Kernel::shared(const void* key, uint64_t lines, bool write) {
  if (const uint64_t n = this_cpu().coherence_misses(key, lines, write)) exec(0, n);
}

void Kernel::forget(const void* obj, size_t bytes) {
  for (int c = 0; c < ncpus(); ++c) cpu(c).forget(obj, bytes);
}

uint64_t Kernel::line_fills(const void* key, uint64_t lines, bool write) {
  if (!lines) return 0;
  const uint64_t l2 = this_cpu().cache_misses(key, lines);
  return std::max(l2, this_cpu().coherence_misses(key, lines, write));
}

void Kernel::user_exec(uint64_t cycles, uint64_t misses) {
  Task& t = current();
  // entry.S syscall_exit -> work_pending -> work_resched: a reschedule asked for while this
  // task was in the kernel (a wake-up's IPI on a kernel without preemption) is taken on the
  // way back to user mode.
  while (t.need_resched) schedule("work_resched");
  t.in_user = true;
  exec(cycles, misses);
  t.in_user = false;
}

uint8_t Kernel::inb(uint16_t port) { return this_cpu().inb(port); }
void Kernel::outb(uint8_t v, uint16_t port) { this_cpu().outb(v, port); }
void Kernel::outl(uint32_t v, uint16_t port) { this_cpu().outl(v, port); }
void Kernel::rep_ins(uint16_t port, unsigned width, uint32_t count) {
  while (count) {
    count -= this_cpu().rep_ins(port, width, count);
    if (count) handle_interrupt();  // taken between iterations, then the string op resumes
  }
}
uint32_t Kernel::readl(uint64_t a) { return this_cpu().readl(a); }
void Kernel::writel(uint32_t v, uint64_t a) { this_cpu().writel(v, a); }

// include/asm-i386/io.h: the _p variants "slow down" with a write to port 0x80.
uint8_t Kernel::inb_p(uint16_t port) {
  uint8_t v = inb(port);
  if (p_.io_delay) outb(0, 0x80);
  return v;
}
void Kernel::outb_p(uint8_t v, uint16_t port) {
  outb(v, port);
  if (p_.io_delay) outb(0, 0x80);
}

namespace {
// The C handler an interrupt runs, at its irq_enter/irq_exit (nmi_enter/nmi_exit).
CodeSite handler_site(const Trap& t, bool exit) {
  const char* fn = t.nmi                                ? "do_nmi"
                   : t.vector == LOCAL_TIMER_VECTOR     ? "smp_apic_timer_interrupt"
                   : t.vector == PPC_DECREMENTER_VECTOR ? "timer_interrupt"
                   : t.vector == RESCHEDULE_VECTOR      ? "smp_reschedule_interrupt"
                   : t.vector == INVALIDATE_TLB_VECTOR  ? "smp_invalidate_interrupt"
                                                        : "do_IRQ";
  if (t.nmi) return {fn, exit ? "nmi_exit" : "nmi_enter"};
  return {fn, exit ? "irq_exit" : "irq_enter"};
}
}  // namespace

void Kernel::handle_interrupt() {
  const int c = smp_processor_id();
  CpuOps& cpu = this_cpu();
  const bool prev_if = cpu.irqs_enabled();
  const bool was = critical(c);
  const char* interrupted = pcpu_[size_t(c)].last_fn;
  const Trap t = cpu.take_interrupt();
  if (obs_) obs_->irq_entry(c, now(), t.vector, t.nmi);
  LATSIM_DEBUG(irq, log_who(), "interrupt entry: {} vector {:#04x}", t.nmi ? "NMI" : "IRQ",
               t.vector);
  critical_check(c, was, handler_site(t, false));
  // Entering the kernel: a nested interrupt returns to kernel mode, not to user.
  Task& cur = current();
  const bool from_user = cur.in_user;
  cur.in_user = false;
  auto& pc = pcpu_[size_t(c)];
  const bool outer_from_user = pc.irq_from_user;
  pc.irq_from_user = from_user;
  const bool outermost = pc.intr_depth++ == 0;
  const sc_time t_in = now();
  if (outermost) pc.intr_now = int(intr_source(t));
  dispatch(t);
  const int slot = pc.intr_now;  // dispatch may have named the line (do_IRQ_ppc)
  --pc.intr_depth;
  if (outermost) pc.intr_now = -1;
  if (outermost) pc.intr_time[size_t(slot)] += now() - t_in;  // nested time counts here
  if (obs_) obs_->irq_exit(c, now());
  LATSIM_DEBUG(irq, log_who(), "interrupt exit: vector {:#04x}, {} ns", t.vector,
               (now() - t_in).value() / 1000);
  pc.irq_from_user = outer_from_user;
  // ret_from_intr: preempt the interrupted context if it allows it.
  if (!t.nmi && cur.need_resched && prev_if) {
    if (from_user) {
      this_cpu().set_irqs_enabled(true);  // resume_userspace -> work_resched
      schedule("work_resched");
      this_cpu().set_irqs_enabled(false);
    } else if (p_.kernel_preemption && cur.preempt_count == 0) {
      preempt_schedule_irq();
    }
  }
  cur.in_user = from_user;
  const int c3 = current().cpu;
  const bool was2 = critical(c3);
  pcpu_[size_t(c3)].last_fn = interrupted;
  this_cpu().iret(t, prev_if);
  critical_check(c3, was2, handler_site(t, true));
}

void Kernel::dispatch(const Trap& t) {
  if (t.nmi) return do_nmi();
  if (t.vector == PPC_DECREMENTER_VECTOR && !p_.local_apic) return ppc_timer_interrupt();
  if (t.vector == PPC_EXTERNAL_VECTOR && p_.mpc52xx_pic) return do_IRQ_ppc();
  if (t.vector == LOCAL_TIMER_VECTOR) return smp_apic_timer_interrupt();
  if (t.vector == RESCHEDULE_VECTOR) return smp_reschedule_interrupt();
  if (t.vector == INVALIDATE_TLB_VECTOR) return smp_invalidate_interrupt();
  if (t.vector == SPURIOUS_APIC_VECTOR) return;
  if (pic_mode()) {  // init_8259A's ICW2: IRQ0-7 at vectors 0x20-0x27, IRQ8-15 at 0x28-0x2f
    if (t.vector >= 0x20 && t.vector < 0x30) return do_IRQ(t.vector - 0x20);
    return;
  }
  for (unsigned irq = 0; irq < NR_IRQS; ++irq)
    if (irq_vector(irq) == t.vector) return do_IRQ(irq);
}

unsigned Kernel::intr_source(const Trap& t) {
  if (t.nmi) return INTR_NMI;
  if (t.vector == LOCAL_TIMER_VECTOR) return INTR_LOC;
  if (t.vector == PPC_DECREMENTER_VECTOR && !p_.local_apic) return INTR_LOC;
  if (t.vector == PPC_EXTERNAL_VECTOR && p_.mpc52xx_pic) return INTR_EXT;  // until get_irq
  if (pic_mode()) return t.vector >= 0x20 && t.vector < 0x30 ? t.vector - 0x20 : INTR_IPI;
  for (unsigned irq = 0; irq < NR_IRQS; ++irq)
    if (irq_vector(irq) == t.vector) return irq;
  return INTR_IPI;
}

void Kernel::irq_enter(const CodeSite& site) { add_preempt_count(HARDIRQ_OFFSET, site); }

void Kernel::irq_exit(const CodeSite& site) {
  sub_preempt_count(HARDIRQ_OFFSET, site);
  const int c = smp_processor_id();
  if (!in_interrupt() && pcpu_[size_t(c)].softirq_pending) do_softirq(site.fn);
}

// arch/i386/kernel/nmi.c: the watchdog NMI arrives at HZ on every CPU.
void Kernel::do_nmi() {
  const char* interrupted = pcpu_[size_t(smp_processor_id())].last_fn;
  irq_enter({"do_nmi", "nmi_enter"});
  pcpu_[size_t(smp_processor_id())].nmi_count++;
  fn("do_nmi", interrupted, 80, 1);
  if (smp_processor_id() == 0) (void)inb(0x61);  // get_nmi_reason(): system control port B
  fn("profile_tick", "nmi_watchdog_tick", 60, 1);
  fn("profile_hook", "profile_tick", 30);
  fn("read_lock", "profile_hook", 30, 1);
  fn("notifier_call_chain", "profile_hook", 40);
  fn("profile_hit", "nmi_watchdog_tick", 60, 1);
  sub_preempt_count(HARDIRQ_OFFSET, {"do_nmi", "nmi_exit"});
}

// arch/i386/kernel/apic.c: the per-CPU local timer tick.
void Kernel::smp_apic_timer_interrupt() {
  const char* interrupted = pcpu_[size_t(smp_processor_id())].last_fn;
  {
    auto& p = pcpu_[size_t(smp_processor_id())];
    p.apic_timer_irqs++;
    p.timer_irq_entry = now();  // what hrtimer_interrupt's expired timers were fired by
    if (p.tick_period > sc_core::SC_ZERO_TIME)  // log the entry: timerlat's IRQ latency
      p.tick_irq_log[p.tick_irq_n++ % p.tick_irq_log.size()] = {
          uint64_t((now() - p.tick_epoch) / p.tick_period + 1e-6), now()};  // 1 ns: rounding
  }
  fn("smp_apic_timer_interrupt", interrupted, 60, 1);
  this_cpu().apic_write(0xb0, 0);  // ack_APIC_irq
  if (flavour_.high_res_timers) {  // local_apic_timer_interrupt -> hrtimer_interrupt
    irq_enter({"smp_apic_timer_interrupt", "irq_enter"});
    hrtimer_interrupt("smp_apic_timer_interrupt");
    irq_exit({"smp_apic_timer_interrupt", "irq_exit"});
    return;
  }
  auto& pc = pcpu_[size_t(smp_processor_id())];
  // The tick being handled is the last one that has fired (a late handler must
  // not count a tick that has not happened yet; merged ticks are skipped).
  pc.local_ticks = uint64_t((now() - pc.tick_epoch) / pc.tick_period);
  irq_enter({"smp_apic_timer_interrupt", "irq_enter"});
  fn("profile_tick", "smp_apic_timer_interrupt", 60, 1);
  fn("profile_hook", "profile_tick", 30);
  fn("read_lock", "profile_hook", 30, 1);
  fn("notifier_call_chain", "profile_hook", 40);
  fn("profile_hit", "smp_apic_timer_interrupt", 60, 1);
  update_process_times(pcpu_[size_t(smp_processor_id())].irq_from_user, "smp_apic_timer_interrupt");
  irq_exit({"smp_apic_timer_interrupt", "irq_exit"});
}

void Kernel::smp_reschedule_interrupt() {
  this_cpu().apic_write(0xb0, 0);  // ack_APIC_irq; the work is done on the way out
  fn("smp_reschedule_interrupt", pcpu_[size_t(smp_processor_id())].last_fn, 40);
}

// apic.c wait_8254_wraparound(): poll the PIT until its count wraps, so that
// every CPU's local timer ticks in step with the PIT.
void Kernel::wait_8254_wraparound() {
  auto read_pit = [this] {
    outb_p(0x00, 0x43);
    int c = inb_p(0x40);
    return c | inb_p(0x40) << 8;
  };
  int prev = read_pit();
  for (int guard = 0; guard < 100000; ++guard) {
    const int cur = read_pit();
    if (cur > prev) return;
    prev = cur;
  }
}

void Kernel::setup_apic_timer() {
  if (!p_.local_apic) return init_decrementer_clockevent();  // no APIC: the e300's decrementer
  // setup_local_APIC + setup_APIC_LVTT: enabled, periodic, divide by 16, one tick per jiffy.
  CpuOps& cpu = this_cpu();
  const uint32_t count = uint32_t(p_.apic_bus_mhz * 1e6 / 16.0 / p_.hz + 0.5);
  cpu.apic_write(0xe0, 0xffffffffu);                                 // DFR: flat model
  cpu.apic_write(0xd0, (1u << unsigned(smp_processor_id())) << 24);  // init_apic_ldr
  cpu.apic_write(0xf0, 0x100 | SPURIOUS_APIC_VECTOR);
  cpu.apic_write(0x350, 0x700);  // LINT0: ExtINT (8259A), masked by the 8259A itself
  cpu.apic_write(0x360, 0x400);  // LINT1: NMI
  if (pic_mode()) {
    // No local APIC timer (2.4 UP): the tick is the PIT's IRQ0, LATCH counts apart.
    auto& pc = pcpu_[size_t(smp_processor_id())];
    const unsigned latch = (1193182u + unsigned(p_.hz) / 2) / unsigned(p_.hz);
    pc.tick_period = sc_time(double(latch) / 1193182.0, sc_core::SC_SEC);
    pc.tick_epoch = now();
    return;
  }
  wait_8254_wraparound();
  cpu.apic_write(0x3e0, 0x3);
  // high_res_timers: one-shot mode, programmed per event by hrtimer_program.
  cpu.apic_write(0x320, LOCAL_TIMER_VECTOR | (flavour_.high_res_timers ? 0u : 1u << 17));
  if (!flavour_.high_res_timers) cpu.apic_write(0x380, count);
  auto& pc = pcpu_[size_t(smp_processor_id())];
  pc.tick_epoch = now();
  pc.tick_period = sc_time(double(count) * 16.0 / (p_.apic_bus_mhz * 1e6), sc_core::SC_SEC);
}

}  // namespace latsim::kernel
