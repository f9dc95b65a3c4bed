#include "workloads/latencytest.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include "kernel_sim/drivers/sound/es1371.h"
#include "workloads/registry.h"

namespace latsim::workloads {
namespace {

using params::integer;
using P = LatencytestParams;
const Registration kLatencytest{
    {"latencytest",
     "Benno Senoner's latencytest 0.42: SCHED_FIFO audio writer + CPU loop, stress phases",
     {name_key(),
      param(params::bind(
          params::number("phase_s", 0.1, 3600, "s", "duration of each of the 7 stress phases"),
          &P::phase_s)),
      fragments_key<P>(), fragment_bytes_key<P>(),
      param(params::bind(
          params::of_type(params::ValueType::Bool, "burner", "non-RT CPU burner for the other CPU"),
          &P::burner)),
      param(params::bind(
          params::number("packets_per_s", 1, 200000, "1/s", "net in / net out packet rate"),
          &P::net_packets_per_s)),
      param(params::bind(integer("packet_bytes", 18, 1472, "bytes", "UDP payload per packet"),
                         &P::net_bytes)),
      file_mb_key<P>("tmpfile size (disk phases)")},
     [] { return P{}; },
     [](const Config& c, const Board&) { return std::make_unique<Latencytest>(c.name, c.as<P>()); },
     nullptr,
     // The far end of the cable sends during the net-in phase.
     [](const Config& c, double) -> std::optional<Arrivals> {
       const auto& p = c.as<P>();
       double start = 0, stop = 0;
       if (!Latencytest::phase_window(p, "net_in", start, stop)) return std::nullopt;
       return Arrivals{p.net_packets_per_s, p.net_bytes, start, stop};
     },
     // latencytest.txt: the seed's table with this run's column.
     [](const std::vector<const Program*>& all, const RunEnd& end) {
       for (const Program* p : all)
         end.write("latencytest.txt",
                   static_cast<const Latencytest*>(p)->report(end.kernel.params().version));
     }}};

}  // namespace

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
  int write_window = -1;  // the blame window from the last write's return
  for (;;) {
    k.user_exec(2000, 4);  // fill the fragment
    snd.write(uint32_t(p_.fragment_bytes));
    const sc_time t_write = k.now();
    // Once the buffer has filled, every write waits for a period: measure those.
    const bool measured = n > uint64_t(p_.fragments);
    close_window(k, write_window, t_write, measured, "write", "write");
    write_window = k.open_blame_window(t_write);
    const int loop_window = k.open_blame_window(t_write);
    const sc_time t0 = k.now();
    const int cpu0 = k.smp_processor_id();
    const Counters before = loop_probe_ ? loop_probe_(cpu0) : Counters{};
    // The CPU loop: calibrated work, no system calls (the loop stays in L1: no misses).
    k.user_exec(cpu_cycles_, 0);
    const double cpu = (k.now() - t0).to_seconds() * 1000.0;
    close_window(k, loop_window, t_write, measured, "loop", "cpu loop");
    if (measured)
      record((t_write - prev_write).to_seconds() * 1000.0, cpu, t_write, t0, cpu0, before);
    prev_write = t_write;
    ++n;
  }
}

void Latencytest::record(double write_ms, double cpu, sc_time at, sc_time loop_start, int cpu0,
                         const Counters& before) {
  if (sample_hook_) sample_hook_(write_ms, cpu, at);
  LATSIM_DEBUG(workloads, name_, "loop done: write {:.3f} ms, cpu {:.3f} ms", write_ms, cpu);
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

void Latencytest::close_window(Kernel& k, int id, sc_time at, bool measured, const char* what,
                               const char* measure) const {
  if (id < 0) return;  // no ledger (tracing off): no label to make
  std::string label;   // empty for a sample record() does not count: its ledger is dropped
  if (measured)
    for (const auto& ph : phases_)
      if (at >= ph.window.start && at < ph.window.stop)
        label = fmt::format("{} {} {}", name_, phase_label(ph.name), what);
  k.close_blame_window(id, label, measure);
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

// The samples in columns over the run (one per ~2 plot pixels).
void Latencytest::attach(const Attachment& a) {
  constexpr size_t kColumns = 1000;
  samples_.emplace(0.0, a.duration_s, kColumns);
  samples_->task = name();
  samples_->fragment_ms = fragment_ms();
  samples_->fragments = p_.fragments;
  samples_->cpu_ms = cpu_ms();
  for (const auto& ph : phases_)
    samples_->phases.push_back(
        {phase_label(ph.name), ph.window.start.to_seconds(), ph.window.stop.to_seconds()});
  set_loop_probe(a.cpu_counters);
  on_sample([this](double write_ms, double cpu_ms, sc_time at) {
    samples_->add(at.to_seconds(), write_ms, cpu_ms);
  });
}

void Latencytest::collect(PlotData& plots) const {
  if (samples_) plots.latencytest.push_back(*samples_);
}

namespace {

// A phase's figures: its samples, the worst deltas over nominal, the shares within
// 1 ms and 2 ms, and the longest CPU loop taken apart.
nlohmann::json phase_metrics(const LatencytestPhase& ph, double cpu_ms, double fragment_ms) {
  auto pct = [&](uint64_t a) {
    return ph.samples ? round3(100.0 * double(a) / double(ph.samples)) : 0.0;
  };
  nlohmann::json j = {
      {"samples", ph.samples},
      {"max_cpu_delta_ms", ph.samples ? round3(std::max(0.0, ph.max_cpu_ms - cpu_ms)) : 0.0},
      {"max_write_delta_ms",
       ph.samples ? round3(std::max(0.0, ph.max_write_ms - fragment_ms)) : 0.0},
      {"cpu_within_1ms_pct", pct(ph.cpu_within1)},
      {"cpu_within_2ms_pct", pct(ph.cpu_within2)},
      {"write_within_1ms_pct", pct(ph.write_within1)},
      {"write_within_2ms_pct", pct(ph.write_within2)}};
  if (ph.samples) {  // the longest CPU loop: when, where, and what its CPU did meanwhile
    nlohmann::json loop = {{"start_s", std::round(ph.max_cpu_at.to_seconds() * 1e6) / 1e6},
                           {"cpu", ph.max_cpu_cpu}};
    for (const auto& [name, v] : ph.max_cpu_breakdown) loop[name] = round3(v);
    j["max_cpu_loop"] = loop;
    j["max_write_at_s"] = std::round(ph.max_write_at.to_seconds() * 1e6) / 1e6;
  }
  return j;
}

}  // namespace

nlohmann::json Latencytest::metrics(Kernel&, double) const {
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& ph : phases_) phases[ph.name] = phase_metrics(ph, cpu_ms(), fragment_ms());
  return {{"fragment_ms", round3(fragment_ms())},
          {"cpu_loop_ms", round3(cpu_ms())},
          {"phases", phases}};
}

}  // namespace latsim::workloads
