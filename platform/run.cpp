#include "platform/run.h"
#include <fmt/format.h>
#include <unistd.h>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include "common/local_time.h"
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/kernel.h"
#include "platform/blame_json.h"
#include "platform/latencytest_probe.h"
#include "platform/machine.h"
#include "platform/metrics.h"
#include "platform/output_transaction.h"
#include "platform/outputs.h"
#include "platform/timeline/session.h"
#include "workloads/registry.h"

namespace latsim::platform {

kernel::KernelParams kernel_params(const Scenario& s) {
  kernel::KernelParams p = s.kernel;
  p.apic_bus_mhz = s.platform.cpu.fsb_mhz;  // calibrate_APIC_clock: the bus clock
  p.io_apic = s.platform.ioapic.fitted;
  p.fec = s.platform.fec.fitted;
  p.mpc52xx_pic = s.platform.mpc52xx_pic.fitted;
  p.pit = s.platform.pit.fitted;
  p.local_apic = s.platform.cpu.local_apic;
  p.timebase_mhz = s.platform.cpu.fsb_mhz / s.platform.cpu.timebase_divider;  // ppc_tb_freq
  for (int i = 0; i < s.platform.usb.uhci; ++i) p.uhci_io.push_back(kUhciIoBase[i]);
  p.usb_irq = unsigned(s.platform.usb.irq);
  p.scsi_disk = s.platform.disk.adapter == "aic7xxx";
  p.scsi_io = kScsiIoBase;
  p.scsi_irq = unsigned(s.platform.scsi.irq);
  p.seed = s.seed;
  return p;
}

std::vector<workloads::Program*> add_workloads(const Scenario& s, kernel::Kernel& k) {
  workloads::Board board;
  board.ncpus = s.platform.cpu.count;
  board.has_video = s.platform.video.card != "none";
  board.video_mmio_base = kVideoControlBase;
  std::vector<workloads::Program*> programs;
  for (const auto& w : s.workload) {
    if (!w.enabled) continue;
    auto p = workloads::find_kind(w.kind)->make(w, board);
    programs.push_back(p.get());
    k.add_workload(std::move(p));
  }
  return programs;
}

namespace {

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
  std::optional<OutputTransaction> tx;  // begun before the run, not found unwritable after it
  if (!o.out_dir.empty()) {
    check_output_paths(s, o.out_dir);
    tx.emplace(o.out_dir);
  }
  const auto window = timeline::resolve_window(s);  // before elaboration: may fork
  const auto wall0 = std::chrono::steady_clock::now();
  Machine m(s);
  kernel::Kernel k(kernel_params(s), m.cpu_ops());
  const auto programs = add_workloads(s, k);
  k.boot();
  auto timeline = timeline::Session::attach(s, m, k, window, tx ? &*tx : nullptr);
  attach(programs, s, m, k);

  const sc_core::sc_time total(s.duration_s, sc_core::SC_SEC);
  const sc_core::sc_time slice(50, sc_core::SC_MS);
  const bool tty = o.progress && !o.quiet && isatty(STDERR_FILENO);
  bool shown = false;
  local_time::enable(s.platform.cpu.run_ahead);
  // A failed timeline write ends the run early (finish() throws it).
  while (sc_core::sc_time_stamp() < total && !(timeline && timeline->failed())) {
    const sc_core::sc_time left = total - sc_core::sc_time_stamp();
    local_time::set_stop(sc_core::sc_time_stamp() + (left < slice ? left : slice));
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
  RunResult r;
  const RunView view{m, k, programs, sc_core::sc_time_stamp().to_seconds()};
  if (k.blame()) r.blame = blame_ledgers(view);
  // The timeline draws the ledgers under their intervals.
  if (timeline) timeline->finish(sc_core::sc_time_stamp(), k.blame() ? &r.blame : nullptr);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  r.out_dir = o.out_dir;
  for (const auto* p : programs) p->collect(r.plots);
  r.max_section_start = k.tracer().max_trace().t_start;
  r.max_section_end = k.tracer().max_trace().t_end;
  r.metrics = collect_metrics(s, view);
  r.run_info = collect_run_info(s, wall);
  if (tx) {
    write_outputs(s, k, programs, r, *tx);
    if (o.extra_files)
      for (const auto& [name, text] : o.extra_files(r)) tx->write(name, text);
    tx->commit();
    r.files = tx->files();
    r.files_beside = tx->files_beside();
  }
  return r;
}

}  // namespace latsim::platform
