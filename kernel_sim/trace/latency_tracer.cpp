#include "kernel_sim/trace/latency_tracer.h"
#include <fmt/format.h>
#include <algorithm>
#include <ctime>
#include "common/log.h"
#include "kernel_sim/key_binders.h"

namespace latsim::kernel {
namespace {

uint64_t floor_us(const sc_time& d) { return d.value() / 1000000ull; }  // 1 ps resolution

std::string ms(uint64_t us) { return fmt::format("{}.{:03}ms", us / 1000, us % 1000); }

bool shorter(const LatencyTrace& a, const LatencyTrace& b) {
  if (a.latency_us != b.latency_us) return a.latency_us > b.latency_us;
  return a.t_start < b.t_start;  // earlier trace counts as "larger" on ties
}

}  // namespace

params::Table<LatencyTracerParams> tracer_keys() {
  using namespace params;
  using P = LatencyTracerParams;
  return {
      bind<P>(of_type(ValueType::Bool, "enabled", "/proc/sys/kernel/tracing_enabled"), &P::enabled),
      bind_flag<P>(with_source(choice("task_at", {"end", "start"},
                                      "the task a trace's header and log line name: end "
                                      "(current when the section ends, as the VP tracer's "
                                      "update_max_tr: a section spanning a switch names the next "
                                      "task) or start (the task that opened it)"),
                               "VP latency tracer: check_critical_timing -> update_max_tr"),
                   &P::task_at_end, "end"),
      bind<P>(of_type(ValueType::Bool, "blame",
                      "record the blame ledger of every kept trace and timer wake-up "
                      "(traces/blame.json, metrics blame.*, latsim explain); false: a faster "
                      "run without them"),
              &P::blame),
      bind_unsigned<P>(integer("blame_journal", 4, 1 << 24, "calls",
                               "calls each CPU's blame journal holds before the open ledgers "
                               "add up what they have (memory; the ledgers do not change)"),
                       &P::blame_journal),
      bind_unsigned<P>(integer("max_traces", 1, 10000, "", "traces/ keeps the largest N"),
                       &P::max_traces),
      bind<P>(of_type(ValueType::String, "spans",
                      "durations between traced functions in metrics.json latency_tracer.spans: "
                      "\"A-B\" from A to the next B, \"A\" A's step; comma-separated"),
              &P::spans),
  };
}

LatencyTracer::LatencyTracer(int ncpus, const LatencyTracerParams& p)
    : p_(p), cpus_(ncpus), spans_(ncpus, p.spans) {}

void LatencyTracer::begin(int cpu, sc_time now, const CodeSite& site, const char* parent,
                          uint32_t pc, const TaskInfo& task, const char* lock) {
  auto& c = cpus_[cpu];
  c.active = true;
  c.t0 = now;
  c.start = site;
  c.task = task;
  c.opened_by = task;
  c.lock = lock;
  c.buf.clear();
  c.total = 0;
  mcount(cpu, now, pc, site.fn, parent);
}

void LatencyTracer::mcount(int cpu, sc_time now, uint32_t pc, const char* fn, const char* parent) {
  auto& c = cpus_[cpu];
  if (!c.active || !p_.enabled) return;
  c.total++;
  if (c.buf.size() < p_.max_entries) c.buf.push_back({pc, now, fn, parent});
  if (!spans_.empty()) spans_.mcount(cpu, now, fn);
}

void LatencyTracer::end(int cpu, sc_time now, const CodeSite& site, const TaskInfo& ending) {
  if (p_.task_at_end && cpus_[cpu].active) cpus_[cpu].task = ending;
  end(cpu, now, site);
}

void LatencyTracer::end(int cpu, sc_time now, const CodeSite& site) {
  auto& c = cpus_[cpu];
  if (!c.active) return;
  c.active = false;
  sections_++;
  if (!spans_.empty()) spans_.section_end(cpu, now);
  const uint64_t lat = floor_us(now - c.t0);
  const bool new_max = lat > max_us_ || sections_ == 1;
  if (lat <= p_.threshold_us && !new_max) return;
  LatencyTrace t;
  t.latency_us = lat;
  t.cpu = cpu;
  t.task = c.task;
  t.start = c.start;
  t.end = site;
  t.t_start = c.t0;
  t.t_end = now;
  t.total_entries = c.total;
  t.opened_by = c.opened_by;
  t.lock = c.lock;
  if (new_max) {
    max_us_ = lat;
    max_trace_ = t;
    max_trace_.entries = c.buf;
    if (blame_) max_trace_.blame = blame_->section_items(cpu);
    if (lat > p_.threshold_us) {
      log_.push_back(fmt::format("({}/{}): new {} us maximum-latency critical section.",
                                 c.task.comm, c.task.pid, lat));
      log_.push_back(fmt::format(" => started at: <{}>", format_site(c.start)));
      log_.push_back(fmt::format(" => ended at:   <{}>", format_site(site)));
      log_t_.insert(log_t_.end(), 3, now);
      for (auto l = log_.end() - 3; l != log_.end(); ++l)
        LATSIM_LOG(printk, info, fmt::format("cpu{} {}-{}", cpu, c.task.comm, c.task.pid), "{}",
                   *l);
    }
  }
  if (lat <= p_.threshold_us) return;
  over_++;
  if (kept_.size() >= p_.max_traces) {
    if (!shorter(t, kept_.front())) return;  // not longer than the shortest kept
    std::pop_heap(kept_.begin(), kept_.end(), shorter);
    kept_.pop_back();
  }
  t.entries = c.buf;
  if (blame_) t.blame = blame_->section_items(cpu);
  kept_.push_back(std::move(t));
  std::push_heap(kept_.begin(), kept_.end(), shorter);
}

std::string LatencyTracer::file_name(int n, const LatencyTrace& t) {
  return fmt::format("trace-{:03d}-{}us.txt", n, t.latency_us);
}

std::vector<LatencyTrace> LatencyTracer::traces() const {
  auto v = kept_;
  std::sort(v.begin(), v.end(), shorter);
  return v;
}

std::string LatencyTracer::format(const LatencyTrace& t) const {
  // Layout of the -Q9/-R1 tracer (seed 000): v1.0.5 prints "on <kernel>" and,
  // per entry, the time to the next entry in parentheses.
  const std::string head = fmt::format("preemption latency trace v1.0.5 on {}", p_.kernel_version);
  std::string out = head + "\n" + std::string(head.size(), '-') + "\n";
  out += fmt::format(" latency: {} us, entries: {} ({})\n", t.latency_us, t.entries.size(),
                     t.total_entries);
  out += "    -----------------\n";
  out += fmt::format("    | task: {}/{}, uid:{} nice:{} policy:{} rt_prio:{}\n", t.task.comm,
                     t.task.pid, t.task.uid, t.task.nice, t.task.policy, t.task.rt_prio);
  out += "    -----------------\n";
  out += fmt::format(" => started at: {}\n", format_site(t.start));
  out += fmt::format(" => ended at:   {}\n", format_site(t.end));
  out += "=======>\n";
  for (size_t i = 0; i < t.entries.size(); ++i) {
    const auto& e = t.entries[i];
    const sc_time next = i + 1 < t.entries.size() ? t.entries[i + 1].t : t.t_end;
    out += fmt::format("{:08x} {} (+{}): {} ({})\n", e.preempt_count, ms(floor_us(e.t - t.t_start)),
                       ms(floor_us(next - e.t)), e.fn, e.parent);
  }
  return out;
}

std::string LatencyTracer::syslog(const std::string& host) const {
  std::string out;
  for (size_t i = 0; i < log_.size(); ++i) {
    const std::time_t t = std::time_t(log_t_[i].to_seconds());  // boot = the epoch
    std::tm tm{};
    gmtime_r(&t, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%b %e %H:%M:%S", &tm);
    out += fmt::format("{} {} kernel: {}\n", stamp, host, log_[i]);
  }
  return out;
}

}  // namespace latsim::kernel
