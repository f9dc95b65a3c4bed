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
#include "platform/scenario_emit.h"
#include "workloads/registry.h"

namespace latsim::platform {
namespace fs = std::filesystem;
namespace {

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

double ms(const sc_core::sc_time& t) { return std::round(t.to_seconds() * 1e6) / 1e3; }

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

nlohmann::json collect_metrics(const Scenario& s, Machine& m, kernel::Kernel& k,
                               const std::vector<workloads::Program*>& programs) {
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
  for (const auto* p : programs) {
    json entry = p->metrics(k, sim_s);
    if (!entry.is_null()) workloads[p->name()] = std::move(entry);
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

namespace {

// Each workload kind's files (cyclictest.txt, latencytest.txt...), from all its programs.
void write_program_files(const Scenario& s, kernel::Kernel& k,
                         const std::vector<workloads::Program*>& programs, const fs::path& dir) {
  const workloads::RunEnd end{
      k, sc_core::sc_time_stamp().to_seconds(),
      s.kernel.flavour == "rt",  // /sys/kernel/realtime on PREEMPT_RT
      [&dir](const std::string& file, const std::string& text) { write_file(dir / file, text); }};
  for (const auto& kind : workloads::kinds()) {
    if (!kind.outputs) continue;
    std::vector<const workloads::Program*> mine;
    for (size_t i = 0; i < programs.size(); ++i)
      if (s.workload[i].kind == kind.name) mine.push_back(programs[i]);
    kind.outputs(mine, end);
  }
}

}  // namespace

void write_outputs(const Scenario& s, kernel::Kernel& k,
                   const std::vector<workloads::Program*>& programs, const RunResult& r) {
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

    write_program_files(s, k, programs, tmp);
    // /var/log/messages: the tracer's "new N us maximum-latency" reports.
    write_file(tmp / "syslog.txt", tr.syslog("latsim"));

    // /proc/latencytimes as read at the end of the run (2.4.10-preempt).
    if (const kernel::PreemptStats* ps = k.preempt_stats())
      write_file(tmp / "preempt-stats.txt", ps->format([&k](unsigned irq) -> std::string {
        const std::string& n = k.irq_desc(irq).name;
        return n.empty() ? std::string("old irq") : n;
      }));

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
