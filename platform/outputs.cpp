#include "platform/outputs.h"
#include <fmt/format.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/drivers/net/rtl8139.h"
#include "kernel_sim/drivers/sound/es1371.h"
#include "kernel_sim/drivers/usb/uhci_hcd.h"
#include "kernel_sim/fs/reiserfs.h"
#include "kernel_sim/net/dev.h"
#include "kernel_sim/workloads/audio_player.h"
#include "kernel_sim/workloads/cyclictest.h"
#include "kernel_sim/workloads/dbench.h"
#include "kernel_sim/workloads/disk_read.h"
#include "kernel_sim/workloads/kernel_build.h"
#include "kernel_sim/workloads/latencytest.h"
#include "kernel_sim/workloads/x11.h"
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

// pci.*: bus use per master from the announced burst trains (no per-burst events)
// and the host bridge's own transactions; the CPU's wait per transaction.
nlohmann::json pci_metrics(Machine& m, sc_core::sc_time over) {
  using nlohmann::json;
  const auto& st = m.pci.stats();
  const double span = over.to_seconds();
  auto frac = [&](sc_core::sc_time t) { return span > 0 ? round3(t.to_seconds() / span) : 0.0; };
  json masters = json::object();
  const auto& names = m.pci.master_names();
  for (size_t i = 0; i < names.size(); ++i) {
    const int id = int(i);
    sc_core::sc_time busy = i == 0 ? st.host_busy : sc_core::SC_ZERO_TIME;
    sc_core::sc_time longest = i == 0 ? st.longest_transaction : sc_core::SC_ZERO_TIME;
    if (auto it = st.master_busy.find(id); i > 0 && it != st.master_busy.end()) busy = it->second;
    if (auto it = st.longest_tenure.find(id); i > 0 && it != st.longest_tenure.end())
      longest = it->second;
    masters[names[i]] = {
        {"occupancy", frac(busy)}, {"busy_us", us(busy)}, {"longest_tenure_us", us(longest)}};
  }
  json hist = json::array();
  const auto& edges = pci::cpu_wait_buckets_us();
  for (size_t b = 0; b < st.cpu_wait_hist.size(); ++b) {
    json row = {{"from_us", b == 0 ? 0.0 : edges[b - 1]}, {"count", st.cpu_wait_hist[b]}};
    row["to_us"] = b < edges.size() ? json(edges[b]) : json(nullptr);
    hist.push_back(row);
  }
  const double avg = st.cpu_waits ? round3(to_us(st.cpu_wait_total) / double(st.cpu_waits)) : 0.0;
  return {{"utilization", round3(m.pci.utilization(over))},
          {"masters", masters},
          {"retries", st.retries},
          {"delayed_transactions",
           {{"latched", st.delayed_latched},
            {"completed", st.delayed_completed},
            {"discarded", st.delayed_discarded}}},
          {"cpu_wait",
           {{"transactions", st.cpu_waits},
            {"avg_us", avg},
            {"max_us", us(st.longest_cpu_wait)},
            {"histogram", hist}}}};
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
    threads.push_back({{"pid", st.pid},
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
                       {"timer_overruns", st.timer_overruns},
                       {"context_switches", st.context_switches},
                       {"migrations", st.migrations}});
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
  using kernel::CpuClass;
  using nlohmann::json;
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
    const auto& off = k.irqs_off(i);
    c["irqs_off"] = {{"sections", off.sections},
                     {"total_ms", ms(off.total)},
                     {"max_us", round3(off.max.to_seconds() * 1e6)},
                     {"max_started_in", off.max_started_in}};
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
    if (d.actions.empty()) continue;
    json per_cpu = json::array();  // kstat_cpu(cpu).irqs[irq], as /proc/interrupts
    for (int c = 0; c < k.ncpus(); ++c) per_cpu.push_back(k.per_cpu(c).kstat_irqs[irq]);
    irqs[std::to_string(irq)] = {{"name", d.name},
                                 {"count", d.count},
                                 {"per_cpu", per_cpu},
                                 {"threaded", d.threaded},
                                 {"max_handler_us", us(d.max_handler)},
                                 {"handler_total_us", us(d.handler_total)},
                                 {"max_hardirq_us", us(d.max_hardirq)},
                                 {"hardirq_total_us", us(d.hardirq_total)}};
  }
  j["irqs"] = irqs;
}

// preempt-stats (2.4.10-preempt): the table's top entry, and the longest entry per
// cause; `worst_is.<cause>` and `worst_in.<file>` are 1 for the top entry's cause
// and for the files its start and end lie in.
void add_preempt_stats(nlohmann::json& j, kernel::Kernel& k) {
  const kernel::PreemptStats* ps = k.preempt_stats();
  if (!ps) return;
  auto cause_of = [&k](const kernel::PreemptStatsEntry& e) -> std::string {
    static const char* const kCause[] = {"Unknown", "spin_lock", "reacqBKL", "BKL"};
    if (e.cause == kernel::CAUSE_ENTRY) return "unknown";
    if (e.cause < 0) return "irq";
    (void)k;
    return e.cause > kernel::CAUSE_BKL ? "Unknown" : kCause[e.cause];
  };
  auto site = [](const kernel::SourceLine& s) {
    return fmt::format("{}/{}", s.line, s.file ? s.file : "entry.S");
  };
  nlohmann::json cpus = nlohmann::json::array();
  uint64_t max_us = 0, measured = 0;
  nlohmann::json worst, by_cause = nlohmann::json::object();
  for (int c = 0; c < k.ncpus(); ++c) {
    const auto rows = ps->worst(c);
    measured += ps->measured(c);
    for (const auto& e : rows) {
      if (!e.latency_us) continue;
      auto& m = by_cause[cause_of(e)];
      if (m.is_null() || m.get<uint64_t>() < e.latency_us) m = e.latency_us;
    }
    if (rows.front().latency_us > max_us || worst.is_null()) {
      const auto& e = rows.front();
      max_us = e.latency_us;
      worst = {{"us", e.latency_us},
               {"cause", e.cause < 0 && e.cause != kernel::CAUSE_ENTRY
                             ? k.irq_desc(unsigned(~e.cause)).name
                             : cause_of(e)},
               {"mask", e.mask},
               {"start", site(e.start)},
               {"end", site(e.end)},
               {"cpu", c}};
      nlohmann::json is = {
          {"spin_lock", 0}, {"BKL", 0}, {"reacqBKL", 0}, {"irq", 0}, {"unknown", 0}};
      is[cause_of(e)] = 1;
      nlohmann::json in = nlohmann::json::object();
      for (const auto* f : {e.start.file, e.end.file}) {
        std::string key = f ? f : "entry.S";
        std::replace(key.begin(), key.end(), '.', '_');  // metric paths split at dots
        in[key] = 1;
      }
      worst["is"] = is;
      worst["in"] = in;
    }
  }
  j["preempt_stats"] = {
      {"max_us", max_us}, {"measured", measured}, {"worst", worst}, {"max_us_by_cause", by_cause}};
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
  for (const auto& sp : tr.spans().stats())
    j["latency_tracer"]["spans"][sp.name] = {{"count", sp.count},
                                             {"median_us", round3(sp.median_us)},
                                             {"p90_us", round3(sp.p90_us)},
                                             {"max_us", round3(sp.max_us)}};
  add_preempt_stats(j, k);
  if (const kernel::ReiserFs* fs = k.reiserfs_if_mounted()) {
    const auto& f = fs->stats();
    j["reiserfs"] = {{"commits", f.commits},
                     {"committed_blocks", f.committed_blocks},
                     {"max_commit_blocks", f.max_commit_blocks},
                     {"join_waits", f.join_waits},
                     {"creates", f.creates},
                     {"unlinks", f.unlinks}};
  }
  j["ticks"] = {{"handled", k.time_stats().ticks},
                {"lost", k.time_stats().lost_ticks},
                {"lost_warnings", k.time_stats().lost_warnings}};
  j["softirqs"] = {{"inline_runs", k.softirq_stats().inline_runs},
                   {"ksoftirqd_runs", k.softirq_stats().ksoftirqd_runs}};
  const auto& ide = m.ide.stats();
  // Bytes the disk delivered into the page cache, for every file (cat's own read(2)
  // figures are workloads.<disk_read>).
  const uint64_t disk_bytes = k.block().stats().pages_from_disk * 4096;
  json disk = {{"read_mb_s", sim_s > 0 ? round3(double(disk_bytes) / 1e6 / sim_s) : 0.0},
               {"bytes_read", disk_bytes},
               {"read_requests", k.block().stats().read_requests},
               {"write_requests", k.block().stats().write_requests},
               {"bytes_written", k.block().stats().pages_written * 4096},
               {"ide_commands", ide.commands},
               {"prd_entries", ide.prd_entries},
               {"prd_64k_violations", ide.prd_64k_violations},
               {"longest_prd_entry_us", us(ide.longest_entry)},
               {"drive_cache_hits", m.disk.cache_hits()},
               {"requests", k.block().stats().requests},
               {"max_request_kb", k.block().stats().max_request_sectors / 2},
               {"plugs", k.block().stats().plugs},
               {"unplugs_thresh", k.block().stats().unplugs_thresh},
               {"unplugs_wait", k.block().stats().unplugs_wait},
               {"unplugs_timer", k.block().stats().unplugs_timer}};
  // The page cache's lists (kernel.page_lru) at the end of the run, and their traffic.
  const auto& lru = k.block().lru();
  disk["page_cache"] = {{"active_pages", lru.nr_active()},
                        {"inactive_pages", lru.nr_inactive()},
                        {"activations", lru.stats().activations},
                        {"deactivations", lru.stats().deactivations},
                        {"evictions", k.block().stats().evictions}};
  json workloads = json::object();
  for (const auto& w : k.workloads()) {
    if (auto* d = dynamic_cast<kernel::DiskRead*>(w.get())) {
      const double secs = sim_s - d->started().to_seconds();
      workloads[w->name()] = {{"bytes", d->bytes()},
                              {"mb_s", secs > 0 ? round3(double(d->bytes()) / 1e6 / secs) : 0.0}};
    } else if (auto* c = dynamic_cast<kernel::Cyclictest*>(w.get())) {
      workloads[w->name()] = cyclictest_metrics(*c);
    } else if (auto* db = dynamic_cast<kernel::Dbench*>(w.get())) {
      // dbench's "Throughput N MB/sec": bytes read and written by the clients.
      workloads[w->name()] = {{"ops", db->ops()},
                              {"throughput_mb_s", round3(double(db->bytes()) / 1e6 / sim_s)}};
    } else if (auto* ap = dynamic_cast<kernel::AudioPlayer*>(w.get())) {
      workloads[w->name()] = {{"fragments", ap->fragments_written()},
                              {"xruns", k.snd_if_up() ? k.snd_if_up()->stats().xruns : 0}};
    } else if (auto* b = dynamic_cast<kernel::KernelBuild*>(w.get())) {
      const auto& bs = b->stats();
      workloads[w->name()] = {
          {"compiles", b->compiles()},
          {"bytes_read", bs.bytes_read},
          {"bytes_written", bs.bytes_written},
          {"files_read", bs.files_read},
          {"cold_files", bs.cold_files},
          {"processes",
           {{"forks", bs.forks}, {"vforks", bs.vforks}, {"execs", bs.execs}, {"exits", bs.exits}}}};
    } else if (auto* x = dynamic_cast<kernel::X11*>(w.get())) {
      const auto& f = x->fifo_stats();
      workloads[w->name()] = {
          {"driver", kernel::policy_name(x->params().driver)},
          {"events", x->stats().events},
          {"events_merged", x->stats().skipped},
          {"fifo_writes", f.writes},
          {"status_reads", f.status_reads},
          {"status_reads_spinning", f.spin_reads},
          // reads that decided a store (not the wait loop's repeats)
          {"status_checks_per_write",
           f.writes ? round3(double(f.status_reads - f.spin_reads) / double(f.writes)) : 0.0}};
    } else if (auto* lt = dynamic_cast<kernel::Latencytest*>(w.get())) {
      json phases = json::object();
      for (const auto& ph : lt->phases()) {
        auto pct = [&](uint64_t a) {
          return ph.samples ? round3(100.0 * double(a) / double(ph.samples)) : 0.0;
        };
        phases[ph.name] = {
            {"samples", ph.samples},
            {"max_cpu_delta_ms",
             ph.samples ? round3(std::max(0.0, ph.max_cpu_ms - lt->cpu_ms())) : 0.0},
            {"max_write_delta_ms",
             ph.samples ? round3(std::max(0.0, ph.max_write_ms - lt->fragment_ms())) : 0.0},
            {"cpu_within_1ms_pct", pct(ph.cpu_within1)},
            {"cpu_within_2ms_pct", pct(ph.cpu_within2)},
            {"write_within_1ms_pct", pct(ph.write_within1)},
            {"write_within_2ms_pct", pct(ph.write_within2)}};
        if (ph.samples) {  // the longest CPU loop: when, where, and what its CPU did meanwhile
          json loop = {{"start_s", std::round(ph.max_cpu_at.to_seconds() * 1e6) / 1e6},
                       {"cpu", ph.max_cpu_cpu}};
          for (const auto& [name, v] : ph.max_cpu_breakdown) loop[name] = round3(v);
          phases[ph.name]["max_cpu_loop"] = loop;
          phases[ph.name]["max_write_at_s"] = std::round(ph.max_write_at.to_seconds() * 1e6) / 1e6;
        }
      }
      workloads[w->name()] = {{"fragment_ms", round3(lt->fragment_ms())},
                              {"cpu_loop_ms", round3(lt->cpu_ms())},
                              {"phases", phases}};
    }
  }
  if (k.has_drivers() || k.block().stats().pages_dirtied) {
    json drivers = json::object();
    if (auto* n = k.nic_if_up()) {
      const auto& ns = k.net().stats();
      drivers["eth0"] = {{"irqs", n->stats().irqs},
                         {"rx_packets", n->stats().rx_packets},
                         {"tx_packets", n->stats().tx_packets},
                         {"polls", n->stats().polls},
                         {"net_rx_action_runs", ns.rx_action_runs},
                         {"time_squeeze", ns.time_squeeze},
                         {"max_packets_per_poll", ns.max_packets_per_poll},
                         {"max_schedule_to_poll_us", us(ns.max_schedule_to_poll)},
                         {"socket_drops", ns.socket_drops},
                         {"nic_frames_dropped_overflow", m.nic.stats().frames_dropped_overflow}};
    }
    if (auto* a = k.snd_if_up()) {
      const auto& as = a->stats();
      drivers["audiopci"] = {{"irqs", as.irqs},           {"periods", as.periods},
                             {"writes", as.writes},       {"xruns", as.xruns},
                             {"prepares", as.prepares},   {"src_accesses", as.src_accesses},
                             {"src_polls", as.src_polls}, {"src_max_us", us(as.src_max)}};
    }
    if (!k.uhci().empty()) {  // uhci_hcd's handler calls and the controllers' USBSTS reads
      json hcs = json::array();
      for (size_t i = 0; i < k.uhci().size(); ++i) {
        const auto& hs = k.uhci()[i]->stats();
        hcs.push_back({{"handler_calls", hs.calls},
                       {"not_mine", hs.not_mine},
                       {"status_reads", m.usb[i]->status_reads()}});
      }
      drivers["uhci_hcd"] = hcs;
    }
    const auto& bs = k.block().stats();
    if (bs.pages_dirtied)
      drivers["writeback"] = {{"pages_dirtied", bs.pages_dirtied},
                              {"pages_written", bs.pages_written},
                              {"write_requests", bs.write_requests},
                              {"throttled", bs.throttled},
                              {"max_dirty_pages", bs.max_dirty}};
    j["drivers"] = drivers;
  }
  j["disk"] = disk;
  j["workloads"] = workloads;
  j["pci"] = pci_metrics(m, sc_core::sc_time_stamp());
  json cpus = json::array();
  for (auto& c : m.cpus) {
    const auto& st = c->stats();
    cpus.push_back({{"fsb_stall_us", us(st.fsb_stall)},
                    {"io_wait_us", us(st.io_wait)},
                    {"spin_us", us(st.spin)},
                    {"halted_us", us(st.halted)},
                    {"interrupts", st.interrupts},
                    {"nmis", st.nmis},
                    {"smis", st.smis},
                    {"io_accesses", st.io_accesses},
                    {"coherence_misses", st.coherence}});
    auto causes = [](const cpu::StallCauses& c) {
      return json{
          {"memory", us(c.memory)},         {"pci", us(c.pci)},   {"isa", us(c.isa)},
          {"video_fifo", us(c.video_fifo)}, {"spin", us(c.spin)}, {"smm", us(c.smm)},
      };
    };
    cpus.back()["stall_us"] = causes(st.stall);          // totals by cause
    cpus.back()["stall_max_us"] = causes(st.stall_max);  // longest single stall by cause
  }
  j["cpus"] = cpus;
  if (m.video) {  // only boards with a graphics card: other runs' metrics stay as they were
    const auto& v = m.video->stats();
    j["video"] = {{"commands", v.fifo_writes},
                  {"renders", v.renders},
                  {"status_reads", v.status_reads},
                  {"status_reads_per_command",
                   v.fifo_writes ? round3(double(v.status_reads) / double(v.fifo_writes)) : 0.0},
                  {"fifo_max_level", v.max_level},
                  {"fifo_full_ms", round3(v.time_full.to_seconds() * 1e3)},
                  {"writes_into_full_fifo", v.full_writes},
                  {"retries", v.retries},
                  {"longest_bus_hold_us", us(v.longest_hold)},
                  {"bus_hold_total_ms", round3(v.hold_total.to_seconds() * 1e3)},
                  {"longest_pci_transaction_us", us(m.pci.stats().longest_transaction)}};
  }
  uint64_t switches = 0;
  for (int i = 0; i < k.ncpus(); ++i) switches += k.cpu_rq(i).nr_switches;
  j["scheduler"] = {{"context_switches", switches}};
  const auto& tlb = k.tlb_stats();
  j["tlb_shootdown"] = {{"flushes", tlb.flushes},
                        {"ipis", tlb.ipis},
                        {"wait_max_us", us(tlb.wait_max)},
                        {"wait_total_us", us(tlb.wait_total)}};
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
          // Simulator cost: SystemC evaluation phases (delta cycles) per simulated second.
          {"events_per_simulated_s",
           sim > 0 ? std::round(double(sc_core::sc_delta_count()) / sim) : 0.0},
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

void check_output_paths(const Scenario& s, const std::string& out_dir) {
  const fs::path dir = checked_out_dir(out_dir);
  for (const auto& [key, file] : {std::pair{"outputs.timeline", s.outputs.timeline},
                                  std::pair{"outputs.vcd", s.outputs.vcd}}) {
    if (file.empty()) continue;
    const fs::path f = fs::absolute(file).lexically_normal();
    const auto rel = f.lexically_relative(dir);
    if (!rel.empty() && *rel.begin() != "..")
      throw std::runtime_error(
          fmt::format("{} {} is inside the output directory {}, which a run replaces as a whole; "
                      "write it beside it (e.g. {}-{})",
                      key, file, dir.string(), dir.string(), f.filename().string()));
  }
}

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
        info.realtime = k.flavour().sys_kernel_realtime;
        info.start_s = c->start_s();
        info.end_s = sc_core::sc_time_stamp().to_seconds();
        write_file(tmp / file, c->json(info));
        for (const auto& [cpu, t] : c->timerlat()) merge(timerlat[cpu], t);
      }
    }
    write_file(tmp / "cyclictest.txt", ct);
    if (!timerlat.empty())
      write_file(tmp / "timerlat.txt",
                 kernel::Cyclictest::timerlat_top(timerlat, sc_core::sc_time_stamp().to_seconds()));
    // /var/log/messages: the tracer's "new N us maximum-latency" reports.
    write_file(tmp / "syslog.txt", tr.syslog("latsim"));

    // /proc/latencytimes as read at the end of the run (2.4.10-preempt).
    if (const kernel::PreemptStats* ps = k.preempt_stats())
      write_file(tmp / "preempt-stats.txt", ps->format([&k](unsigned irq) -> std::string {
        const std::string& n = k.irq_desc(irq).name;
        return n.empty() ? std::string("old irq") : n;
      }));

    for (const auto& w : k.workloads())
      if (auto* lt = dynamic_cast<kernel::Latencytest*>(w.get()))
        write_file(tmp / "latencytest.txt", lt->report(s.kernel.version));

    std::string dmesg;
    for (const auto& l : tr.messages()) dmesg += l + "\n";
    for (const auto& l : k.dmesg()) dmesg += l + "\n";
    write_file(tmp / "dmesg.txt", dmesg);
    // /proc/interrupts as read at the end of the run.
    write_file(tmp / "interrupts.txt", k.show_interrupts());

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
