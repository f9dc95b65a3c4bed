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
#include "kernel_sim/workloads/audio_player.h"
#include "kernel_sim/workloads/cyclictest.h"
#include "kernel_sim/workloads/dbench.h"
#include "kernel_sim/workloads/disk_read.h"
#include "kernel_sim/workloads/kernel_build.h"
#include "kernel_sim/workloads/latencytest.h"
#include "kernel_sim/workloads/stress.h"
#include "kernel_sim/workloads/x11.h"
#include "platform/cpu_list.h"
#include "platform/latencytest_probe.h"
#include "platform/machine.h"
#include "platform/outputs.h"
#include "platform/timeline/session.h"
#include "platform/workload_params.h"

namespace latsim::platform {
namespace {

// The scenario's kernel parameters plus what the kernel finds on this machine.
kernel::KernelParams kernel_params(const Scenario& s) {
  kernel::KernelParams p = s.kernel;
  p.apic_bus_mhz = s.platform.cpu.fsb_mhz;  // calibrate_APIC_clock: the bus clock
  p.io_apic = s.platform.io_apic;
  for (int i = 0; i < s.platform.usb.uhci; ++i) p.uhci_io.push_back(kUhciIoBase[i]);
  p.usb_irq = unsigned(s.platform.usb.irq);
  p.seed = s.seed;
  return p;
}

std::unique_ptr<kernel::Workload> make_workload(const WorkloadConfig& w) {
  const std::string name = w.name.empty() ? w.kind : w.name;
  if (w.kind == "kernel_build") {
    kernel::KernelBuildParams p;
    p.jobs = w.jobs;
    p.source_files = w.source_files;
    p.c_kb = w.c_kb;
    p.header_files = w.header_files;
    p.common_headers = w.common_headers;
    p.headers_per_unit = w.headers_per_unit;
    p.header_kb = w.header_kb;
    p.o_kb = w.o_kb;
    p.parse_fraction = w.parse_fraction;
    p.commit_interval_s = w.commit_interval_s;
    p.first_unit = w.first_unit;
    p.user_misses_per_ms = w.l2_misses_per_ms;
    p.kbuild_command = w.command == "kbuild";
    return std::make_unique<kernel::KernelBuild>(name, p);
  }
  if (w.kind == "disk_read") return std::make_unique<kernel::DiskRead>(name, w.file_mb, w.block_kb);
  if (w.kind == "dbench") {
    kernel::DbenchParams p;
    p.clients = w.clients;
    return std::make_unique<kernel::Dbench>(name, p);
  }
  if (w.kind == "audio_player") {
    kernel::AudioPlayerParams p;
    p.fragment_bytes = uint32_t(w.fragment_bytes);
    p.fragments = uint32_t(w.fragments);
    p.decode_percent = w.decode_percent;
    p.nice = w.nice;
    return std::make_unique<kernel::AudioPlayer>(name, p);
  }
  if (w.kind == "x11") {
    kernel::X11Params p;
    p.driver = w.driver == "rude"   ? kernel::FifoPolicy::Rude
               : w.driver == "poll" ? kernel::FifoPolicy::Poll
                                    : kernel::FifoPolicy::Cached;
    p.op = w.op == "scroll"      ? kernel::X11Op::Scroll
           : w.op == "put_image" ? kernel::X11Op::PutImage
                                 : kernel::X11Op::Drag;
    p.rate_hz = w.rate_hz;
    p.width = w.width;
    p.height = w.height;
    p.step_px = w.step_px;
    p.mmio_base = kVideoControlBase;  // the BAR the X server maps
    return std::make_unique<kernel::X11>(name, p);
  }
  if (w.kind == "latencytest")
    return std::make_unique<kernel::Latencytest>(name, latencytest_params(w));
  if (w.kind != "cyclictest") {
    kernel::StressLoad::Params p;
    p.kind = w.kind;
    p.nice = w.nice;
    p.packets_per_s = w.packets_per_s;
    p.bytes = uint32_t(w.packet_bytes);
    p.file_mb = w.file_mb;
    p.block_kb = w.block_kb;
    return std::make_unique<kernel::StressLoad>(name, p);
  }
  kernel::CyclictestParams p;
  p.threads = w.threads;
  p.priority = w.priority;
  p.priospread = w.priospread;
  p.interval_us = w.interval_us;
  p.distance_us = w.distance_us;
  p.loops = uint64_t(w.loops);
  p.affinity_all = w.affinity == "all";
  // The loader has checked the list against platform.cpu.count (file:line:column errors).
  if (w.affinity != "none" && w.affinity != "all")
    p.affinity = parse_cpu_list(w.affinity).value_or(std::vector<int>{});
  p.posix_timers = w.timer == "posix_timers";
  p.histogram_us = w.histogram_us;
  return std::make_unique<kernel::Cyclictest>(name, p);
}

// Every latencytest workload's samples, in columns over the run (one per ~2 plot pixels).
std::vector<std::unique_ptr<LatencytestSamples>> watch_latencytest(const Scenario& s,
                                                                   const Machine& m,
                                                                   kernel::Kernel& k) {
  constexpr size_t kColumns = 1000;
  std::vector<std::unique_ptr<LatencytestSamples>> out;
  for (const auto& w : k.workloads()) {
    auto* lt = dynamic_cast<kernel::Latencytest*>(w.get());
    if (!lt) continue;
    auto p = std::make_unique<LatencytestSamples>(0.0, s.duration_s, kColumns);
    p->task = lt->name();
    p->fragment_ms = lt->fragment_ms();
    p->fragments = lt->params().fragments;
    p->cpu_ms = lt->cpu_ms();
    for (const auto& ph : lt->phases())
      p->phases.push_back({kernel::Latencytest::phase_label(ph.name), ph.window.start.to_seconds(),
                           ph.window.stop.to_seconds()});
    lt->set_loop_probe([&m, &k](int cpu) { return cpu_loop_counters(m, k, cpu); });
    lt->on_sample([q = p.get()](double write_ms, double cpu_ms, sc_core::sc_time at) {
      q->add(at.to_seconds(), write_ms, cpu_ms);
    });
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

RunResult run_scenario(const Scenario& s, const RunOptions& o) {
  check_output_paths(s, o.out_dir);                 // refuse before the run, not after it
  const auto window = timeline::resolve_window(s);  // before elaboration: may fork
  const auto wall0 = std::chrono::steady_clock::now();
  Machine m(s);
  kernel::Kernel k(kernel_params(s), m.cpu_ops());
  for (const auto& w : s.workload) k.add_workload(make_workload(w));
  k.boot();
  auto timeline = timeline::Session::attach(s, m, k, window);
  const auto latencytest = watch_latencytest(s, m, k);

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
  for (const auto& w : k.workloads()) {
    auto* c = dynamic_cast<kernel::Cyclictest*>(w.get());
    for (int i = 0; c && i < c->nthreads(); ++i) {  // one plot per measuring thread
      const auto& st = c->stats(i);
      const std::string task = c->nthreads() > 1 ? fmt::format("{}-T{}", w->name(), i) : w->name();
      TaskHistogram h{task,           {st.histogram.begin(), st.histogram.end()},
                      double(st.min), st.cycles ? st.sum / double(st.cycles) : 0.0,
                      double(st.max), st.cycles};
      r.histograms.push_back(std::move(h));
    }
  }
  for (const auto& lt : latencytest) r.latencytest.push_back(*lt);
  r.max_section_start = k.tracer().max_trace().t_start;
  r.max_section_end = k.tracer().max_trace().t_end;
  r.metrics = collect_metrics(s, m, k);
  r.run_info = collect_run_info(s, wall);
  write_outputs(s, m, k, r);
  return r;
}

}  // namespace latsim::platform
