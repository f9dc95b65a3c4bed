#include "kernel_sim/kernel_params.h"

#include "kernel_sim/key_binders.h"

namespace latsim::kernel {
namespace {

using namespace params;
using T = ValueType;
using P = KernelParams;

// /proc/irq/N/<name>/threaded: an entry of irq_threaded (absent: threaded).
Key<P> irq_threaded_key(KeySpec spec, unsigned irq) {
  Key<P> key;
  key.spec = std::move(spec);
  key.set = [irq](P& p, const Value& v) { p.irq_threaded[irq] = std::get<int64_t>(v) != 0; };
  key.get = [irq](const P& p) -> Value {
    const auto it = p.irq_threaded.find(irq);
    return int64_t{it == p.irq_threaded.end() || it->second ? 1 : 0};
  };
  return key;
}

void append(Table<P>& into, const Table<P>& keys) {
  into.insert(into.end(), keys.begin(), keys.end());
}

// The kernel built: flavour, version, HZ, the VP switches, CONFIG_HIGHMEM.
Table<KernelParams> version_keys() {
  return {
      bind<P>(implemented(choice("flavour", flavour_names(),
                                 "kernel model: preemption points, locks and handlers"),
                          flavour_names()),
              &P::flavour),
      bind<P>(of_type(T::String, "version", "version string printed in trace headers"),
              &P::version),
      bind<P>(int_choice("hz", {"100", "250", "1000"}, "timer interrupt rate (HZ)"), &P::hz),
      bind_switch<P>(of_type(T::Switch, "voluntary_preemption",
                             "/proc/sys/kernel/voluntary_preemption (VP patch)"),
                     &P::voluntary_preemption),
      bind_switch<P>(
          of_type(T::Switch, "kernel_preemption",
                  "/proc/sys/kernel/kernel_preemption (VP patch); CONFIG_PREEMPT on flavour 2.6.9"),
          &P::kernel_preemption),
      bind_switch<P>(of_type(T::Switch, "softirq_preemption",
                             "/proc/sys/kernel/softirq_preemption: softirqs run in ksoftirqd"),
                     &P::softirq_preemption),
      bind_switch<P>(of_type(T::Switch, "hardirq_preemption",
                             "/proc/sys/kernel/hardirq_preemption: threaded hard IRQ handlers"),
                     &P::hardirq_preemption),
      bind<P>(with_source(of_type(T::Bool, "nmi_watchdog", "nmi_watchdog=1: IO-APIC NMI at HZ"),
                          "seed 000: nmi_watchdog=1"),
              &P::nmi_watchdog),
      bind<P>(
          with_source(
              of_type(T::Bool, "highmem",
                      "CONFIG_HIGHMEM (the seed's kernel: kmap_atomic+0x23/0xe0 in its traces): on "
                      "2.6 kmap_atomic() raises the preempt count, so a page's copy to or from "
                      "user space and a fresh page's clear are non-preemptible; false: the "
                      "page_address() macro, preemptible"),
              "the seed's traces: kmap_atomic+0x23/0xe0"),
          &P::highmem),
  };
}

// Scheduler: periodic balancing and the lines a context switch touches.
Table<KernelParams> sched_keys() {
  return {
      bind<P>(of_type(T::Bool, "periodic_balance",
                      "rebalance_tick: load_balance every 1-4 ms idle, x64 busy (SD_CPU_INIT); "
                      "active balance through migration/N (the 2.6 flavours; 2.4's one runqueue "
                      "has none)"),
              &P::periodic_balance),
      bind<P>(
          with_source(integer("switch_pick_lines", 0, 64, "lines",
                              "next task's task_struct lines schedule() reads picking it (2.6.9: "
                              "prio, run_list/timestamp, activated: 3); they miss if evicted"),
                      "2.6.9 kernel/sched.c schedule: task_struct offsets 24..72"),
          &P::switch_pick_lines),
      bind<P>(
          with_source(integer("switch_next_lines", 0, 64, "lines",
                              "next task's lines context_switch/switch_to touch before __switch_to "
                              "(next->mm, thread.esp/eip, the stack line it pushes: 3)"),
                      "2.6.9 kernel/sched.c context_switch, include/asm-i386/system.h switch_to"),
          &P::switch_next_lines),
      bind<P>(
          with_source(
              integer("switch_mm_lines", 0, 64, "lines",
                      "mm_struct lines switch_mm touches for a new mm (pgd, cpu_vm_mask/context: "
                      "2); cpu_set/cpu_clear are locked writes, so a mask the other CPU wrote "
                      "comes over the FSB (MESI); 0: switch_mm costs nothing"),
              "2.6.9 include/asm-i386/mmu_context.h switch_mm"),
          &P::switch_mm_lines),
      bind<P>(
          with_source(
              integer("switch_resume_lines", 0, 64, "lines",
                      "next task's lines touched after __switch_to's entry (thread tls/esp0, "
                      "debugreg, io_bitmap_ptr, schedule()'s frame on its stack, thread_info: 5)"),
              "2.6.9 arch/i386/kernel/process.c __switch_to"),
          &P::switch_resume_lines),
      bind<P>(
          with_source(
              integer("schedule_code_lines", 0, 64, "lines",
                      "schedule()'s own code lines from its preempt_disable to its "
                      "preempt_enable, fetched in four runs; they miss if evicted since this "
                      "CPU's last switch (0: not charged; the seed's span +0x51..+0x337 is 23)"),
              "seed 000 traces: schedule+0x51..schedule+0x337 of 0x740"),
          &P::schedule_code_lines),
  };
}

// mm/slab.c cache_reap, and the VP IRQ threads' softirq wake-up bug.
Table<KernelParams> slab_keys() {
  return {
      bind<P>(with_source(
                  of_type(T::Bool, "slab_reap",
                          "mm/slab.c cache_reap: events/N walks every slab cache every 2 * HZ + "
                          "cpu ticks, taking each cache's spinlock with interrupts off (2.6 "
                          "flavours; off on 2.4, whose kmem_cache_reap runs from kswapd)"),
                  "2.6.9 mm/slab.c cache_reap"),
              &P::slab_reap),
      bind<P>(with_source(
                  integer("slab_caches", 0, 1000, "caches",
                          "caches on cache_chain cache_reap walks (estimate: ~100 rows in a stock "
                          "2.6.9 /proc/slabinfo)"),
                  "estimate: a stock 2.6.9 system's /proc/slabinfo"),
              &P::slab_caches),
      bind<P>(with_source(
                  integer("slab_reap_lines", 0, 64, "lines",
                          "lines cache_reap touches per cache besides its lock word's, cold after "
                          "2 s (estimate from the i386 kmem_cache_s layout: array[cpu], next_reap, "
                          "next, the array_cache: 4)"),
                  "estimate: the 2.6.9 i386 kmem_cache_s layout"),
              &P::slab_reap_lines),
      bind<P>(
          with_source(
              of_type(T::Bool, "vp_redirect_softirq_wakeup_bug",
                      "VP up to -Q7 (fixed in -Q8, seed 000): a handler run in its IRQ thread "
                      "raises softirqs that wait for the next irq_exit on that CPU (0-1 ms at HZ "
                      "1000) instead of waking ksoftirqd"),
              "seed 000: Ingo Molnar, fixed in VP -Q8"),
          &P::vp_redirect_softirq_wakeup_bug),
  };
}

// Interrupt delivery and handling; wake balancing.
Table<KernelParams> irq_keys() {
  return {
      bind_flag<P>(with_source(choice("irq_delivery", {"cpu0", "lowest_priority"},
                                      "IO-APIC entries: cpu0 (fixed, physical CPU0) or "
                                      "lowest_priority (2.6 setup_IO_APIC_irqs: logical, all "
                                      "online CPUs, dest_LowestPrio)"),
                               "2.6.9 arch/i386/kernel/io_apic.c setup_IO_APIC_irqs"),
                   &P::irq_lowest_priority, "lowest_priority"),
      bind_flag<P>(with_source(choice("shared_irq_disabled", {"first_action", "any_action"},
                                      "a shared line's handlers run with interrupts off if its "
                                      "first action passed SA_INTERRUPT (2.6.9) or if any did "
                                      "(Takashi Iwai's 2004 patch)"),
                               "Takashi Iwai's handle_IRQ_event patch, LKML 2004-08-18"),
                   &P::shared_irq_any_disables, "any_action"),
      bind<P>(with_source(
                  of_type(T::Bool, "irq_inprogress",
                          "IRQ_INPROGRESS: an interrupt reaching a CPU while another runs the "
                          "line's handlers leaves them to that CPU to run again (2.6.9 __do_IRQ)"),
                  "2.6.9 kernel/irq/handle.c __do_IRQ"),
              &P::irq_inprogress),
      bind<P>(
          with_source(
              choice("wake_balance", {"sd", "nr_running"},
                     "try_to_wake_up's CPU for a sleeping task: sd (2.6.9 sched.c: not off an "
                     "idle CPU; here if cache-cold, SD_WAKE_AFFINE, or if its CPU is 137 % as "
                     "loaded, SD_WAKE_BALANCE; the default) or nr_running (here if this CPU runs "
                     "fewer: a simpler rule)"),
              "2.6.9 kernel/sched.c try_to_wake_up, include/linux/topology.h SD_CPU_INIT"),
          &P::wake_balance),
  };
}

// task_hot, the ALSA write timer, PCI trigger, timer_ack, code scale, maxcpus.
Table<KernelParams> driver_keys() {
  return {
      bind<P>(
          with_source(
              of_type(T::Bool, "task_hot_underflow_bug",
                      "2.6.9-rc1..rc3 task_hot(): unsigned timestamp_last_tick - p->timestamp "
                      "wraps when p slept after its CPU's last tick, so it looks cache-cold and "
                      "wake-affine moves it (K. Chen, LKML 2004-10-04; fixed by a long long cast)"),
              "Kenneth Chen, LKML 2004-10-04 \"bug in sched.c:task_hot()\""),
          &P::task_hot_underflow_bug),
      bind<P>(
          with_source(
              of_type(T::Bool, "pcm_write_timeout",
                      "ALSA snd_pcm_lib_write1 sleeps in schedule_timeout(10 * HZ): add_timer on "
                      "the writer's CPU base before the sleep, del_singleshot_timer_sync -> "
                      "del_timer under that base's lock after the wake-up (2.6 flavours; 2.4's "
                      "OSS es1371_write sleeps in schedule())"),
              "ALSA sound/core/pcm_lib.c snd_pcm_lib_write1"),
          &P::pcm_write_timeout),
      bind_flag<P>(with_source(choice("pci_irq_trigger", {"edge", "level"},
                                      "IO-APIC trigger of the PCI IRQs 10 and 11: level (the "
                                      "default: MP table PCI sources, ioapic_level_type; VP masks "
                                      "the pin in the ack and unmasks it in end, 2 IO-APIC "
                                      "writes) or edge (the model's earlier rule)"),
                               "MP table PCI sources; arch/i386/kernel/io_apic.c"),
                   &P::pci_irq_level, "level"),
      bind<P>(with_source(
                  of_type(T::Bool, "timer_ack",
                          "2.6.9 do_timer_interrupt with the IO-APIC: poll the 8259A (outb 0x0c, "
                          "inb 0x20) on every tick before do_timer"),
                  "2.6.9 arch/i386/kernel/io_apic.c check_timer, time.c do_timer_interrupt"),
              &P::timer_ack),
      bind<P>(number("code_path_scale", 0.1, 50, "x",
                     "cycles of every modelled kernel function relative to the 2.6.9/i386 "
                     "estimates (a later kernel's longer paths, another core's CPI)"),
              &P::code_path_scale),
      bind<P>(integer("maxcpus", 0, 8, "CPUs",
                      "maxcpus= boot option: CPUs the kernel brings up (0: all); the rest stay "
                      "halted"),
              &P::maxcpus),
  };
}

// The /proc tunables after the block queue's /sys ones.
Table<KernelParams> tunable_keys() {
  return {
      bind<P>(integer("tunables./proc/sys/net/core/netdev_max_backlog", 1, 100000, "packets",
                      "net_rx_action budget: packets per NET_RX softirq run"),
              &P::netdev_max_backlog),
      mount<P>(bind_unsigned<LatencyTracerParams>(
                   integer("/proc/sys/kernel/preempt_max_latency", 0, 1000000, "us",
                           "tracer threshold: critical sections longer than this are recorded"),
                   &LatencyTracerParams::threshold_us),
               "tunables.", [](P& p) -> LatencyTracerParams& { return p.trace; }),
      irq_threaded_key(of_type(T::Switch, "tunables./proc/irq/14/ide0/threaded",
                               "VP: ide0's handler runs in its IRQ thread (with "
                               "hardirq_preemption)"),
                       14),
      irq_threaded_key(of_type(T::Switch, "tunables./proc/irq/11/eth0/threaded",
                               "VP: the RTL8139 handler runs in its IRQ thread (with "
                               "hardirq_preemption)"),
                       11),
      irq_threaded_key(of_type(T::Switch, "tunables./proc/irq/10/Ensoniq AudioPCI/threaded",
                               "VP: the ES1371 handler runs in its IRQ thread (with "
                               "hardirq_preemption)"),
                       10),
  };
}

// The root file system and /proc/latencytimes.
Table<KernelParams> fs_keys() {
  return {
      bind<P>(choice("rootfs", {"none", "reiserfs"},
                     "root file system mounted at boot with kupdated (reiserfs: seed 001); "
                     "dbench mounts it anyway"),
              &P::rootfs),
      bind<P>(number("latencytimes_read_s", 0, 100000, "s",
                     "2.4.10-preempt: when /proc/latencytimes is first read; the read restarts "
                     "logging, so preempt-stats.txt covers the run after it"),
              &P::latencytimes_read_s),
  };
}

}  // namespace

Table<KernelParams> kernel_keys() {
  const auto block = [](P& p) -> BlockParams& { return p.block; };
  Table<P> t = version_keys();
  append(t, sched_keys());
  append(t, slab_keys());
  append(t, irq_keys());
  mount_all(t, block_queue_keys(), "", block);
  append(t, driver_keys());
  mount_all(t, block_sysfs_keys(), "tunables.", block);
  append(t, tunable_keys());
  append(t, fs_keys());
  mount_all(t, reiserfs_keys(), "reiserfs.", [](P& p) -> ReiserFsParams& { return p.reiserfs; });
  mount_all(t, i387_keys(), "fpu.", [](P& p) -> I387Params& { return p.fpu; });
  mount_all(t, hdparm_keys(), "hdparm.", [](P& p) -> Hdparm& { return p.block.hdparm; });
  mount_all(t, aic7xxx_keys(), "aic7xxx.", [](P& p) -> Aic7xxxOptions& { return p.block.aic7xxx; });
  mount_all(t, rcu_keys(), "rcu.", [](P& p) -> RcuParams& { return p.rcu; });
  return t;
}

Table<KernelParams> mechanism_keys() {
  return {
      bind<P>(of_type(T::Bool, "isa_io_delay", "outb_p/inb_p write port 0x80 as a delay"),
              &P::io_delay),
      bind<P>(of_type(T::Bool, "mcount_overhead", "charge the tracer's own cost per mcount entry"),
              &P::mcount_overhead),
      bind<P>(
          of_type(T::Bool, "cache_locking",
                  "P6 cache locking (Intel SDM 8.1.4): a lock acquisition's locked "
                  "read-modify-write goes over the FSB only when the lock's line is not "
                  "in this CPU's cache; false: LOCK# on the bus, a transaction per acquisition"),
          &P::cache_locking),
      bind<P>(with_source(integer("mcount_cycles", 0, 10000, "cycles", "cost of one mcount entry"),
                          "assumption: one mcount entry on a PIII"),
              &P::mcount_cycles),
  };
}

KernelParams with_flavour(KernelParams p, const Flavour& f) {
  if (p.block.elevator == "auto") p.block.elevator = f.elevator;
  if (p.block.plugging == "auto") p.block.plugging = f.plugging;
  p.pcm_write_timeout = p.pcm_write_timeout && f.snd_ens1371;  // OSS: plain schedule()
  p.timer_ack = p.timer_ack && f.timer_ack;                    // later kernels ack only an 82489DX
  p.slab_reap = p.slab_reap && f.cache_reap;                   // 2.4: kswapd's reaping only
  return p;
}

}  // namespace latsim::kernel
