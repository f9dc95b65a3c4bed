#include "kernel_sim/trace/preempt_stats.h"
#include <fmt/format.h>

namespace latsim::kernel {

PreemptStats::PreemptStats(int ncpus, sc_core::sc_time log_from)
    : cpus_(size_t(ncpus)), log_from_(log_from) {}

void PreemptStats::start(int cpu, sc_core::sc_time now, const SourceLine& site, int cause) {
  PerCpu& l = cpus_[size_t(cpu)];
  if (now < log_from_) return;  // logFlag == 0
  if (l.open) return;           // syncFlag == SfC: the outer section goes on
  l.open = true;
  l.t0 = now;
  l.start = site;
  l.cause = cause;
  l.mask = 0;
}

void PreemptStats::cause(int cpu, int was, int tobe) {
  PerCpu& l = cpus_[size_t(cpu)];
  if (was == -100) {
    l.mask |= uint32_t(tobe);
    return;
  }
  if (l.cause == was) l.cause = tobe;
}

void PreemptStats::end(int cpu, sc_core::sc_time now, const SourceLine& site) {
  PerCpu& l = cpus_[size_t(cpu)];
  if (!l.open) return;  // syncFlag == SfS: nothing to close
  l.open = false;
  // clock_to_usecs of a TSC difference: whole microseconds, truncated.
  logentry(l, uint64_t((now - l.t0).to_seconds() * 1e6), site);
}

// latency_logentry: replace the same path's entry if longer, else the lowest one;
// `least` only approximates the table's minimum, as the original says.
void PreemptStats::logentry(PerCpu& l, uint64_t diff, const SourceLine& end) {
  if (diff < l.least) return;
  uint64_t lowest = UINT64_MAX;
  size_t lowest_i = 0, same = SIZE_MAX;
  for (size_t i = 0; i < NUM_LOG_ENTRY; ++i) {
    if (lowest > l.entry[i].latency_us) lowest = l.entry[i].latency_us, lowest_i = i;
    if (end.address == l.entry[i].end.address && l.start.address == l.entry[i].start.address) {
      same = i;
      break;
    }
  }
  size_t i = same;
  if (same == SIZE_MAX) {
    i = lowest_i;
    l.least = l.entry[i].latency_us;
  }
  if (diff > l.entry[i].latency_us) l.entry[i] = {diff, l.cause, l.mask, l.start, end};
  l.measured++;
}

std::vector<PreemptStatsEntry> PreemptStats::worst(int cpu) const {
  // latencytimes_read_proc: repeatedly print the largest entry and clear it.
  std::vector<PreemptStatsEntry> e = cpus_[size_t(cpu)].entry, out;
  for (size_t n = 0; n < NUM_LOG_ENTRY; ++n) {
    size_t best = 0;
    uint64_t max = 0;
    for (size_t j = 0; j < NUM_LOG_ENTRY; ++j)
      if (e[j].latency_us > max) max = e[j].latency_us, best = j;
    out.push_back(e[best]);
    e[best].latency_us = 0;
    e[best].end.address = 0;
  }
  return out;
}

std::string PreemptStats::format(const std::function<std::string(unsigned)>& irq_name) const {
  static const char* const kCause[] = {"Unknown", "spin_lock", "reacqBKL", "BKL"};
  std::string s;
  for (size_t c = 0; c < cpus_.size(); ++c) {
    if (cpus_.size() == 1)
      s += fmt::format("Worst {} latency times of {} measured in this period.\n", NUM_LOG_ENTRY,
                       cpus_[c].measured);
    else
      s += fmt::format("cpu {} worst {} latency times of {} measured in this period.\n", c,
                       NUM_LOG_ENTRY, cpus_[c].measured);
    s += "  usec      cause     mask   start line/file      address   end line/file\n";
    for (const PreemptStatsEntry& e : worst(int(c))) {
      const std::string cause = e.cause == CAUSE_ENTRY ? "unknown"
                                : e.cause < 0          ? irq_name(unsigned(~e.cause))
                                : e.cause > CAUSE_BKL  ? "Unknown"
                                                       : kCause[e.cause];
      // A never-filled row has no file: latency.c prints "entry.S".
      const char* sf = e.start.file ? e.start.file : "entry.S";
      const char* ef = e.end.file ? e.end.file : "entry.S";
      s += fmt::format("{:6d} {:>10} {:8x} {:5d}/{:<15} {:8x} {:5d}/{}\n", e.latency_us, cause,
                       e.mask, e.start.line, sf, e.start.address, e.end.line, ef);
    }
  }
  return s;
}

}  // namespace latsim::kernel
