#pragma once
// Kernel events for a timeline (the tracepoints of later kernels: sched_switch,
// sched_wakeup, irq_handler_entry/exit, function entry from mcount). The kernel
// calls them through a pointer that is null unless a timeline is being written,
// so a run without one does no extra work and its outputs do not change.
#include <cstdint>
#include <systemc>

namespace latsim::kernel {

struct Task;
struct CodeSite;

class KernelObserver {
 public:
  virtual ~KernelObserver() = default;
  // context_switch(): `prev` leaves `cpu`, `next` runs there from `t`.
  virtual void sched_switch(int cpu, sc_core::sc_time t, const Task& prev, const Task& next) = 0;
  // try_to_wake_up() made `p` runnable on `target_cpu`; `cpu` is the waker's.
  virtual void sched_wakeup(int cpu, sc_core::sc_time t, const Task& p, int target_cpu) = 0;
  // An mcount point: `fn` called from `parent`.
  virtual void function_entry(int cpu, sc_core::sc_time t, const char* fn, const char* parent) = 0;
  // Interrupt entry (vector as taken) and the end of its handler, before ret_from_intr.
  virtual void irq_entry(int cpu, sc_core::sc_time t, unsigned vector, bool nmi) = 0;
  virtual void irq_exit(int cpu, sc_core::sc_time t) = 0;
  // __do_softirq() runs pending softirqs (in irq_exit or in ksoftirqd).
  virtual void softirq_entry(int cpu, sc_core::sc_time t) = 0;
  virtual void softirq_exit(int cpu, sc_core::sc_time t) = 0;
  // One softirq's handler (its number, as HI_SOFTIRQ...) starts and ends in __do_softirq().
  virtual void softirq_action_entry(int /*cpu*/, sc_core::sc_time /*t*/, unsigned /*nr*/) {}
  virtual void softirq_action_exit(int /*cpu*/, sc_core::sc_time /*t*/, unsigned /*nr*/) {}
  // preempt_count (PREEMPT_ACTIVE aside) left zero (disabled) or came back to it, at `site`.
  virtual void preempt_toggle(int /*cpu*/, sc_core::sc_time /*t*/, bool /*disabled*/,
                              const CodeSite& /*site*/) {}
  // Preemption/interrupts went off (critical = true) or both back on: the latency
  // tracer's section boundaries, at `site`.
  virtual void critical_edge(int cpu, sc_core::sc_time t, bool critical, const CodeSite& site) = 0;
  // `cpu` spun on `lock` from `from` to `to` while CPU `holder` held it (-1: not known).
  virtual void lock_spin(int /*cpu*/, sc_core::sc_time /*from*/, sc_core::sc_time /*to*/,
                         const char* /*lock*/, int /*holder*/) {}
};

}  // namespace latsim::kernel
