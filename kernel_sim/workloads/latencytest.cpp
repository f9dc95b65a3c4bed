#include "kernel_sim/workloads/latencytest.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include "kernel_sim/drivers/sound/es1371.h"

namespace latsim::kernel {

Latencytest::Latencytest(std::string name, LatencytestParams p)
    : name_(std::move(name)), p_(std::move(p)) {
  for (const auto& ph : p_.phases) {
    LatencytestPhase x;
    x.name = ph;
    double a = 0, b = 0;
    phase_window(p_, ph, a, b);
    x.window = {sc_time(a, sc_core::SC_SEC), sc_time(b, sc_core::SC_SEC)};
    phases_.push_back(x);
  }
}

bool Latencytest::phase_window(const LatencytestParams& p, const std::string& phase,
                               double& start_s, double& stop_s) {
  for (size_t i = 0; i < p.phases.size(); ++i) {
    if (p.phases[i] != phase) continue;
    start_s = p.warmup_s + double(i) * p.phase_s;
    stop_s = start_s + p.phase_s;
    return true;
  }
  return false;
}

double Latencytest::fragment_ms() const {
  return 1000.0 * p_.fragment_bytes / 4.0 / p_.rate_hz;  // 16-bit stereo frames
}
double Latencytest::cpu_ms() const { return fragment_ms() * p_.cpu_load; }

void Latencytest::start(Kernel& k) {
  cpu_cycles_ = uint64_t(std::llround(cpu_ms() * 1000.0 * k.this_cpu().mhz()));
  k.create_task(
      "latencytest", [this, &k] { audio(k); }, Policy::Fifo, p_.priority);
  if (p_.burner) {
    StressLoad::Params b;
    b.kind = "cpu_burner";
    start_stress(k, "cpu_burner", b, tasklist_lock_);
  }
  for (const auto& ph : phases_) {
    StressLoad::Params s;
    s.window = ph.window;
    s.packets_per_s = p_.net_packets_per_s;
    s.bytes = p_.net_bytes;
    s.file_mb = p_.file_mb;
    s.block_kb = p_.block_kb;
    // X11 needs the video card's driver and an X server model; until then the phase
    // is approximated by an X-server-like CPU load (a non-RT burner).
    const std::string kind = ph.name == "x11"    ? "cpu_burner"
                             : ph.name == "proc" ? "proc_read"
                                                 : ph.name;
    start_stress(k, kind, s, tasklist_lock_);
  }
}

void Latencytest::audio(Kernel& k) {
  Es1371Driver& snd = k.snd();
  snd.playback_open(p_.rate_hz, uint32_t(p_.fragment_bytes), uint32_t(p_.fragments));
  sc_time prev_write;
  uint64_t n = 0;
  for (;;) {
    k.user_exec(2000, 4);  // fill the fragment
    snd.write(uint32_t(p_.fragment_bytes));
    const sc_time t_write = k.now();
    const sc_time t0 = k.now();
    const int cpu0 = k.smp_processor_id();
    const Counters before = loop_probe_ ? loop_probe_(cpu0) : Counters{};
    // The CPU loop: calibrated work, no system calls (the loop stays in L1: no misses).
    k.user_exec(cpu_cycles_, 0);
    const double cpu = (k.now() - t0).to_seconds() * 1000.0;
    // Once the buffer has filled, every write waits for a period: measure those.
    if (n > uint64_t(p_.fragments))
      record((t_write - prev_write).to_seconds() * 1000.0, cpu, t_write, t0, cpu0, before);
    prev_write = t_write;
    ++n;
  }
}

void Latencytest::record(double write_ms, double cpu, sc_time at, sc_time loop_start, int cpu0,
                         const Counters& before) {
  if (sample_hook_) sample_hook_(write_ms, cpu, at);
  for (auto& ph : phases_) {
    if (at < ph.window.start || at >= ph.window.stop) continue;
    ph.samples++;
    if (write_ms > ph.max_write_ms) {
      ph.max_write_ms = write_ms;
      ph.max_write_at = at;
    }
    if (cpu > ph.max_cpu_ms) {
      ph.max_cpu_at = loop_start;
      ph.max_cpu_cpu = cpu0;
      ph.max_cpu_breakdown.clear();
      if (loop_probe_) {
        const Counters after = loop_probe_(cpu0);
        for (size_t i = 0; i < after.size() && i < before.size(); ++i)
          if (after[i].second != before[i].second)
            ph.max_cpu_breakdown.emplace_back(after[i].first, after[i].second - before[i].second);
      }
    }
    ph.max_cpu_ms = std::max(ph.max_cpu_ms, cpu);
    const double dw = write_ms - fragment_ms(), dc = cpu - cpu_ms();
    ph.write_within1 += dw < 1.0;
    ph.write_within2 += dw < 2.0;
    ph.cpu_within1 += dc < 1.0;
    ph.cpu_within2 += dc < 2.0;
  }
}

std::string Latencytest::phase_label(const std::string& phase) {
  if (phase == "x11") return "X11";
  if (phase == "proc") return "/proc";
  if (phase == "net_out") return "net out";
  if (phase == "net_in") return "net in";
  if (phase == "disk_write") return "dsk wrt";
  if (phase == "disk_copy") return "dsk copy";
  if (phase == "disk_read") return "disk rd";
  return phase;
}

std::string Latencytest::report(const std::string& version) const {
  auto pct = [](uint64_t a, uint64_t n) { return n ? 100.0 * double(a) / double(n) : 0.0; };
  std::string out = fmt::format(
      "latencytest 0.42 (latsim model) on {}\n"
      "fragments: {} x {} bytes, {} Hz 16-bit stereo; fragment latency {:.3f} ms\n"
      "CPU loop: {:.0f}% of a fragment, {:.3f} ms; non-RT CPU burner: {}\n"
      "phases of {:.1f} s each; X11 approximated by a CPU load (no video card driver)\n\n",
      version, p_.fragments, p_.fragment_bytes, p_.rate_hz, fragment_ms(), p_.cpu_load * 100,
      cpu_ms(), p_.burner ? "yes" : "no", p_.phase_s);
  out += "BASIC RESULTS\n=============\n";
  out += fmt::format(
      "Values in milliseconds. Nominal values for the write operation is {:.2f} msec; the CPU "
      "loop is {:.2f} msec.\n\n",
      fragment_ms(), cpu_ms());
  out += "          Max CPU   Max Write   CPU within     Write within   Samples\n";
  out += "Test      Delta     Delta       1 ms    2 ms   1 ms    2 ms\n";
  for (const auto& ph : phases_) {
    const double dc = ph.samples ? std::max(0.0, ph.max_cpu_ms - cpu_ms()) : 0.0;
    const double dw = ph.samples ? std::max(0.0, ph.max_write_ms - fragment_ms()) : 0.0;
    out += fmt::format("{:<9} {:5.2f}     {:5.2f}      {:6.2f}  {:6.2f} {:6.2f}  {:6.2f}  {}\n",
                       phase_label(ph.name), dc, dw, pct(ph.cpu_within1, ph.samples),
                       pct(ph.cpu_within2, ph.samples), pct(ph.write_within1, ph.samples),
                       pct(ph.write_within2, ph.samples), ph.samples);
  }
  return out;
}

}  // namespace latsim::kernel
