#pragma once
// Everything the simulated kernel is configured with: its knobs, each declared once as
// a scenario key beside the code that reads it (kernel_keys(), mechanism_keys(),
// tracer_keys(), block_queue_keys(), ...; the default is the member's initialiser), the
// facts the platform finds probing the machine, and constants of the model.
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include "common/params.h"
#include "kernel_sim/arch/i387_params.h"
#include "kernel_sim/block/block_params.h"
#include "kernel_sim/flavour.h"
#include "kernel_sim/fs/reiserfs_params.h"
#include "kernel_sim/rcu/rcupreempt_params.h"
#include "kernel_sim/trace/latency_tracer_params.h"

namespace latsim::kernel {

struct KernelParams {
  // ---- kernel.* keys, in their canonical order (kernel_params.cpp) ----
  std::string flavour = "2.6.9-vp";                        // resolved by flavour.h
  std::string version = resolve_flavour(flavour).release;  // printed in trace headers
  int hz = 1000;
  // Voluntary-preempt patch switches (/proc/sys/kernel/*_preemption).
  bool voluntary_preemption = true;
  bool kernel_preemption = true;
  bool softirq_preemption = true;
  bool hardirq_preemption = true;
  bool nmi_watchdog = true;  // nmi_watchdog=1
  bool highmem = true;       // CONFIG_HIGHMEM: kmap_atomic is a function (2.6)
  // rebalance_tick: periodic load_balance of the one CPU domain (SD_CPU_INIT, 2.6.9).
  bool periodic_balance = true;
  // Cache lines of the switched-to task a context switch touches, counted from 2.6.9
  // (kernel/sched.c schedule/context_switch, include/asm-i386/mmu_context.h switch_mm,
  // include/asm-i386/system.h switch_to, arch/i386/kernel/process.c __switch_to; 32-byte
  // lines; a task_struct the slab put 16 bytes into a line spans one pick line fewer).
  // Each misses if evicted since the task last ran, or comes from the other CPU.
  int switch_pick_lines = 3;    // schedule(): next's prio, run_list/timestamp, activated lines
  int switch_next_lines = 3;    // next->mm; switch_to: thread.esp/eip, the stack line it pushes
  int switch_mm_lines = 2;      // switch_mm: next mm's pgd line, cpu_vm_mask/context line
  int switch_resume_lines = 5;  // after __switch_to: thread tls/esp0, debugreg, io_bitmap_ptr
                                // lines, schedule()'s frame on next's stack, thread_info
  // schedule()'s own code in its preempt-off span, as a function's footprint: lines that
  // miss once evicted since this CPU last switched. The seed's traces run it from
  // schedule+0x51 to schedule+0x337 (of 0x740): 742 bytes, at most 23 lines of 32 bytes
  // (not all on one path). 0, the default: not charged (a counterfactual switch; see
  // scenarios/CALIBRATION.md).
  int schedule_code_lines = 0;
  // mm/slab.c cache_reap on events/N every 2 * HZ + cpu ticks (Flavour::cache_reap: 2.4
  // reaps from kswapd under memory pressure only): it walks every cache on cache_chain.
  bool slab_reap = true;
  int slab_caches = 100;    // estimate: rows of a stock 2.6.9 system's /proc/slabinfo
  int slab_reap_lines = 4;  // estimate from the 2.6.9 i386 kmem_cache_s layout (32-byte
                            // lines): array[cpu], next_reap/free_touched/shared, the
                            // cache_chain link, and the array_cache's avail/touched; the
                            // spinlock's line is spin_lock_irq's (Kernel::lock_line)
  // VP up to -Q7 (seed 000, Ingo Molnar, fixed in -Q8): an IRQ thread does not wake
  // ksoftirqd for the softirqs its handler raised; they wait for the next irq_exit.
  bool vp_redirect_softirq_wakeup_bug = false;
  // IO-APIC entries (kernel.irq_delivery): false, fixed delivery to CPU0; true, as 2.6's
  // setup_IO_APIC_irqs (logical destination cpu_online_map, dest_LowestPrio:
  // mach-default's INT_DELIVERY_MODE).
  bool irq_lowest_priority = true;
  // kernel.shared_irq_disabled any_action: Takashi Iwai's handle_IRQ_event, interrupts off
  // for a shared line if any action passed SA_INTERRUPT (2.6.9: its first action's).
  bool shared_irq_any_disables = false;
  bool irq_inprogress = true;  // IRQ_INPROGRESS/IRQ_PENDING in do_IRQ
  // try_to_wake_up's CPU for a sleeping task (2.6 flavours): "sd", 2.6.9's wake balancing
  // over SD_CPU_INIT (SD_WAKE_AFFINE | SD_WAKE_BALANCE); "nr_running", the model's earlier
  // rule (wake on this CPU when it runs fewer tasks than the task's own).
  std::string wake_balance = "sd";
  BlockParams block;  // kernel.elevator ... unplug_thresh, /sys/block/hda/queue/*, hdparm
  // 2.6.9-rc1..rc3 task_hot(): the unsigned timestamp_last_tick - p->timestamp underflows
  // when p left its CPU after that CPU's last tick, so a hot task looks cache-cold (Kenneth
  // Chen, LKML 2004-10-04 "bug in sched.c:task_hot()", fixed by a long long cast).
  bool task_hot_underflow_bug = true;
  // ALSA pcm_lib.c snd_pcm_lib_write1 sleeps in schedule_timeout(10 * HZ): a timer is
  // queued on the writer's CPU base and deleted (del_singleshot_timer_sync) on wake-up
  // (Flavour::snd_ens1371: 2.4's OSS es1371_write sleeps in plain schedule()).
  bool pcm_write_timeout = true;
  // IO-APIC trigger of the PCI INTx# lines (kernel.pci_irq_trigger level, as the MP table's
  // PCI sources; edge, the model's earlier rule); ISA lines are edge-triggered.
  bool pci_irq_level = true;
  // 2.6.9 check_timer sets timer_ack = 1 with the IO-APIC; do_timer_interrupt then
  // polls the 8259A (OCW3 poll + read of port 0x20) before do_timer on every tick.
  bool timer_ack = true;
  // Length of this kernel's code paths relative to the modelled 2.6.9/i386 cycle
  // counts of fn() (1: those); a later kernel on another core is slower or faster.
  double code_path_scale = 1.0;
  int maxcpus = 0;               // maxcpus= boot option: smp_boot_cpus brings up this many (0: all)
  int netdev_max_backlog = 300;  // /proc/sys/net/core/netdev_max_backlog: net_rx_action budget
  std::map<unsigned, bool> irq_threaded;  // /proc/irq/N/<name>/threaded (absent: 1)
  std::string rootfs = "none";  // kernel.rootfs: none | reiserfs (seed 001's), with kupdated
  // preempt-stats logs from the first read of /proc/latencytimes (seconds).
  double latencytimes_read_s = 0;
  ReiserFsParams reiserfs;  // kernel.reiserfs.*: kupdated's period, the journal's batch limit
  I387Params fpu;           // kernel.fpu.*: CONFIG_MK7's MMX routines, the Athlon patch, costs
  RcuParams rcu;            // kernel.rcu.*: CONFIG_RCU_TRACE, boosting (preempt-RCU flavours)

  // ---- mechanisms.* keys the kernel reads (mechanism_keys) ----
  bool io_delay = true;         // outb_p/inb_p add a port 0x80 write
  bool mcount_overhead = true;  // the tracer's own cost per mcount entry is charged
  bool cache_locking = true;    // a lock word's locked op stays in cache when its line is there
  int mcount_cycles = 60;       // assumption: cost of one mcount entry on a PIII

  // ---- tracing.* keys and /proc/sys/kernel/preempt_max_latency (tracer_keys) ----
  LatencyTracerParams trace;

  // ---- facts the platform finds (platform/run.cpp), no keys of their own ----
  double apic_bus_mhz = 133.33;   // what calibrate_APIC_clock finds
  uint64_t seed = 1;              // the scenario's: root of the kernel's random streams
  std::vector<uint16_t> uhci_io;  // UHCI controllers' I/O BARs, as PCI probing finds them
  unsigned usb_irq = 10;          // their (shared) interrupt line
  // platform.disk.adapter aic7xxx: the disk is sda on an AIC-7880 at this I/O BAR and IRQ.
  bool scsi_disk = false;
  uint16_t scsi_io = 0;
  unsigned scsi_irq = 9;
  // The board has an IO-APIC; without one IRQs go through the 8259A pair (virtual
  // wire to CPU0) and the tick is the PIT's IRQ0 (a 2.4 UP kernel, no local APIC timer).
  bool io_apic = true;
  // eth0 is the MPC5200's FEC fed by BestComm (fec_mpc52xx), not the RTL8139 (8139too).
  bool fec = false;
  // The MPC5200 board: IRQs through its own controller (arch/powerpc/sysdev/mpc52xx_pic),
  // no 8254 (no IRQ 0), no local APIC: the tick is the decrementer at the time-base rate.
  bool mpc52xx_pic = false;
  bool pit = true;
  bool local_apic = true;
  double timebase_mhz = 33.0;  // ppc_tb_freq, as the boot loader's device tree gives it

  // ---- constants of the model, no keys ----
  int nic_weight = 64;         // dev->weight of 8139too: packets per poll before requeueing
  int timer_softirq_prio = 1;  // -rt: ktimersoftd/N is SCHED_FIFO 1 ([98] in seed 003)
  int balance_min_interval_ms = 1, balance_max_interval_ms = 4;  // idle; doubled while balanced
  int balance_busy_factor = 64;                                  // busy CPUs balance this much less
  int balance_imbalance_pct = 125;                               // busiest must exceed by 25 %
  int cache_hot_time_us = 2500;                                  // a task ran this recently: hot
  int cache_nice_tries = 1;  // failed balances before hot tasks move; +2 more: active balance
};

// kernel.*, paths under "kernel." (kernel_params.cpp), in the canonical order.
params::Table<KernelParams> kernel_keys();
// The kernel's mechanisms.* keys, paths under "mechanisms." (kernel_params.cpp); the
// scenario lists them among the platform's.
params::Table<KernelParams> mechanism_keys();
// The knobs the flavour decides: elevator and plugging `auto`, and the mechanisms a
// flavour's kernel lacks (Flavour::snd_ens1371, timer_ack, cache_reap) switched off.
KernelParams with_flavour(KernelParams p, const Flavour& f);

}  // namespace latsim::kernel
