#pragma once
// kernel.flavour resolved once, Kconfig-style: what the named kernel is (its
// series' scheduler, timers, drivers; the preemption patch it carries and what that
// fixes). The kernel, the loader and the outputs ask these fields; no other code
// compares flavour names.
#include <string>
#include <vector>

namespace latsim::kernel {

// How the kernel preempts: the patch or CONFIG_ option the flavour stands for.
enum class Preemption {
  LowLatency,  // Andrew Morton's 2.4 low-latency patch: explicit reschedule points only
  Preempt,     // CONFIG_PREEMPT: preemptible outside locks (Robert Love's 2.4 patch, 2.6's own)
  Voluntary,   // Ingo Molnar's voluntary-preempt patch: might_sleep() points, /proc switches
  Rt,          // PREEMPT_RT: sleeping spinlocks, threaded hard IRQs and softirqs
};

// The voluntary-preempt patch's /proc/sys/kernel/*_preemption switches: settable, or
// the value the flavour's own mechanism fixes them to.
struct PreemptSwitches {
  static constexpr int kSettable = -1;
  int voluntary = kSettable;
  int kernel = kSettable;
  int softirq = kSettable;
  int hardirq = kSettable;
};

// Filled only by flavours() (flavour.cpp); the fields' zero values mean nothing.
struct Flavour {
  std::string name;     // kernel.flavour
  std::string release;  // uname -r: kernel.version unless the scenario names another
  Preemption preemption{};
  // An unpatched kernel.org release: the patch switches it fixes do not exist at all.
  bool vanilla{};
  PreemptSwitches switches;

  // Scheduler.
  // 2.6's O(1) scheduler: per-CPU runqueues balanced by sched domains; 2.4: one runqueue
  // walked by goodness(), no wake or periodic balancing.
  bool o1_scheduler{};
  // Long kernel loops call cond_resched() (2.6; the 2.4 preempt patch alone adds none).
  bool cond_resched{};
  // Later kernels' RT class: select_task_rq_rt places RT wake-ups, no 2.6.9 wake balancing.
  bool select_task_rq_rt{};

  // Time.
  // kernel/timer.c: a tvec_base and its lock per CPU (2.6); 2.4 has one timerlist_lock.
  bool per_cpu_tvec_bases{};
  bool high_res_timers{};  // CONFIG_HIGH_RES_TIMERS: hrtimers on a one-shot local APIC
  // -rt: TIMER and HRTIMER softirqs (and soft hrtimer callbacks) run in ktimersoftd/N.
  bool ktimersoftd{};
  // check_timer sets timer_ack with the IO-APIC (2.4, 2.6.9); later kernels: 82489DX only.
  bool timer_ack{};

  // Interrupts.
  // CONFIG_PREEMPT_HARDIRQS (VP, -rt): mask_and_ack_level_ioapic_irq masks the pin and EOIs.
  bool preempt_hardirqs{};
  int irq_thread_prio{};  // SCHED_FIFO priority of IRQ threads (VP 49, -rt 50)
  // 2.6 handle_IRQ_event: the first action's SA_INTERRUPT holds for the chain; 2.4: each's.
  bool irq_flags_per_chain{};

  // Locks and memory.
  bool preempt_rt_full{};  // CONFIG_PREEMPT_RT_FULL: spinlock_t and the BKL are rt_mutexes
  // SCHED_FIFO priority of ksoftirqd/N (2.6.24-rt: MAX_USER_RT_PRIO/2); 0: a nice -10 task.
  int softirq_thread_prio{};

  // RCU (kernel_sim/rcu/rcupreempt.h).
  // CONFIG_PREEMPT_RCU (2.6.24-rt): readers are preemptible, counted per task and per CPU;
  // grace periods advance through the counter-flip state machine at the tick.
  bool preempt_rcu{};
  // CONFIG_PREEMPT_RCU_BOOST (-rt): a reader preempted in its read section goes on its
  // CPU's rcu_boost_dat list and is unboosted at its outermost rcu_read_unlock.
  bool rcu_boost{};
  // How CONFIG_RCU_TRACE counts boost events: trace_mark() markers with probes (2.6.24-rt),
  // or counters incremented directly by rcu_trace_boost_*() (2.6.25-rt).
  bool rcu_trace_markers{};
  // 2.6 kmap_atomic() is a function doing inc_preempt_count(); 2.4's is inline.
  bool kmap_atomic_inc_preempt{};
  // mm/slab.c cache_reap on events/N every 2 s (2.6); 2.4 reaps from kswapd only.
  bool cache_reap{};
  // 2.6 i387.h kernel_fpu_begin() does preempt_disable(); 2.4's does not (the 2001
  // preempt patch needs the Athlon patch, kernel.fpu.athlon_patch).
  bool kernel_fpu_preempt_disable{};

  // Block layer: what kernel.elevator and kernel.plugging `auto` mean.
  std::string elevator{};  // anticipatory: 2.6.9's default; noop stands in for 2.4's elevator
  // timer: 2.6.9's plug, unplug_timer and kblockd; inline: 2.4's tq_disk, on-stack plugs.
  std::string plugging{};

  // Drivers.
  bool snd_ens1371{};  // CONFIG_SND_ENS1371 (ALSA); 2.4: OSS es1371.c
  bool uhci_hcd{};     // CONFIG_USB_UHCI_HCD; 2.4: usb-uhci.c

  // Instrumentation.
  bool preempt_times{};        // CONFIG_PREEMPT_TIMES: /proc/latencytimes (2001 patch)
  bool sys_kernel_realtime{};  // /sys/kernel/realtime exists (PREEMPT_RT)
};

// Every flavour, in the order kernel.flavour lists them.
const std::vector<Flavour>& flavours();
std::vector<std::string> flavour_names();
// The named flavour; nullptr if there is none.
const Flavour* find_flavour(const std::string& name);
// The named flavour; throws std::invalid_argument if there is none.
const Flavour& resolve_flavour(const std::string& name);

}  // namespace latsim::kernel
