#include "platform/run.h"
#include <fmt/format.h>
#include <unistd.h>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"
#include "kernel_sim/workloads/cyclictest.h"
#include "kernel_sim/workloads/disk_read.h"
#include "kernel_sim/workloads/kernel_build.h"
#include "platform/machine.h"
#include "platform/outputs.h"

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
  p.max_sectors_kb = k.max_sectors_kb;
  p.read_ahead_kb = k.read_ahead_kb;
  p.preempt_max_latency_us = uint64_t(k.preempt_max_latency_us);
  p.irq_threaded[14] = k.ide0_threaded != 0;
  p.tracing_enabled = s.tracing.enabled;
  p.max_traces = size_t(s.tracing.max_traces);
  p.mcount_cycles = s.mechanisms.mcount_overhead ? s.mechanisms.mcount_cycles : 0;
  p.io_delay = s.mechanisms.isa_io_delay;
  p.ide_dma = k.hdparm.dma;
  p.ide_unmaskirq = k.hdparm.unmaskirq;
  p.apic_bus_mhz = s.platform.cpu.fsb_mhz;
  p.seed = s.seed;
  p.flavour = k.flavour;
  if (k.flavour == "rt") {
    p.high_res_timers = true;  // CONFIG_HIGH_RES_TIMERS: one-shot local APIC
    p.irq_thread_prio = 50;    // forced IRQ threads run at SCHED_FIFO 50 on -rt
  }
  return p;
}

// cyclictest -a CPUSET: "1", "0,1", "0-1" (as parse_cpumask reads it).
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  size_t i = 0;
  auto number = [&] {
    if (i >= text.size() || !std::isdigit(static_cast<unsigned char>(text[i])))
      throw std::runtime_error("workload.cyclictest.affinity: '" + text +
                               "' is not a CPU list (accepted: none, all, or CPU numbers such "
                               "as 1, 0,1 or 0-1)");
    int v = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      v = v * 10 + (text[i++] - '0');
    return v;
  };
  for (;;) {
    const int a = number();
    int b = a;
    if (i < text.size() && text[i] == '-') ++i, b = number();
    for (int c = a; c <= b; ++c) cpus.push_back(c);
    if (i == text.size()) break;
    if (text[i++] != ',') --i, number();  // reports the error
  }
  return cpus;
}

std::unique_ptr<kernel::Workload> make_workload(const WorkloadConfig& w, int ncpus) {
  const std::string name = w.name.empty() ? w.kind : w.name;
  if (w.kind == "kernel_build") {
    kernel::KernelBuildParams p;
    p.jobs = w.jobs;
    return std::make_unique<kernel::KernelBuild>(name, p);
  }
  if (w.kind == "disk_read") return std::make_unique<kernel::DiskRead>(name, w.file_mb, w.block_kb);
  kernel::CyclictestParams p;
  p.threads = w.threads;
  p.priority = w.priority;
  p.priospread = w.priospread;
  p.interval_us = w.interval_us;
  p.distance_us = w.distance_us;
  p.loops = uint64_t(w.loops);
  p.affinity_all = w.affinity == "all";
  if (w.affinity != "none" && w.affinity != "all") p.affinity = parse_cpu_list(w.affinity);
  for (int c : p.affinity)
    if (c >= ncpus)
      throw std::runtime_error(fmt::format(
          "workload.cyclictest.affinity: CPU {} does not exist (the machine has CPUs 0-{})", c,
          ncpus - 1));
  p.posix_timers = w.timer == "posix_timers";
  p.histogram_us = w.histogram_us;
  return std::make_unique<kernel::Cyclictest>(name, p);
}

}  // namespace

RunResult run_scenario(const Scenario& s, const RunOptions& o) {
  const auto wall0 = std::chrono::steady_clock::now();
  Machine m(s);
  kernel::Kernel k(kernel_params(s), m.cpu_ops());
  for (const auto& w : s.workload) k.add_workload(make_workload(w, int(m.cpu_ops().size())));
  k.boot();

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
  if (shown) std::fprintf(stderr, "\r%*s\r", 70, "");
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  RunResult r;
  r.out_dir = o.out_dir;
  r.metrics = collect_metrics(s, m, k);
  r.run_info = collect_run_info(s, wall);
  write_outputs(s, m, k, r);
  return r;
}

}  // namespace latsim::platform
