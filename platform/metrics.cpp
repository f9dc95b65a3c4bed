#include "platform/metrics.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include "kernel_sim/block/block_layer.h"
#include "kernel_sim/drivers/net/rtl8139.h"
#include "kernel_sim/drivers/sound/es1371.h"
#include "kernel_sim/drivers/usb/uhci_hcd.h"
#include "kernel_sim/fs/ext3.h"
#include "kernel_sim/fs/reiserfs.h"
#include "kernel_sim/net/dev.h"
#include "platform/blame_json.h"

namespace latsim::platform {
namespace {

using nlohmann::json;

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
// cause; `worst.is.<cause>`, `worst.start_in.<file>` and `worst.end_in.<file>` are 1 for
// the top entry's cause and the files its start and end lie in.
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
      // 0 for each file the 2.4.10 source table knows, 1 for the one the site is in.
      auto in = [](const char* f) {
        auto key = [](std::string s) {
          std::replace(s.begin(), s.end(), '.', '_');  // metric paths split at dots
          return s;
        };
        nlohmann::json j = nlohmann::json::object();
        for (const std::string& known : kernel::source_files()) j[key(known)] = 0;
        j[key(f ? f : "entry.S")] = 1;
        return j;
      };
      worst["is"] = is;
      worst["start_in"] = in(e.start.file);
      worst["end_in"] = in(e.end.file);
    }
  }
  j["preempt_stats"] = {
      {"max_us", max_us}, {"measured", measured}, {"worst", worst}, {"max_us_by_cause", by_cause}};
}

// latency_tracer.*: the VP tracer's maximum, traces over its threshold and the spans.
void tracer_metrics(json& j, const RunView& v) {
  auto& tr = v.k.tracer();
  j["latency_tracer"] = {
      {"max_us", tr.max_us()},
      {"traces_over_threshold", tr.over_threshold()},
      // a rate to set beside a tracer log's ("71 traces > 500 usec" in
      // a 25-minute run)
      {"traces_per_min", v.sim_s > 0 ? round3(double(tr.over_threshold()) * 60 / v.sim_s) : 0.0},
      {"threshold_us", tr.threshold_us()},
      {"critical_sections", tr.sections()}};
  // The longest section's blame ledger (traces/blame.json has every kept trace's), and
  // blame.*: shares by cause for hypotheses (blame.max.bus_master.share >= 0.6).
  if (v.k.blame() && tr.sections()) j["latency_tracer"]["blame"] = trace_blame(v, tr.max_trace());
  if (v.k.blame()) j["blame"] = blame_summary(v);
  for (const auto& sp : tr.spans().stats())
    j["latency_tracer"]["spans"][sp.name] = {{"count", sp.count},
                                             {"median_us", round3(sp.median_us)},
                                             {"p90_us", round3(sp.p90_us)},
                                             {"max_us", round3(sp.max_us)}};
}

void reiserfs_metrics(json& j, const RunView& v) {
  const kernel::ReiserFs* fs = v.k.reiserfs_if_mounted();
  if (!fs) return;
  const auto& f = fs->stats();
  j["reiserfs"] = {{"commits", f.commits},
                   {"committed_blocks", f.committed_blocks},
                   {"max_commit_blocks", f.max_commit_blocks},
                   {"join_waits", f.join_waits},
                   {"creates", f.creates},
                   {"unlinks", f.unlinks}};
}

// ext3.*: the journal's commits and what they logged (fs/ext3.h).
void ext3_metrics(json& j, const RunView& v) {
  const kernel::Ext3* fs = v.k.ext3_if_mounted();
  if (!fs) return;
  const auto& f = fs->stats();
  j["ext3"] = {{"commits", f.commits},
               {"metadata_blocks", f.metadata_blocks},
               {"max_commit_blocks", f.max_commit_blocks},
               {"log_blocks", f.log_blocks},
               {"dirty_inodes", f.dirty_inodes},
               {"creates", f.creates},
               {"unlinks", f.unlinks}};
}

// rcu.*: preemptible RCU's readers, boosts and grace periods (the preempt-RCU flavours).
void rcu_metrics(json& j, const RunView& v) {
  const kernel::RcuState* r = v.k.rcu();
  if (!r) return;
  const kernel::RcuStats& s = r->s;
  j["rcu"] = {{"read_sections", s.read_sections},
              {"boost_called", s.boost_called},
              {"boosted", s.boosted},
              {"unboost_called", s.unboost_called},
              {"unboosted", s.unboosted},
              {"boost_readers", s.boost_readers},
              {"grace_periods", s.grace_periods},
              {"callbacks", s.callbacks},
              {"marker_calls", s.marker_calls},
              {"trace_counts", s.trace_counts}};
}

void time_metrics(json& j, const RunView& v) {
  j["ticks"] = {{"handled", v.k.time_stats().ticks},
                {"lost", v.k.time_stats().lost_ticks},
                {"lost_warnings", v.k.time_stats().lost_warnings}};
  j["softirqs"] = {{"inline_runs", v.k.softirq_stats().inline_runs},
                   {"ksoftirqd_runs", v.k.softirq_stats().ksoftirqd_runs}};
}

// disk.scsi.*: the AIC-7880's commands, tagged queueing and disconnections (fitted only
// with platform.disk.adapter aic7xxx).
json scsi_metrics(const scsi::Aic7880& a) {
  const auto& st = a.stats();
  return {{"commands", st.commands},
          {"bytes", st.bytes},
          {"bytes_written", st.bytes_written},
          {"max_outstanding", st.max_outstanding},
          {"disconnects", st.disconnects},
          {"selections_delayed", st.selections_delayed},
          {"irqs", st.irqs},
          {"bus_busy_us", us(st.bus_busy)},
          {"mean_command_us", st.commands ? round3(us(st.busy) / double(st.commands)) : 0.0},
          {"longest_data_phase_us", us(st.longest_data_phase)}};
}

// disk.*: bytes the disk delivered into the page cache, for every file (cat's own read(2)
// figures are workloads.<disk_read>), the requests, the IDE channel and the page cache.
void disk_metrics(json& j, const RunView& v) {
  const auto& ide = v.m.ide.stats();
  const auto& bs = v.k.block().stats();
  const uint64_t disk_bytes = bs.pages_from_disk * 4096;
  json disk = {{"read_mb_s", v.sim_s > 0 ? round3(double(disk_bytes) / 1e6 / v.sim_s) : 0.0},
               {"bytes_read", disk_bytes},
               {"read_requests", bs.read_requests},
               {"write_requests", bs.write_requests},
               {"bytes_written", bs.pages_written * 4096},
               {"ide_commands", ide.commands},
               {"prd_entries", ide.prd_entries},
               {"prd_64k_violations", ide.prd_64k_violations},
               {"longest_prd_entry_us", us(ide.longest_entry)},
               {"drive_cache_hits", v.m.disk.cache_hits()},
               {"requests", bs.requests},
               {"max_request_kb", bs.max_request_sectors / 2},
               {"plugs", bs.plugs},
               {"unplugs_thresh", bs.unplugs_thresh},
               {"unplugs_wait", bs.unplugs_wait},
               {"unplugs_timer", bs.unplugs_timer}};
  // The page cache's lists (kernel.page_lru) at the end of the run, and their traffic.
  const auto& lru = v.k.block().lru();
  disk["page_cache"] = {{"active_pages", lru.nr_active()},
                        {"inactive_pages", lru.nr_inactive()},
                        {"activations", lru.stats().activations},
                        {"deactivations", lru.stats().deactivations},
                        {"evictions", bs.evictions}};
  if (v.m.scsi) disk["scsi"] = scsi_metrics(*v.m.scsi);
  j["disk"] = disk;
}

void workload_metrics(json& j, const RunView& v) {
  json workloads = json::object();
  for (const auto* p : v.programs) {
    json entry = p->metrics(v.k, v.sim_s);
    if (!entry.is_null()) workloads[p->name()] = std::move(entry);
  }
  j["workloads"] = workloads;
}

// Frames the NIC lost for want of room: the RTL8139's ring, or the FEC's Rx FIFO.
uint64_t nic_frames_dropped(const RunView& v) {
  if (v.m.fec) return v.m.fec->stats().frames_dropped_fifo;
  return v.m.nic.stats().frames_dropped_overflow;
}

json eth0_metrics(const RunView& v, const kernel::NetDriver& n) {
  const auto& ns = v.k.net().stats();
  return {{"irqs", n.stats().irqs},
          {"rx_packets", n.stats().rx_packets},
          {"tx_packets", n.stats().tx_packets},
          {"polls", n.stats().polls},
          {"net_rx_action_runs", ns.rx_action_runs},
          {"time_squeeze", ns.time_squeeze},
          {"max_packets_per_poll", ns.max_packets_per_poll},
          {"max_schedule_to_poll_us", us(ns.max_schedule_to_poll)},
          {"socket_drops", ns.socket_drops},
          {"nic_frames_dropped_overflow", nic_frames_dropped(v)}};
}

json audiopci_metrics(const kernel::Es1371Driver& a) {
  const auto& as = a.stats();
  return {{"irqs", as.irqs},           {"periods", as.periods},
          {"writes", as.writes},       {"xruns", as.xruns},
          {"prepares", as.prepares},   {"src_accesses", as.src_accesses},
          {"src_polls", as.src_polls}, {"src_max_us", us(as.src_max)}};
}

// uhci_hcd's handler calls and the controllers' USBSTS reads.
json uhci_metrics(const RunView& v) {
  json hcs = json::array();
  for (size_t i = 0; i < v.k.uhci().size(); ++i) {
    const auto& hs = v.k.uhci()[i]->stats();
    hcs.push_back({{"handler_calls", hs.calls},
                   {"not_mine", hs.not_mine},
                   {"status_reads", v.m.usb[i]->status_reads()}});
  }
  return hcs;
}

void driver_metrics(json& j, const RunView& v) {
  const auto& bs = v.k.block().stats();
  if (!v.k.has_drivers() && !bs.pages_dirtied) return;
  json drivers = json::object();
  if (auto* n = v.k.nic_if_up()) drivers["eth0"] = eth0_metrics(v, *n);
  if (auto* a = v.k.snd_if_up()) drivers["audiopci"] = audiopci_metrics(*a);
  if (!v.k.uhci().empty()) drivers["uhci_hcd"] = uhci_metrics(v);
  if (bs.pages_dirtied)
    drivers["writeback"] = {{"pages_dirtied", bs.pages_dirtied},
                            {"pages_written", bs.pages_written},
                            {"write_requests", bs.write_requests},
                            {"throttled", bs.throttled},
                            {"max_dirty_pages", bs.max_dirty}};
  j["drivers"] = drivers;
}

json stall_causes(const cpu::StallCauses& c) {
  return json{
      {"memory", us(c.memory)},         {"pci", us(c.pci)},   {"isa", us(c.isa)},
      {"video_fifo", us(c.video_fifo)}, {"spin", us(c.spin)}, {"smm", us(c.smm)},
  };
}

void cpu_metrics(json& j, const RunView& v) {
  json cpus = json::array();
  for (auto& c : v.m.cpus) {
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
    cpus.back()["stall_us"] = stall_causes(st.stall);          // totals by cause
    cpus.back()["stall_max_us"] = stall_causes(st.stall_max);  // longest single stall by cause
  }
  j["cpus"] = cpus;
}

// Only boards with a graphics card: other runs' metrics stay as they were.
void video_metrics(json& j, const RunView& v) {
  if (!v.m.video) return;
  const auto& s = v.m.video->stats();
  j["video"] = {{"commands", s.fifo_writes},
                {"renders", s.renders},
                {"status_reads", s.status_reads},
                {"status_reads_per_command",
                 s.fifo_writes ? round3(double(s.status_reads) / double(s.fifo_writes)) : 0.0},
                {"fifo_max_level", s.max_level},
                {"fifo_full_ms", round3(s.time_full.to_seconds() * 1e3)},
                {"writes_into_full_fifo", s.full_writes},
                {"retries", s.retries},
                {"longest_bus_hold_us", us(s.longest_hold)},
                {"bus_hold_total_ms", round3(s.hold_total.to_seconds() * 1e3)},
                {"longest_pci_transaction_us", us(v.m.pci.stats().longest_transaction)}};
}

void sched_metrics(json& j, const RunView& v) {
  uint64_t switches = 0;
  for (int i = 0; i < v.k.ncpus(); ++i) switches += v.k.cpu_rq(i).nr_switches;
  j["scheduler"] = {{"context_switches", switches}};
  const auto& tlb = v.k.tlb_stats();
  j["tlb_shootdown"] = {{"flushes", tlb.flushes},
                        {"ipis", tlb.ipis},
                        {"wait_max_us", us(tlb.wait_max)},
                        {"wait_total_us", us(tlb.wait_total)}};
}

// fpu.*: the lazy FPU switch and the kernel's MMX routines, once either was used.
void fpu_metrics(json& j, const RunView& v) {
  const kernel::FpuStats& f = v.k.fpu_stats();
  if (!f.active()) return;
  j["fpu"] = {{"nm_traps", f.nm_traps},
              {"saves", f.saves},
              {"restores", f.restores},
              {"kernel_fpu_sections", f.kernel_fpu},
              {"kernel_fpu_mb", round3(double(f.kernel_fpu_bytes) / 1e6)},
              {"kernel_fpu_max_us", round3(f.kernel_fpu_max_us)},
              {"preemptible_ms", round3(f.preemptible_s * 1e3)},
              {"preemptible_max_us", round3(f.preemptible_max_us)},
              {"switched_inside", f.switched_inside},
              {"corrupted_user", f.corrupted_user},
              {"corrupted_kernel", f.corrupted_kernel},
              {"corrupted", f.corrupted_user + f.corrupted_kernel}};
}

// Every component's counters, under their names in metrics.json.
using Publisher = void (*)(json&, const RunView&);
constexpr Publisher kPublishers[] = {
    tracer_metrics,
    [](json& j, const RunView& v) { add_preempt_stats(j, v.k); },
    reiserfs_metrics,
    ext3_metrics,
    rcu_metrics,
    time_metrics,
    disk_metrics,
    workload_metrics,
    driver_metrics,
    [](json& j, const RunView& v) { j["pci"] = pci_metrics(v.m, sc_core::sc_time_stamp()); },
    cpu_metrics,
    video_metrics,
    sched_metrics,
    fpu_metrics,
    [](json& j, const RunView& v) { add_kernel_metrics(j, v.k); },
};

}  // namespace

nlohmann::json collect_metrics(const Scenario& s, const RunView& v) {
  json j;
  j["schema_version"] = 1;
  j["scenario"] = s.name;
  j["seed"] = s.seed;
  j["simulated_s"] = round3(v.sim_s);
  for (Publisher publish : kPublishers) publish(j, v);
  return j;
}

}  // namespace latsim::platform
