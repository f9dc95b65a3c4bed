#include "platform/timeline/vcd_recorder.h"
#include <fmt/format.h>
#include <algorithm>
#include <cctype>

namespace latsim::platform::timeline {
namespace {

std::string signal_name(std::string s) {
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

}  // namespace

VcdRecorder::VcdRecorder(const std::string& path, TimeWindow win, int ncpus,
                         const std::vector<std::string>& irq_lines,
                         const std::vector<std::string>& masters,
                         const std::vector<std::string>& counters)
    : window_(win), w_(path, win) {
  for (const auto& l : irq_lines) lines_[l] = w_.add("irq", signal_name(l), 1, 0);
  for (const auto& c : counters) counters_[c] = w_.add("device", signal_name(c), 16, 0);
  for (const auto& m : masters) {
    req_.push_back(w_.add("pci", "REQ_n_" + signal_name(m), 1, 1));  // deasserted high
    gnt_.push_back(w_.add("pci", "GNT_n_" + signal_name(m), 1, 1));
  }
  owner_ = w_.add("pci", "bus_owner", 4, kVcdZ);
  for (int c = 0; c < ncpus; ++c) {
    cpu_if_.push_back(w_.add(fmt::format("cpu{}", c), "IF", 1, 0));
    cpu_pid_.push_back(w_.add(fmt::format("cpu{}", c), "current_pid", 16, 0));
  }
}

void VcdRecorder::push(uint64_t ps, Edge e, int var, uint64_t value, int train) {
  q_.push({std::max(ps, last_ps_), seq_++, e, var, value, train});
}

void VcdRecorder::apply(int var, uint64_t ps, uint64_t value) {
  last_ps_ = std::max(last_ps_, ps);
  w_.change(var, last_ps_, value);
}

void VcdRecorder::drain(uint64_t now_ps) {
  while (!q_.empty() && q_.top().ps <= now_ps) {
    const Pending p = q_.top();
    q_.pop();
    if (p.edge == Edge::Set) {
      apply(p.var, p.ps, p.value);
      continue;
    }
    auto it = trains_.find(p.train);
    if (it == trains_.end()) continue;
    Train& tr = it->second;
    const auto m = size_t(tr.master);
    if (p.edge == Edge::BurstStart) {
      apply(gnt_[m], p.ps, 0);
      apply(owner_, p.ps, uint64_t(tr.master));
      push(std::min(p.ps + tr.tenure, tr.end), Edge::BurstEnd, -1, 0, p.train);
      continue;
    }
    apply(gnt_[m], p.ps, 1);
    apply(owner_, p.ps, kVcdZ);
    const uint64_t next = tr.start + (++tr.k) * tr.period;
    if (tr.period && next < tr.end)
      push(next, Edge::BurstStart, -1, 0, p.train);
    else
      trains_.erase(it);
  }
}

void VcdRecorder::counter(const char* name, sc_core::sc_time t, uint64_t value) {
  auto it = counters_.find(name);
  if (it == counters_.end()) return;
  drain(to_ps(t));
  apply(it->second, to_ps(t), value);
}

void VcdRecorder::irq_line(const char* name, sc_core::sc_time t, bool level) {
  auto it = lines_.find(name);
  if (it == lines_.end()) return;
  drain(to_ps(t));
  apply(it->second, to_ps(t), level);
}

void VcdRecorder::pci_train(int master, sc_core::sc_time start, sc_core::sc_time end,
                            sc_core::sc_time period, sc_core::sc_time tenure, uint64_t) {
  if (size_t(master) >= req_.size()) return;
  const uint64_t a = to_ps(start), b = to_ps(end), per = to_ps(period);
  if (b < window_.from_ps || a > window_.to_ps) return;  // nothing of it is shown
  drain(to_ps(sc_core::sc_time_stamp()));
  const int id = next_train_++;
  // Bursts that end before the window are skipped, not replayed one by one.
  const uint64_t skip = per && window_.from_ps > a ? (window_.from_ps - a) / per : 0;
  trains_[id] = {master, a, b, per, to_ps(tenure), skip};
  push(a, Edge::Set, req_[size_t(master)], 0);
  push(a + skip * per, Edge::BurstStart, -1, 0, id);
  push(b, Edge::Set, req_[size_t(master)], 1);
}

void VcdRecorder::pci_host_hold(sc_core::sc_time from, sc_core::sc_time to) {
  if (to_ps(to) < window_.from_ps || to_ps(from) > window_.to_ps) return;
  drain(to_ps(sc_core::sc_time_stamp()));
  push(to_ps(from), Edge::Set, req_[0], 0);
  push(to_ps(from), Edge::Set, gnt_[0], 0);
  push(to_ps(from), Edge::Set, owner_, 0);
  push(to_ps(to), Edge::Set, req_[0], 1);
  push(to_ps(to), Edge::Set, gnt_[0], 1);
  push(to_ps(to), Edge::Set, owner_, kVcdZ);
}

void VcdRecorder::cpu_if(int cpu, sc_core::sc_time t, bool enabled) {
  if (size_t(cpu) >= cpu_if_.size()) return;
  drain(to_ps(t));
  apply(cpu_if_[size_t(cpu)], to_ps(t), enabled);
}

void VcdRecorder::sched_switch(int cpu, sc_core::sc_time t, const kernel::Task&,
                               const kernel::Task& next) {
  drain(to_ps(t));
  apply(cpu_pid_[size_t(cpu)], to_ps(t), uint64_t(next.pid));
}

void VcdRecorder::finish(sc_core::sc_time end) {
  drain(to_ps(end));
  w_.finish(to_ps(end));
}

}  // namespace latsim::platform::timeline
