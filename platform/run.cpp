#include "platform/run.h"
#include <fmt/format.h>
#include <unistd.h>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"
#include "platform/latencytest_probe.h"
#include "platform/machine.h"
#include "platform/metrics.h"
#include "platform/outputs.h"
#include "platform/timeline/session.h"
#include "workloads/registry.h"

namespace latsim::platform {
namespace {

kernel::KernelParams kernel_params(const Scenario& s) {
  kernel::KernelParams p;
  const auto& k = s.kernel;
  p.version = k.version;
  p.hz = k.hz;
  p.voluntary_preemption = k.voluntary_preemption;
  p.kernel_preemption = k.kernel_preemption;
  p.softirq_preemption = k.softirq_preemption;
  p.hardirq_preemption = k.hardirq_preemption;
  p.nmi_watchdog = k.nmi_watchdog;
  p.highmem = k.highmem;
  p.max_sectors_kb = k.max_sectors_kb;
  p.read_ahead_kb = k.read_ahead_kb;
  p.preempt_max_latency_us = uint64_t(k.preempt_max_latency_us);
  p.irq_threaded[14] = k.ide0_threaded != 0;
  p.tracing_enabled = s.tracing.enabled;
  p.max_traces = size_t(s.tracing.max_traces);
  p.trace_spans = s.tracing.spans;
  p.trace_task_at_end = s.tracing.task_at == "end";
  p.mcount_cycles = s.mechanisms.mcount_overhead ? s.mechanisms.mcount_cycles : 0;
  p.io_delay = s.mechanisms.isa_io_delay;
  p.cache_locking = s.mechanisms.cache_locking;
  p.ide_dma = k.hdparm.dma;
  p.ide_unmaskirq = k.hdparm.unmaskirq;
  p.ide_io_32bit = k.hdparm.io_32bit;
  p.apic_bus_mhz = s.platform.cpu.fsb_mhz;
  p.seed = s.seed;
  p.maxcpus = k.maxcpus;
  p.netdev_max_backlog = k.netdev_max_backlog;
  p.irq_threaded[11] = k.eth0_threaded != 0;
  p.irq_threaded[10] = k.audiopci_threaded != 0;
  p.irq_level[10] = p.irq_level[11] = k.pci_irq_trigger == "level";
  for (int i = 0; i < s.platform.usb.uhci; ++i) p.uhci_io.push_back(kUhciIoBase[i]);
  p.usb_irq = unsigned(s.platform.usb.irq);
  p.irq_level[p.usb_irq] = k.pci_irq_trigger == "level";  // a PCI INTx# like the others
  p.flavour = k.flavour;
  p.periodic_balance = k.periodic_balance;
  p.vp_redirect_softirq_wakeup_bug = k.vp_redirect_softirq_wakeup_bug;
  p.irq_lowest_priority = k.irq_delivery == "lowest_priority";
  p.shared_irq_any_disables = k.shared_irq_disabled == "any_action";
  p.irq_inprogress = k.irq_inprogress;
  p.wake_balance = k.wake_balance;
  const bool v269 = k.flavour == "2.6.9-vp" || k.flavour == "2.6.9";
  p.elevator = k.elevator != "auto" ? k.elevator : v269 ? "anticipatory" : "noop";
  p.plugging = k.plugging != "auto" ? k.plugging : v269 ? "timer" : "inline";
  p.page_lru = k.page_lru;
  p.unplug_delay_ms = k.unplug_delay_ms;
  p.unplug_thresh = k.unplug_thresh;
  p.task_hot_underflow_bug = k.task_hot_underflow_bug;
  // 2.4's OSS es1371_write sleeps in plain schedule(): no timer (sound/oss/es1371.c).
  p.pcm_write_timeout = k.pcm_write_timeout && k.flavour.rfind("2.4", 0) != 0;
  p.timer_ack = k.timer_ack && k.flavour != "rt";  // later kernels ack only an 82489DX
  p.code_path_scale = k.code_path_scale;
  p.switch_pick_lines = k.switch_pick_lines;
  p.switch_next_lines = k.switch_next_lines;
  p.switch_mm_lines = k.switch_mm_lines;
  p.switch_resume_lines = k.switch_resume_lines;
  p.schedule_code_lines = k.schedule_code_lines;
  p.slab_reap = k.slab_reap && k.flavour.rfind("2.4", 0) != 0;  // 2.4: kswapd's reaping only
  p.slab_caches = k.slab_caches;
  p.slab_reap_lines = k.slab_reap_lines;
  p.rootfs = k.rootfs;
  p.io_apic = s.platform.io_apic;
  p.kupdate_interval_s = k.kupdate_interval_s;
  p.journal_max_batch = k.journal_max_batch;
  p.latencytimes_read_s = k.latencytimes_read_s;
  if (k.flavour == "rt") {
    p.high_res_timers = true;  // CONFIG_HIGH_RES_TIMERS: one-shot local APIC
    p.irq_thread_prio = 50;    // forced IRQ threads run at SCHED_FIFO 50 on -rt
  }
  return p;
}

// The scenario's programs, made by their kinds and handed to the kernel.
std::vector<workloads::Program*> add_workloads(const Scenario& s, kernel::Kernel& k) {
  workloads::Board board;
  board.ncpus = s.platform.cpu.count;
  board.has_video = s.platform.video.card != "none";
  board.video_mmio_base = kVideoControlBase;
  std::vector<workloads::Program*> programs;
  for (const auto& w : s.workload) {
    auto p = workloads::find_kind(w.kind)->make(w, board);
    programs.push_back(p.get());
    k.add_workload(std::move(p));
  }
  return programs;
}

// What the machine offers programs beyond the kernel (latencytest's loop breakdown).
void attach(const std::vector<workloads::Program*>& programs, const Scenario& s, const Machine& m,
            kernel::Kernel& k) {
  workloads::Attachment a;
  a.duration_s = s.duration_s;
  a.cpu_counters = [&m, &k](int cpu) { return cpu_loop_counters(m, k, cpu); };
  for (auto* p : programs) p->attach(a);
}

}  // namespace

RunResult run_scenario(const Scenario& s, const RunOptions& o) {
  check_output_paths(s, o.out_dir);                 // refuse before the run, not after it
  const auto window = timeline::resolve_window(s);  // before elaboration: may fork
  const auto wall0 = std::chrono::steady_clock::now();
  Machine m(s);
  kernel::Kernel k(kernel_params(s), m.cpu_ops());
  const auto programs = add_workloads(s, k);
  k.boot();
  auto timeline = timeline::Session::attach(s, m, k, window);
  attach(programs, s, m, k);

  const sc_core::sc_time total(s.duration_s, sc_core::SC_SEC);
  const sc_core::sc_time slice(50, sc_core::SC_MS);
  const bool tty = o.progress && !o.quiet && isatty(STDERR_FILENO);
  bool shown = false;
  while (sc_core::sc_time_stamp() < total) {
    const sc_core::sc_time left = total - sc_core::sc_time_stamp();
    sc_core::sc_start(left < slice ? left : slice);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (tty && wall > 1.0) {
      const double sim = sc_core::sc_time_stamp().to_seconds();
      std::fprintf(stderr, "\r  simulated %.2f s of %.2f s (%3.0f%%), %.1fx real time  ", sim,
                   total.to_seconds(), 100.0 * sim / total.to_seconds(), sim / wall);
      shown = true;
    }
  }
  if (timeline) timeline->finish(sc_core::sc_time_stamp());
  if (shown) std::fprintf(stderr, "\r%*s\r", 70, "");
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  RunResult r;
  r.out_dir = o.out_dir;
  for (const auto* p : programs) p->collect(r.plots);
  r.max_section_start = k.tracer().max_trace().t_start;
  r.max_section_end = k.tracer().max_trace().t_end;
  r.metrics = collect_metrics(s, RunView{m, k, programs, sc_core::sc_time_stamp().to_seconds()});
  r.run_info = collect_run_info(s, wall);
  write_outputs(s, k, programs, r);
  return r;
}

}  // namespace latsim::platform
