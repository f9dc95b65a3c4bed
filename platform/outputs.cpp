#include "platform/outputs.h"
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/workloads/cyclictest.h"
#include "kernel_sim/workloads/disk_read.h"
#include "kernel_sim/workloads/kernel_build.h"
#include "platform/scenario_emit.h"

namespace latsim::platform {
namespace fs = std::filesystem;
namespace {

double us(const sc_core::sc_time& t) { return std::round(t.to_seconds() * 1e9) / 1e3; }
double round3(double v) { return std::round(v * 1000.0) / 1000.0; }

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

// --json file of a cyclictest workload: cyclictest.json, or cyclictest-<name>.json.
std::string cyclictest_json_name(const std::string& name) {
  return name == "cyclictest" ? "cyclictest.json" : "cyclictest-" + name + ".json";
}

void merge(kernel::TimerlatStats& a, const kernel::TimerlatStats& b) {
  if (!b.count) return;
  if (!a.count || b.irq_min < a.irq_min) a.irq_min = b.irq_min;
  if (!a.count || b.thr_min < a.thr_min) a.thr_min = b.thr_min;
  a.irq_max = std::max(a.irq_max, b.irq_max);
  a.thr_max = std::max(a.thr_max, b.thr_max);
  a.irq_cur = b.irq_cur;
  a.thr_cur = b.thr_cur;
  a.irq_sum += b.irq_sum;
  a.thr_sum += b.thr_sum;
  a.count += b.count;
}

double ms(const sc_core::sc_time& t) { return std::round(t.to_seconds() * 1e6) / 1e3; }

// count/min/avg/max over all threads (as before with one), then each thread with
// the rtla timerlat split: IRQ (timer fired -> handler) and thread (-> running).
nlohmann::json cyclictest_metrics(const kernel::Cyclictest& c) {
  using nlohmann::json;
  uint64_t count = 0;
  int64_t mn = 0, mx = 0;
  double sum = 0;
  uint64_t irq_max = 0, thr_max = 0;
  json threads = json::array();
  for (int i = 0; i < c.nthreads(); ++i) {
    const auto& st = c.stats(i);
    if (st.cycles && (count == 0 || st.min < mn)) mn = st.min;
    mx = std::max(mx, st.max);
    count += st.cycles;
    sum += st.sum;
    irq_max = std::max(irq_max, st.irq_max_ns);
    thr_max = std::max(thr_max, st.thr_max_ns);
    auto avg_us = [&](double ns) { return st.cycles ? round3(ns / double(st.cycles) / 1e3) : 0.0; };
    threads.push_back(
        {{"pid", st.pid},
         {"cpu", st.cpu},
         {"priority", c.priority(i)},
         {"interval_us", c.interval_us(i)},
         {"count", st.cycles},
         {"min_us", st.min},
         {"avg_us", st.cycles ? round3(st.sum / double(st.cycles)) : 0.0},
         {"max_us", st.max},
         {"irq_latency_us",
          {{"min", round3(st.irq_min_ns / 1e3)},
           {"avg", avg_us(st.irq_sum_ns)},
           {"max", round3(st.irq_max_ns / 1e3)}}},
         {"thread_latency_us",
          {{"min", round3(st.thr_min_ns / 1e3)},
           {"avg", avg_us(st.thr_sum_ns)},
           {"max", round3(st.thr_max_ns / 1e3)}}},
         {"handler_to_thread_us",
          {{"min", round3(st.after_irq_min_ns / 1e3)},
           {"avg", avg_us(st.after_irq_sum_ns)},
           {"max", round3(st.after_irq_max_ns / 1e3)}}},
         {"timer_overruns", st.timer_overruns}});
  }
  return {{"count", count},
          {"min_us", mn},
          {"avg_us", count ? round3(sum / double(count)) : 0.0},
          {"max_us", mx},
          {"irq_latency_max_us", round3(irq_max / 1e3)},
          {"thread_latency_max_us", round3(thr_max / 1e3)},
          {"threads", threads}};
}

// Per CPU time by class, switches and migrations; per lock class (by name, as
// lockstat groups them) and per IRQ line.
void add_kernel_metrics(nlohmann::json& j, kernel::Kernel& k) {
  using nlohmann::json;
  using kernel::CpuClass;
  for (int i = 0; i < k.ncpus() && i < int(j["cpus"].size()); ++i) {
    const auto& t = k.cpu_times(i);
    auto& c = j["cpus"][size_t(i)];
    c["time_ms"] = {{"user", ms(t[CpuClass::User])},
                    {"kernel", ms(t[CpuClass::System])},
                    {"irq", ms(t[CpuClass::Irq])},
                    {"softirq", ms(t[CpuClass::Softirq])},
                    {"idle", ms(t[CpuClass::Idle])}};
    c["context_switches"] = k.cpu_rq(i).nr_switches;
    c["migrations"] = k.cpu_rq(i).nr_migrations;
  }
  struct Agg {
    uint64_t acquisitions = 0, contended = 0;
    sc_core::sc_time spin, max_spin, max_hold;
  };
  std::map<std::string, Agg> locks;
  for (const kernel::Spinlock* l : k.spinlocks()) {
    if (!l->acquisitions) continue;
    Agg& a = locks[l->name];
    a.acquisitions += l->acquisitions;
    a.contended += l->contended;
    a.spin += l->spin_total;
    a.max_spin = std::max(a.max_spin, l->max_spin);
    a.max_hold = std::max(a.max_hold, l->max_hold);
  }
  json lj = json::object();
  for (const auto& [name, a] : locks)
    lj[name] = {{"acquisitions", a.acquisitions},
                {"contended", a.contended},
                {"spin_us", us(a.spin)},
                {"max_spin_us", us(a.max_spin)},
                {"max_hold_us", us(a.max_hold)}};
  j["locks"] = lj;
  json irqs = json::object();
  for (unsigned irq = 0; irq < kernel::NR_IRQS; ++irq) {
    const auto& d = k.irq_desc(irq);
    if (!d.name) continue;
    irqs[std::to_string(irq)] = {{"name", d.name},
                                 {"count", d.count},
                                 {"threaded", d.threaded},
                                 {"max_handler_us", us(d.max_handler)},
                                 {"handler_total_us", us(d.handler_total)}};
  }
  j["irqs"] = irqs;
}

}  // namespace

nlohmann::json collect_metrics(const Scenario& s, Machine& m, kernel::Kernel& k) {
  using nlohmann::json;
  const double sim_s = sc_core::sc_time_stamp().to_seconds();
  json j;
  j["schema_version"] = 1;
  j["scenario"] = s.name;
  j["seed"] = s.seed;
  j["simulated_s"] = round3(sim_s);
  auto& tr = k.tracer();
  j["latency_tracer"] = {{"max_us", tr.max_us()},
                         {"traces_over_threshold", tr.over_threshold()},
                         {"threshold_us", tr.threshold_us()},
                         {"critical_sections", tr.sections()}};
  j["ticks"] = {{"handled", k.time_stats().ticks},
                {"lost", k.time_stats().lost_ticks},
                {"lost_warnings", k.time_stats().lost_warnings}};
  const auto& ide = m.ide.stats();
  json disk = {{"read_mb_s", 0.0},
               {"bytes_read", 0},
               {"ide_commands", ide.commands},
               {"prd_entries", ide.prd_entries},
               {"prd_64k_violations", ide.prd_64k_violations},
               {"longest_prd_entry_us", us(ide.longest_entry)},
               {"drive_cache_hits", m.disk.cache_hits()},
               {"requests", k.block().stats().requests},
               {"max_request_kb", k.block().stats().max_request_sectors / 2}};
  json workloads = json::object();
  for (const auto& w : k.workloads()) {
    if (auto* d = dynamic_cast<kernel::DiskRead*>(w.get())) {
      const double secs = sim_s - d->started().to_seconds();
      disk["bytes_read"] = d->bytes();
      disk["read_mb_s"] = secs > 0 ? round3(double(d->bytes()) / 1e6 / secs) : 0.0;
    } else if (auto* c = dynamic_cast<kernel::Cyclictest*>(w.get())) {
      workloads[w->name()] = cyclictest_metrics(*c);
    } else if (auto* b = dynamic_cast<kernel::KernelBuild*>(w.get())) {
      workloads[w->name()] = {{"compiles", b->compiles()}};
    }
  }
  j["disk"] = disk;
  j["workloads"] = workloads;
  j["pci"] = {{"utilization", round3(m.pci.utilization(sc_core::sc_time_stamp()))}};
  json cpus = json::array();
  for (auto& c : m.cpus) {
    const auto& st = c->stats();
    cpus.push_back({{"fsb_stall_us", us(st.fsb_stall)},
                    {"io_wait_us", us(st.io_wait)},
                    {"spin_us", us(st.spin)},
                    {"halted_us", us(st.halted)},
                    {"interrupts", st.interrupts},
                    {"nmis", st.nmis},
                    {"io_accesses", st.io_accesses}});
  }
  j["cpus"] = cpus;
  uint64_t switches = 0;
  for (int i = 0; i < k.ncpus(); ++i) switches += k.cpu_rq(i).nr_switches;
  j["scheduler"] = {{"context_switches", switches}};
  add_kernel_metrics(j, k);
  return j;
}

nlohmann::json collect_run_info(const Scenario& s, double wall) {
  const double sim = sc_core::sc_time_stamp().to_seconds();
  return {{"scenario", s.name},
          {"wall_seconds", std::round(wall * 1000) / 1000},
          {"simulated_seconds", std::round(sim * 1e9) / 1e9},
          {"x_real_time", wall > 0 ? std::round(sim / wall * 100) / 100 : 0.0},
          {"delta_cycles", sc_core::sc_delta_count()},
          {"versions", {{"latsim", "0.1.0"}, {"systemc", sc_core::sc_version()}}}};
}

namespace {

// The directory a run may write: never the working directory or one of its
// parents, never something that is not a previous latsim output.
fs::path checked_out_dir(const std::string& out) {
  fs::path dir = fs::absolute(out).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "out/x/" -> "out/x"
  const fs::path cwd = fs::current_path().lexically_normal();
  const auto rel = fs::relative(cwd, dir);
  if (dir == dir.root_path() || (!rel.empty() && *rel.begin() != ".."))
    throw std::runtime_error(fmt::format(
        "refusing to write outputs to {}: it holds the working directory", dir.string()));
  if (fs::exists(dir) &&
      !(fs::is_directory(dir) && (fs::is_empty(dir) || fs::exists(dir / "run-info.json"))))
    throw std::runtime_error(
        fmt::format("refusing to replace {}: it is not a latsim output directory", dir.string()));
  return dir;
}

}  // namespace

void write_outputs(const Scenario& s, Machine&, kernel::Kernel& k, const RunResult& r) {
  const fs::path final_dir = checked_out_dir(r.out_dir);
  fs::create_directories(final_dir.parent_path());
  const std::string stem = "." + final_dir.filename().string();
  const fs::path tmp = final_dir.parent_path() / fmt::format("{}.tmp-{}", stem, ::getpid());
  const fs::path old = final_dir.parent_path() / fmt::format("{}.old-{}", stem, ::getpid());
  try {
    fs::remove_all(tmp);
    fs::create_directories(tmp / "traces");
    write_file(tmp / "metrics.json", r.metrics.dump(2) + "\n");
    write_file(tmp / "run-info.json", r.run_info.dump(2) + "\n");
    write_file(tmp / "scenario.resolved.yaml", scenario_to_yaml(s));

    auto& tr = k.tracer();
    int n = 0;
    for (const auto& t : tr.traces())
      write_file(tmp / "traces" / fmt::format("trace-{:03d}-{}us.txt", ++n, t.latency_us),
                 tr.format(t));
    if (tr.sections()) write_file(tmp / "traces" / "max.txt", tr.format(tr.max_trace()));

    // cyclictest -q: the summary lines, or with -h the histogram block instead;
    // --json=cyclictest.json; and the same samples as `rtla timerlat top` shows them.
    std::string ct;
    std::map<int, kernel::TimerlatStats> timerlat;
    for (const auto& w : k.workloads()) {
      if (auto* c = dynamic_cast<kernel::Cyclictest*>(w.get())) {
        ct += c->report();
        const std::string file = cyclictest_json_name(c->name());
        kernel::CyclictestRunInfo info;
        info.cmdline = c->cmdline(file);
        info.release = k.params().version;
        info.version = k.params().kernel_preemption ? "#1 SMP PREEMPT" : "#1 SMP";
        info.realtime = s.kernel.flavour == "rt";  // /sys/kernel/realtime exists on PREEMPT_RT
        info.start_s = c->start_s();
        info.end_s = sc_core::sc_time_stamp().to_seconds();
        write_file(tmp / file, c->json(info));
        for (const auto& [cpu, t] : c->timerlat()) merge(timerlat[cpu], t);
      }
    }
    write_file(tmp / "cyclictest.txt", ct);
    if (!timerlat.empty())
      write_file(tmp / "timerlat.txt", kernel::Cyclictest::timerlat_top(
                                           timerlat, sc_core::sc_time_stamp().to_seconds()));
    // /var/log/messages: the tracer's "new N us maximum-latency" reports.
    write_file(tmp / "syslog.txt", tr.syslog("latsim"));

    std::string dmesg;
    for (const auto& l : tr.messages()) dmesg += l + "\n";
    for (const auto& l : k.dmesg()) dmesg += l + "\n";
    write_file(tmp / "dmesg.txt", dmesg);

    // Swap in: the previous output moves aside first, so a crash loses nothing.
    const bool had_old = fs::exists(final_dir);
    if (had_old) fs::rename(final_dir, old);
    fs::rename(tmp, final_dir);
    if (had_old) fs::remove_all(old);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace latsim::platform
