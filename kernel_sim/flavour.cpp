#include "kernel_sim/flavour.h"

#include <stdexcept>

namespace latsim::kernel {
namespace {

// 2.4's kernel: one runqueue, one timer list, OSS and usb-uhci, no cond_resched points.
Flavour two_four(Flavour f) {
  f.o1_scheduler = false;
  f.cond_resched = false;
  f.per_cpu_tvec_bases = false;
  f.preempt_hardirqs = false;
  f.irq_flags_per_chain = false;
  f.kmap_atomic_inc_preempt = false;
  f.cache_reap = false;
  f.kernel_fpu_preempt_disable = false;
  f.elevator = "noop";
  f.plugging = "inline";
  f.snd_ens1371 = false;
  f.uhci_hcd = false;
  return f;
}

// 2.6.9-rc1 with Ingo Molnar's voluntary-preempt patch: the seed's kernel.
Flavour voluntary_preempt() {
  Flavour f;
  f.release = "2.6.9-rc1-VP-R1";
  f.preemption = Preemption::Voluntary;
  f.vanilla = false;
  f.switches = {};  // all four settable
  f.o1_scheduler = true;
  f.cond_resched = true;
  f.select_task_rq_rt = false;
  f.per_cpu_tvec_bases = true;
  f.high_res_timers = false;
  f.ktimersoftd = false;
  f.timer_ack = true;
  f.preempt_hardirqs = true;
  f.irq_thread_prio = 49;
  f.irq_flags_per_chain = true;
  f.preempt_rt_full = false;
  f.kmap_atomic_inc_preempt = true;
  f.cache_reap = true;
  f.kernel_fpu_preempt_disable = true;
  f.elevator = "anticipatory";
  f.plugging = "timer";
  f.snd_ens1371 = true;
  f.uhci_hcd = true;
  f.preempt_times = false;
  f.sys_kernel_realtime = false;
  return f;
}

// The one place flavour names are declared: every accepted name and what it stands for.
std::vector<Flavour> make_flavours() {
  Flavour vp = voluntary_preempt();
  vp.name = "2.6.9-vp";

  // Vanilla 2.6.9: softirqs on irq_exit, handlers in hardirq context; kernel_preemption
  // stands for CONFIG_PREEMPT.
  Flavour vanilla = vp;
  vanilla.name = vanilla.release = "2.6.9";
  vanilla.preemption = Preemption::Preempt;
  vanilla.vanilla = true;
  vanilla.switches = {0, PreemptSwitches::kSettable, 0, 0};
  vanilla.preempt_hardirqs = false;

  // 2.4.20 with the low-latency patch: conditional_schedule() points, softirqs inline.
  Flavour lowlatency = two_four(vp);
  lowlatency.name = lowlatency.release = "2.4.20-lowlatency";
  lowlatency.preemption = Preemption::LowLatency;
  lowlatency.switches = {0, 0, 0, 0};

  // 2.4.10 with the 2001 preempt patch: preemptible outside spinlocks and the BKL.
  Flavour preempt = two_four(vp);
  preempt.name = preempt.release = "2.4.10-preempt";
  preempt.preemption = Preemption::Preempt;
  preempt.switches = {0, 1, 0, 0};
  preempt.preempt_times = true;

  // 4.1.30-rt34 (PREEMPT_RT_FULL): preemptible everywhere, threaded IRQs and softirqs.
  Flavour rt = vp;
  rt.name = "rt";
  rt.release = "4.1.30-rt34";
  rt.preemption = Preemption::Rt;
  rt.switches = {0, 1, 1, 1};
  rt.select_task_rq_rt = true;
  rt.high_res_timers = true;
  rt.ktimersoftd = true;
  rt.timer_ack = false;
  rt.irq_thread_prio = 50;
  rt.preempt_rt_full = true;
  rt.elevator = "noop";
  rt.plugging = "inline";
  rt.sys_kernel_realtime = true;

  // 2.6.24.4-rt4 (seed 002): PREEMPT_RT with preemptible RCU and RCU priority boosting;
  // softirqs in ksoftirqd/N at SCHED_FIFO 50 (the timer ones in their own thread, as rt).
  Flavour rt24 = rt;
  rt24.name = "2.6.24-rt";
  rt24.release = "2.6.24.4-rt4";
  rt24.softirq_thread_prio = 50;  // 2.6.24-rt kernel/softirq.c ksoftirqd: MAX_USER_RT_PRIO/2
  rt24.preempt_rcu = true;
  rt24.rcu_boost = true;
  rt24.rcu_trace_markers = true;  // 2.6.24-rt kernel/rcupreempt-boost.c: trace_mark()

  // 2.6.25.8-rt7 (seed 002): the same, with rcu_trace_boost_*() counter functions.
  Flavour rt25 = rt24;
  rt25.name = "2.6.25-rt";
  rt25.release = "2.6.25.8-rt7";
  rt25.rcu_trace_markers = false;

  return {vp, vanilla, lowlatency, preempt, rt, rt24, rt25};
}

}  // namespace

const std::vector<Flavour>& flavours() {
  static const std::vector<Flavour> kFlavours = make_flavours();
  return kFlavours;
}

std::vector<std::string> flavour_names() {
  std::vector<std::string> names;
  for (const Flavour& f : flavours()) names.push_back(f.name);
  return names;
}

const Flavour* find_flavour(const std::string& name) {
  for (const Flavour& f : flavours())
    if (f.name == name) return &f;
  return nullptr;
}

const Flavour& resolve_flavour(const std::string& name) {
  if (const Flavour* f = find_flavour(name)) return *f;
  throw std::invalid_argument("unknown kernel flavour `" + name + "`");
}

}  // namespace latsim::kernel
