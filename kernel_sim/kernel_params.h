#pragma once
// Everything the simulated kernel is configured with (set by the platform from
// the scenario: flavour switches, tunables by their real names, mechanisms).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace latsim::kernel {

struct KernelParams {
  std::string version = "2.6.9-rc1-VP-R1";
  int hz = 1000;
  // Voluntary-preempt patch switches (/proc/sys/kernel/*_preemption).
  bool voluntary_preemption = true;
  bool kernel_preemption = true;
  bool softirq_preemption = true;
  bool hardirq_preemption = true;
  bool nmi_watchdog = true;               // nmi_watchdog=1
  bool highmem = true;                    // CONFIG_HIGHMEM: kmap_atomic is a function (2.6)
  std::map<unsigned, bool> irq_threaded;  // /proc/irq/N/<name>/threaded (default 1)
  // IO-APIC trigger mode per IRQ (MP table: PCI INTx lines level, ISA lines edge); absent: edge.
  std::map<unsigned, bool> irq_level;
  int max_sectors_kb = 128;               // /sys/block/hda/queue/max_sectors_kb
  int read_ahead_kb = 128;                // /sys/block/hda/queue/read_ahead_kb
  uint64_t preempt_max_latency_us = 500;  // /proc/sys/kernel/preempt_max_latency
  bool tracing_enabled = true;            // /proc/sys/kernel/tracing_enabled
  size_t max_traces = 50;
  // tracing.task_at: the header names the task current when the section ends (true)
  bool trace_task_at_end = true;
  std::string trace_spans;       // tracing.spans: SpanProbe spec
  int mcount_cycles = 60;        // 0 when the tracer's cost is switched off
  bool io_delay = true;          // outb_p/inb_p add a port 0x80 write
  bool cache_locking = true;     // a lock word's locked op stays in cache when its line is there
  bool ide_dma = true;           // hdparm -d
  bool ide_unmaskirq = false;    // hdparm -u
  bool ide_io_32bit = false;     // hdparm -c
  int pagecache_mb = 256;        // assumption: page cache share of 512 MB during a build
  double apic_bus_mhz = 133.33;  // what calibrate_APIC_clock finds
  uint64_t seed = 1;
  int maxcpus = 0;               // maxcpus= boot option: smp_boot_cpus brings up this many (0: all)
  int netdev_max_backlog = 300;  // /proc/sys/net/core/netdev_max_backlog: net_rx_action budget
  int nic_weight = 64;           // dev->weight of 8139too: packets per poll before requeueing
  std::vector<uint16_t> uhci_io;  // UHCI controllers' I/O BARs, as PCI probing finds them
  unsigned usb_irq = 10;          // their (shared) interrupt line
  std::string flavour = "2.6.9-vp";  // kernel.flavour: its fields are flavour.h's Flavour
  int timer_softirq_prio = 1;        // -rt: ktimersoftd/N is SCHED_FIFO 1 ([98] in seed 003)
  // VP up to -Q7 (seed 000, Ingo Molnar, fixed in -Q8): an IRQ thread does not wake
  // ksoftirqd for the softirqs its handler raised; they wait for the next irq_exit.
  bool vp_redirect_softirq_wakeup_bug = false;
  // IO-APIC entries: false, fixed delivery to CPU0; true, as 2.6's setup_IO_APIC_irqs
  // (logical destination cpu_online_map, dest_LowestPrio: mach-default's INT_DELIVERY_MODE).
  bool irq_lowest_priority = false;
  bool shared_irq_any_disables = false;  // Takashi Iwai's handle_IRQ_event: any SA_INTERRUPT
  bool irq_inprogress = true;            // IRQ_INPROGRESS/IRQ_PENDING in do_IRQ
  // 2.6.9 check_timer sets timer_ack = 1 with the IO-APIC; do_timer_interrupt then
  // polls the 8259A (OCW3 poll + read of port 0x20) before do_timer on every tick.
  bool timer_ack = true;
  // rebalance_tick: periodic load_balance of the one CPU domain (SD_CPU_INIT, 2.6.9).
  bool periodic_balance = true;  // rebalance_tick -> load_balance (2.6 flavours; 2.4 has none)
  int balance_min_interval_ms = 1, balance_max_interval_ms = 4;  // idle; doubled while balanced
  int balance_busy_factor = 64;                                  // busy CPUs balance this much less
  int balance_imbalance_pct = 125;                               // busiest must exceed by 25 %
  int cache_hot_time_us = 2500;                                  // a task ran this recently: hot
  int cache_nice_tries = 1;  // failed balances before hot tasks move; +2 more: active balance
  // try_to_wake_up's CPU for a sleeping task (2.6 flavours): "sd", 2.6.9's wake balancing
  // over SD_CPU_INIT (SD_WAKE_AFFINE | SD_WAKE_BALANCE); "nr_running", the model's earlier
  // rule (wake on this CPU when it runs fewer tasks than the task's own).
  std::string wake_balance = "sd";
  // The request queue's I/O scheduler: noop (FIFO with back-merging) or anticipatory
  // (drivers/block/as-iosched.c, 2.6.9's default elevator).
  std::string elevator = "noop";
  // Request-queue plugging: "inline", the queue runs as soon as a request is submitted;
  // "timer", 2.6.9's plug (drivers/block/ll_rw_blk.c): a request on an empty queue plugs
  // it, and it runs when unplug_thresh requests are queued (in the submitter), when a
  // task waits on the I/O (sync_page/sync_buffer -> generic_unplug_device), or from
  // kblockd/N when the unplug_timer fires unplug_delay ticks later (blk_unplug_timeout).
  std::string plugging = "inline";
  // The page cache's reclaim order (kernel_sim/mm/page_lru.h): "active_inactive", 2.6.9's
  // two lists (pages read twice are kept over pages read once), or "fifo", oldest first.
  std::string page_lru = "active_inactive";
  int unplug_delay_ms = 3;  // blk_queue_make_request: q->unplug_delay = (3 * HZ) / 1000, min 1
  int unplug_thresh = 4;    // blk_queue_make_request: q->unplug_thresh = 4
  // 2.6.9-rc1..rc3 task_hot(): the unsigned timestamp_last_tick - p->timestamp underflows
  // when p left its CPU after that CPU's last tick, so a hot task looks cache-cold (Kenneth
  // Chen, LKML 2004-10-04 "bug in sched.c:task_hot()", fixed by a long long cast).
  bool task_hot_underflow_bug = true;
  // ALSA pcm_lib.c snd_pcm_lib_write1 sleeps in schedule_timeout(10 * HZ): a timer is
  // queued on the writer's CPU base and deleted (del_singleshot_timer_sync) on wake-up.
  bool pcm_write_timeout = false;
  // Length of this kernel's code paths relative to the modelled 2.6.9/i386 cycle
  // counts of fn() (1: those); a later kernel on another core is slower or faster.
  double code_path_scale = 1.0;
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
  // mm/slab.c cache_reap on events/N every 2 * HZ + cpu ticks (2.6 flavours; 2.4 reaps
  // from kswapd under memory pressure only): it walks every cache on cache_chain.
  bool slab_reap = false;
  int slab_caches = 100;    // estimate: rows of a stock 2.6.9 system's /proc/slabinfo
  int slab_reap_lines = 4;  // estimate from the 2.6.9 i386 kmem_cache_s layout (32-byte
                            // lines): array[cpu], next_reap/free_touched/shared, the
                            // cache_chain link, and the array_cache's avail/touched; the
                            // spinlock's line is spin_lock_irq's (Kernel::lock_line)

  // kernel.rootfs: none | reiserfs (seed 001's machine), mounted with kupdated.
  std::string rootfs = "none";
  // preempt-stats logs from the first read of /proc/latencytimes (seconds).
  double latencytimes_read_s = 0;
  // The board has an IO-APIC; without one IRQs go through the 8259A pair (virtual
  // wire to CPU0) and the tick is the PIT's IRQ0 (a 2.4 UP kernel, no local APIC timer).
  bool io_apic = true;
  // ReiserFS root: kupdated's period (bdflush interval) and the journal's batch limit.
  int kupdate_interval_s = 5;
  int journal_max_batch = 900;
};

}  // namespace latsim::kernel
