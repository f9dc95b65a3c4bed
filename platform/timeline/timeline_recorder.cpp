#include "platform/timeline/timeline_recorder.h"
#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace latsim::platform::timeline {
namespace {

std::string task_label(const kernel::Task& t) { return fmt::format("{}-{}", t.comm, t.pid); }

SchedTask sched_task(const kernel::Task& t) { return {t.comm, t.pid, t.prio}; }

// task_state_to_char() of the trace output: R(+), S, D, X.
char state_char(int state) {
  if (state == kernel::TASK_RUNNING) return 'R';
  if (state & kernel::TASK_DEAD) return 'X';
  if (state & kernel::TASK_UNINTERRUPTIBLE) return 'D';
  return 'S';
}

}  // namespace

TimelineRecorder::TimelineRecorder(kernel::Kernel& k, std::vector<std::string> pci_masters,
                                   const std::string& path, const std::string& ftrace_path,
                                   TimeWindow win, bool functions)
    : k_(k),
      masters_(std::move(pci_masters)),
      window_(win),
      functions_(functions),
      w_(path, win),
      cpus_(size_t(k.ncpus())),
      fsb_busy_until_(size_t(k.ncpus()), 0) {
  if (!ftrace_path.empty())
    ftrace_ = std::make_unique<FtraceTextWriter>(ftrace_path, win, k.ncpus());
  w_.process_name(kCpuPid, "CPUs", 1);
  for (int c = 0; c < k.ncpus(); ++c) {
    w_.thread_name(kCpuPid, c, fmt::format("CPU{}", c), 2 * c);
    w_.thread_name(kCpuPid, kSectionTid + c, fmt::format("CPU{} critical sections", c), 2 * c + 1);
    w_.thread_name(kCpuPid, kIfTid + c, fmt::format("CPU{} interrupts off (IF=0)", c),
                   2 * k.ncpus() + c);
  }
  w_.process_name(kPciPid, "PCI bus", 2);
  for (size_t m = 0; m < masters_.size(); ++m) w_.thread_name(kPciPid, int(m), masters_[m], int(m));
  w_.process_name(kIrqPid, "IRQ lines", 3);
  w_.process_name(kFsbPid, "Front-side bus", 4);
  for (int c = 0; c < k.ncpus(); ++c)
    w_.thread_name(kFsbPid, c, fmt::format("CPU{} held off", c), c);
}

void TimelineRecorder::finish(sc_core::sc_time end, const nlohmann::json* blame) {
  for (const auto& [master, t] : pending_train_) write_train(master, t);
  pending_train_.clear();
  if (blame) {  // (the ledgers point into it: references, never value()'s copies)
    static const nlohmann::json kNone = nlohmann::json::array();
    auto list = [&](const char* key) -> const nlohmann::json& {
      return blame->contains(key) ? blame->at(key) : kNone;
    };
    for (const auto& t : list("traces"))
      add_ledger(kBlameTid, "blame of traced sections", t,
                 "ledger of traces/" + t.value("file", std::string()));
    if (blame->contains("max"))  // unless a kept trace drew it already
      add_ledger(kBlameTid, "blame of traced sections", blame->at("max"),
                 "ledger of traces/max.txt");
    const std::vector<std::string> measures{"wake-up", "cpu loop", "write"};
    for (const auto& w : list("windows")) {
      const std::string m = w.value("measure", std::string());
      const auto i = std::find(measures.begin(), measures.end(), m) - measures.begin();
      add_ledger(kBlameTid + 1 + int(i), "blame of each " + m, w,
                 "ledger of " + w.value("label", std::string()));
    }
    draw_ledgers();
  }
  // An IF=0 span still open when the run stops (an interrupt taken in its last
  // microseconds) is cut at the end, as the trains are.
  for (size_t c = 0; c < cpus_.size(); ++c)
    if (cpus_[c].if_clear) cpu_if(int(c), end, true);
  pci_utilisation(to_ps(end));
  w_.finish(to_ps(end));
  if (ftrace_) ftrace_->finish();
}

// A function slice is written when the next event on its CPU ends it (nothing nests
// inside one), so zero-length ones can be left out: speedscope mis-nests a B/E pair
// that shares its timestamp with other slices' starts. As B/E, not X: speedscope turns
// X into B/E with ts + dur in floating point, which can land after the next start.
namespace {

// "bus_master: ide in kmap_atomic": the cause's kind, name and, for a stall, where.
// Whole nanoseconds, the file's resolution: causes then abut and nest exactly.
uint64_t whole_ns(uint64_t ps) { return ps / 1000 * 1000; }

std::string cause_label(const nlohmann::json& c) {
  std::string s = c.value("kind", std::string()) + ": " + c.value("name", std::string());
  const std::string fn = c.value("fn", std::string());
  return fn.empty() ? s : s + " in " + fn;
}

}  // namespace

void TimelineRecorder::add_ledger(int tid, const std::string& track, const nlohmann::json& interval,
                                  std::string name) {
  const int cpu = interval.value("cpu", 0);
  tid += 10 * cpu;
  const uint64_t from =
      std::max(whole_ns(interval.value("t_start_ps", uint64_t(0))), window_.from_ps);
  const uint64_t to = std::min(whole_ns(interval.value("t_end_ps", uint64_t(0))), window_.to_ps);
  if (to <= from) return;
  auto& on_track = ledgers_[tid];
  for (const Ledger& l : on_track)
    if (from < l.to && l.from < to) return;
  if (on_track.empty())
    w_.thread_name(kCpuPid, tid, fmt::format("CPU{} {}", cpu, track), 2 * cpu + 1);
  on_track.push_back({from, to, &interval, std::move(name)});
}

void TimelineRecorder::draw_ledgers() {
  for (auto& [tid, ledgers] : ledgers_) {
    std::sort(ledgers.begin(), ledgers.end(),
              [](const Ledger& a, const Ledger& b) { return a.from < b.from; });
    for (const Ledger& l : ledgers) {
      // B and E as they are: X's ts + dur, summed in floating point by a viewer, would
      // make abutting causes overlap.
      w_.edge('B', kCpuPid, tid, l.from, l.name, "blame",
              fmt::format("{{\"length_us\":{:.3f}}}", double(l.to - l.from) / 1e6));
      uint64_t at = l.interval->value("t_start_ps", uint64_t(0));
      for (const auto& c : l.interval->value("causes", nlohmann::json::array())) {
        const uint64_t next = at + c.value("ps", uint64_t(0));
        const uint64_t a = std::max(whole_ns(at), l.from), b = std::min(whole_ns(next), l.to);
        at = next;
        if (b <= a) continue;
        const std::string name = cause_label(c);
        w_.edge('B', kCpuPid, tid, a, name, "blame", c.dump());
        w_.edge('E', kCpuPid, tid, b, name, {}, {});  // a viewer matches E to B by name
      }
      w_.edge('E', kCpuPid, tid, l.to, l.name, {}, {});
    }
  }
}

void TimelineRecorder::lock_spin(int cpu, sc_core::sc_time from, sc_core::sc_time to,
                                 const char* lock, int holder) {
  if (holder < 0 || holder == cpu) return;
  const uint64_t mid = (to_ps(from) + to_ps(to)) / 2;  // inside both CPUs' slices
  w_.flow({kCpuPid, holder}, mid, {kCpuPid, cpu}, mid, fmt::format("{} held", lock), "blame");
}

void TimelineRecorder::close_fn(int cpu, uint64_t ps) {
  auto& c = cpus_[size_t(cpu)];
  if (c.fn_label < 0) return;
  const uint64_t from = std::max(c.fn_start, window_.from_ps);
  if (ps > from && from <= window_.to_ps) {
    w_.begin(kCpuPid, cpu, from, c.fn_label);
    w_.end(kCpuPid, cpu, ps);
  }
  c.fn_label = -1;
}

void TimelineRecorder::runqueue_counter(int cpu, uint64_t ps) {
  w_.counter(kCpuPid, ps, fmt::format("runqueue CPU{}", cpu), "nr_running",
             double(k_.cpu_rq(cpu).nr_running));
}

void TimelineRecorder::sched_switch(int cpu, sc_core::sc_time t, const kernel::Task& prev,
                                    const kernel::Task& next) {
  const uint64_t ps = to_ps(t);
  // The switch happens at task level: whatever is still open on this CPU ends here.
  close_fn(cpu, ps);
  while (w_.depth(kCpuPid, cpu) > 0) w_.end(kCpuPid, cpu, ps);
  w_.begin(kCpuPid, cpu, ps, task_label(next), "task");
  runqueue_counter(cpu, ps);
  if (ftrace_)
    ftrace_->sched_switch(cpu, ps, !k_.cpu(cpu).irqs_enabled(), sched_task(prev),
                          state_char(prev.state), sched_task(next));
}

void TimelineRecorder::sched_wakeup(int cpu, sc_core::sc_time t, const kernel::Task& p,
                                    int target_cpu) {
  const uint64_t ps = to_ps(t);
  w_.instant(kCpuPid, cpu, ps, "wakeup " + task_label(p), "sched");
  runqueue_counter(target_cpu, ps);
  if (ftrace_)
    ftrace_->sched_wakeup(cpu, ps, !k_.cpu(cpu).irqs_enabled(), sched_task(*k_.cpu_rq(cpu).curr),
                          sched_task(p), target_cpu);
}

void TimelineRecorder::function_entry(int cpu, sc_core::sc_time t, const char* fn, const char*) {
  const uint64_t ps = to_ps(t);
  close_fn(cpu, ps);
  if (!functions_) return;
  // Names are interned by address (the kernel's function names are string literals).
  auto [it, fresh] = fn_labels_.try_emplace(fn, 0);
  if (fresh) it->second = w_.label(fn, "function");
  cpus_[size_t(cpu)].fn_label = it->second;
  cpus_[size_t(cpu)].fn_start = ps;
}

std::string TimelineRecorder::irq_name(unsigned vector, bool nmi) {
  if (nmi) return "NMI";
  if (vector == kernel::LOCAL_TIMER_VECTOR) return "LOC: local timer";
  if (vector == kernel::RESCHEDULE_VECTOR) return "RES: reschedule IPI";
  if (vector == kernel::SPURIOUS_APIC_VECTOR) return "spurious";
  for (unsigned irq = 0; irq < kernel::NR_IRQS; ++irq) {
    if (kernel::irq_vector(irq) != vector) continue;
    const std::string& name = k_.irq_desc(irq).name;
    return fmt::format("irq{}: {}", irq, name.empty() ? "?" : name);
  }
  return fmt::format("vector {:#x}", vector);
}

void TimelineRecorder::irq_entry(int cpu, sc_core::sc_time t, unsigned vector, bool nmi) {
  const uint64_t ps = to_ps(t);
  close_fn(cpu, ps);
  w_.begin(kCpuPid, cpu, ps, irq_name(vector, nmi), "irq");
}

void TimelineRecorder::irq_exit(int cpu, sc_core::sc_time t) {
  const uint64_t ps = to_ps(t);
  close_fn(cpu, ps);
  w_.end(kCpuPid, cpu, ps);
}

void TimelineRecorder::softirq_entry(int cpu, sc_core::sc_time t) {
  const uint64_t ps = to_ps(t);
  close_fn(cpu, ps);
  w_.begin(kCpuPid, cpu, ps, "softirq", "softirq");
}

void TimelineRecorder::softirq_exit(int cpu, sc_core::sc_time t) {
  const uint64_t ps = to_ps(t);
  close_fn(cpu, ps);
  w_.end(kCpuPid, cpu, ps);
}

void TimelineRecorder::critical_edge(int cpu, sc_core::sc_time t, bool critical,
                                     const kernel::CodeSite& site) {
  auto& c = cpus_[size_t(cpu)];
  const uint64_t ps = to_ps(t);
  // As LatencyTracer::begin/end: a new start restarts the section, an end closes an open one.
  if (critical) {
    c.in_section = true;
    c.section_start = ps;
    c.section_site = site;
    return;
  }
  if (!c.in_section) return;
  c.in_section = false;
  // The tracer's latency: whole microseconds, rounded down (latency_tracer.cpp).
  const uint64_t latency_us = (ps - c.section_start) / 1000000;
  w_.complete(
      kCpuPid, kSectionTid + cpu, c.section_start, ps, "critical section", "latency",
      fmt::format("{{\"latency_us\":{},\"started_at\":\"{}\",\"ended_at\":\"{}\"}}", latency_us,
                  kernel::format_site(c.section_site), kernel::format_site(site)));
}

// Device levels are counter tracks of the PCI bus process ("ph": "C").
void TimelineRecorder::counter(const char* name, sc_core::sc_time t, uint64_t value) {
  w_.counter(kPciPid, to_ps(t), name, "entries", double(value));
}

void TimelineRecorder::irq_line(const char* name, sc_core::sc_time t, bool level) {
  auto [it, fresh] = irq_tids_.try_emplace(name, int(irq_tids_.size()));
  if (fresh) w_.thread_name(kIrqPid, it->second, name, it->second);
  const uint64_t ps = to_ps(t);
  if (level) {
    line_rise_[it->second] = ps;
    return;
  }
  auto rise = line_rise_.find(it->second);
  if (rise == line_rise_.end()) return;
  // A pulse with no width (an edge the model signals as rise and fall at once) is an instant.
  if (ps / 1000 > rise->second / 1000)
    w_.complete(kIrqPid, it->second, rise->second, ps, name, "irq_line");
  else
    w_.instant(kIrqPid, it->second, rise->second, name, "irq_line");
  line_rise_.erase(rise);
}

void TimelineRecorder::pci_train(int master, sc_core::sc_time start, sc_core::sc_time end,
                                 sc_core::sc_time period, sc_core::sc_time tenure, uint64_t bytes) {
  pci_use_.add_train(to_ps(start), to_ps(end), to_ps(period), to_ps(tenure));
  pci_utilisation(to_ps(sc_core::sc_time_stamp()));
  if (auto it = pending_train_.find(master); it != pending_train_.end())
    write_train(master, it->second);
  pending_train_[master] = {to_ps(start), to_ps(end), to_ps(period), to_ps(tenure), bytes};
}

void TimelineRecorder::pci_train_deferred(int master, sc_core::sc_time old_start,
                                          sc_core::sc_time start, sc_core::sc_time end) {
  auto it = pending_train_.find(master);
  if (it == pending_train_.end() || it->second.start != to_ps(old_start)) return;
  it->second.start = to_ps(start);
  it->second.end = to_ps(end);
}

void TimelineRecorder::write_train(int master, const Train& t) {
  // One slice per train (REQ# to the last data phase); a train announced while the
  // master's previous one still runs starts where that one ends, so slices never overlap.
  uint64_t& busy = pci_busy_until_[master];
  const uint64_t from = std::max(t.start, busy), to = t.end;
  if (to <= from) return;
  busy = to;
  const double bursts = t.period ? double(t.end - t.start) / double(t.period) : 1;
  const std::string& name =
      size_t(master) < masters_.size() ? masters_[size_t(master)] : std::string("master");
  w_.complete(kPciPid, master, from, to, name + " bursts", "pci",
              fmt::format("{{\"bytes\":{},\"bursts\":{:.0f},\"tenure_ns\":{:.0f}}}", t.bytes,
                          std::max(1.0, bursts), double(t.tenure) / 1000));
}

void TimelineRecorder::pci_host_hold(sc_core::sc_time from, sc_core::sc_time to) {
  pci_use_.add_busy(to_ps(from), to_ps(to));
  pci_utilisation(to_ps(sc_core::sc_time_stamp()));
  uint64_t& busy = pci_busy_until_[0];
  const uint64_t a = std::max(to_ps(from), busy), b = to_ps(to);
  if (b <= a) return;
  busy = b;
  w_.complete(kPciPid, 0, a, b, "CPU transaction", "pci");
}

// The interval's share of bus ownership, in percent, once it is over.
void TimelineRecorder::pci_utilisation(uint64_t now_ps) {
  pci_use_.flush(now_ps, [this](uint64_t at, uint64_t permille) {
    w_.counter(kPciPid, at, "PCI utilisation", "percent", double(permille) / 10);
  });
}

void TimelineRecorder::cpu_if(int cpu, sc_core::sc_time t, bool enabled) {
  auto& c = cpus_[size_t(cpu)];
  const uint64_t ps = to_ps(t);
  if (!enabled) {
    if (!c.if_clear) c.if_clear = true, c.if_since = ps;
    return;
  }
  if (!c.if_clear) return;
  c.if_clear = false;
  if (ps > c.if_since) w_.complete(kCpuPid, kIfTid + cpu, c.if_since, ps, "IF=0", "irqs_off");
}

// The CPU's cache-line fill waited on the FSB for a bus master's DMA to memory.
void TimelineRecorder::fsb_holdoff(int cpu, sc_core::sc_time from, sc_core::sc_time to,
                                   int master) {
  uint64_t& busy = fsb_busy_until_[size_t(cpu)];
  const uint64_t a = std::max(to_ps(from), busy), b = to_ps(to);
  if (b <= a) return;
  busy = b;
  const std::string by = master >= 0 && size_t(master) < masters_.size() ? masters_[size_t(master)]
                                                                         : std::string("DMA");
  w_.complete(kFsbPid, cpu, a, b, "held off by " + by, "fsb",
              fmt::format("{{\"wait_ns\":{}}}", (b - a) / 1000));
  // An arrow from the master's transfer to the CPU it held off inside a critical section
  // (what a latency trace shows): one per train and CPU.
  if (!cpus_[size_t(cpu)].in_section) return;
  const auto train = pending_train_.find(master);
  if (train == pending_train_.end() || a < train->second.start || a >= train->second.end) return;
  uint64_t& last = flowed_[{cpu, master}];
  if (last == train->second.start + 1) return;
  last = train->second.start + 1;  // + 1: 0 is "none yet"
  w_.flow({kPciPid, master}, (a + std::min(b, train->second.end)) / 2, {kFsbPid, cpu}, (a + b) / 2,
          "holds the CPU off", "blame");
}

}  // namespace latsim::platform::timeline
